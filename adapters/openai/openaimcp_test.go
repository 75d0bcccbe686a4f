package openaimcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	openaimcp "github.com/cuca-go/mcpconnector/adapters/openai"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func testCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func client(m *model) openai.Client {
	return openai.NewClient(option.WithBaseURL(m.srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// runChat is a Chat Completions loop, streamed or not.
func runChat(ctx context.Context, t *testing.T, c openai.Client, ts *openaimcp.Toolset, streamed bool, prompt string) (string, error) {
	t.Helper()
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}
	for range 5 {
		params := openai.ChatCompletionNewParams{Model: "scripted", Messages: msgs, Tools: ts.ChatCompletionTools(ctx, msgs)}
		var msg openai.ChatCompletionMessage
		if streamed {
			var acc openai.ChatCompletionAccumulator
			stream := c.Chat.Completions.NewStreaming(ctx, params)
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				return "", err
			}
			require.NotEmpty(t, acc.Choices)
			msg = acc.Choices[0].Message
		} else {
			completion, err := c.Chat.Completions.New(ctx, params)
			if err != nil {
				return "", err
			}
			msg = completion.Choices[0].Message
		}
		msgs = append(msgs, msg.ToParam())
		results := ts.ToolMessages(ctx, msg)
		if len(results) == 0 {
			return msg.Content, nil
		}
		msgs = append(msgs, results...)
	}
	return "", errors.New("the loop did not end in 5 turns")
}

// runResponses is a Responses loop, streamed or not, that sends the whole
// conversation each turn.
func runResponses(ctx context.Context, t *testing.T, c openai.Client, ts *openaimcp.Toolset, streamed bool, prompt string) (string, error) {
	t.Helper()
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(prompt, responses.EasyInputMessageRoleUser)}
	for range 5 {
		params := responses.ResponseNewParams{Model: "scripted", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Tools: ts.ResponseTools(ctx, input)}
		var resp *responses.Response
		if streamed {
			stream := c.Responses.NewStreaming(ctx, params)
			var text strings.Builder
			for stream.Next() {
				ev := stream.Current()
				switch ev.Type {
				case "response.output_text.delta":
					text.WriteString(ev.Delta)
				case "response.completed":
					r := ev.Response
					resp = &r
				}
			}
			if err := stream.Err(); err != nil {
				return "", err
			}
			require.NotNil(t, resp, "no response.completed")
			assert.Equal(t, resp.OutputText(), text.String(), "the deltas add up to the output")
		} else {
			var err error
			if resp, err = c.Responses.New(ctx, params); err != nil {
				return "", err
			}
		}
		for _, it := range resp.Output {
			if it.Type == "function_call" {
				fc := it.AsFunctionCall()
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(fc.Arguments, fc.CallID, fc.Name))
			}
		}
		outputs := ts.FunctionCallOutputs(ctx, resp)
		if len(outputs) == 0 {
			return resp.OutputText(), nil
		}
		input = append(input, outputs...)
	}
	return "", errors.New("the loop did not end in 5 turns")
}

type loop struct {
	name     string
	streamed bool
	run      func(context.Context, *testing.T, openai.Client, *openaimcp.Toolset, bool, string) (string, error)
}

var loops = []loop{
	{"chat", false, runChat},
	{"chat streamed", true, runChat},
	{"responses", false, runResponses},
	{"responses streamed", true, runResponses},
}

// compact is the schema as the toolbox holds it: the server's JSON,
// decoded and encoded again once, by the MCP client.
func compact(t *testing.T, schema string) string {
	var v any
	require.NoError(t, json.Unmarshal([]byte(schema), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestTheModelAnswersFromAToolResult(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			for _, c := range []struct {
				name, tool, args, want string
			}{
				{"result", "alpha__add", `{"a":2,"b":3}`, "5"},
				{"schema as sent", "beta__weather", `{"city":"Oslo"}`, "sunny in Oslo (metric)"},
				{"failing tool", "alpha__fail", `{}`, "boom"},
				{"denied approval", "alpha__echo", `{"x":1}`, agenttest.DeniedReason},
				{"over the cap", "beta__big", `{}`, "cut]"},
			} {
				t.Run(c.name, func(t *testing.T) {
					m := newModel(t, call(c.tool, c.args), answerFromResult("answer: "))
					got, err := l.run(testCtx(t), t, client(m), openaimcp.Tools(box), l.streamed, "go")
					require.NoError(t, err, "a tool's failure must not stop the loop")
					assert.True(t, strings.HasPrefix(got, "answer: "), got)
					assert.Contains(t, got, c.want)
					assert.Less(t, len(got), agenttest.BigBytes, "the cap holds")
					reqs := m.requests()
					require.Len(t, reqs, 2)
					weather := toolNamed(reqs[0], "beta__weather")
					require.NotNil(t, weather, "tools: %v", toolNames(reqs[0]))
					schema, err := json.Marshal(parameters(weather))
					require.NoError(t, err)
					assert.JSONEq(t, agenttest.WeatherSchema, string(schema))
					assert.Contains(t, string(reqs[0].Raw), `"parameters":`+compact(t, agenttest.WeatherSchema),
						"the schema goes out as the server's JSON")
					if strings.HasPrefix(l.name, "responses") {
						assert.Equal(t, c.tool, reqs[1].Results[0].Name, "the output names its function")
					}
				})
			}
		})
	}
}

func TestACancelledRunCancelsTheMCPCall(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			path := box.WaitPath(t)
			args, _ := json.Marshal(map[string]string{"path": path})
			m := newModel(t, call("beta__wait", string(args)), answerFromResult(""))
			ctx, cancel := context.WithCancel(testCtx(t))
			done := make(chan error, 1)
			go func() {
				_, err := l.run(ctx, t, client(m), openaimcp.Tools(box), l.streamed, "wait")
				done <- err
			}()
			box.WaitStarted(t, path)
			cancel()
			assert.ErrorIs(t, <-done, context.Canceled)
			box.WaitCancelled(t, path)
			assert.Len(t, m.requests(), 1, "no request after the cancel")
		})
	}
}

func TestToolSearchLoadsThenCalls(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	search := toolbox.DefaultToolSearchName
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			m := newModel(t,
				func(t *testing.T, req request) ([]toolUse, string) {
					assert.Equal(t, []string{search}, toolNames(req))
					return []toolUse{{search, `{"query":"weather forecast"}`}}, ""
				},
				func(t *testing.T, req request) ([]toolUse, string) {
					require.Len(t, req.Results, 1)
					assert.Contains(t, req.Results[0].Text, "beta__weather")
					assert.Equal(t, search, toolNames(req)[0])
					assert.Contains(t, toolNames(req), "beta__weather", "the loaded tool joins the request")
					return []toolUse{{"beta__weather", `{"city":"Bergen","units":"imperial"}`}}, ""
				},
				answerFromResult(""))
			got, err := l.run(testCtx(t), t, client(m), openaimcp.Tools(box), l.streamed, "weather?")
			require.NoError(t, err)
			assert.Equal(t, "sunny in Bergen (imperial)", got)
		})
	}
	t.Run("responses: outputs alone keep the loads", func(t *testing.T) {
		ts := openaimcp.Tools(box)
		out := ts.FunctionCallOutputs(testCtx(t), &responses.Response{})
		assert.Empty(t, out)
		var resp responses.Response
		require.NoError(t, json.Unmarshal(mustResponseJSON(t, search), &resp))
		outputs := ts.FunctionCallOutputs(testCtx(t), &resp)
		require.Len(t, outputs, 1)
		// As with previous_response_id: the input has the output, not the call.
		tools := ts.ResponseTools(testCtx(t), responses.ResponseInputParam(outputs))
		var names []string
		for _, tl := range tools {
			names = append(names, tl.OfFunction.Name)
		}
		assert.Equal(t, []string{search, "beta__weather"}, names)
	})
}

func mustResponseJSON(t *testing.T, search string) []byte {
	b, err := json.Marshal(map[string]any{"id": "resp_x", "object": "response", "created_at": 1, "model": "scripted", "status": "completed",
		"output": []any{map[string]any{"type": "function_call", "id": "fc_x", "call_id": "call_x", "name": search,
			"arguments": `{"query":"beta__weather"}`, "status": "completed"}}})
	require.NoError(t, err)
	return b
}

func TestProviderSearchDefersEveryFunction(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := openaimcp.Tools(box, openaimcp.WithProviderSearch())
	for _, streamed := range []bool{false, true} {
		m := newModel(t,
			func(t *testing.T, req request) ([]toolUse, string) {
				require.NotEmpty(t, req.Tools)
				assert.Equal(t, map[string]any{"type": "tool_search"}, req.Tools[0])
				names := toolNames(req)[1:]
				assert.Len(t, names, len(box.ToolDefinitions()))
				assert.NotContains(t, names, toolbox.DefaultToolSearchName)
				for _, tl := range req.Tools[1:] {
					assert.Equal(t, "function", tl["type"])
					assert.Equal(t, true, tl["defer_loading"], tl["name"])
					assert.Equal(t, false, tl["strict"], tl["name"])
				}
				schema, err := json.Marshal(parameters(toolNamed(req, "beta__weather")))
				require.NoError(t, err)
				assert.JSONEq(t, agenttest.WeatherSchema, string(schema))
				// The API found the function itself; the model calls it.
				return []toolUse{{"beta__weather", `{"city":"Oslo"}`}}, ""
			},
			answerFromResult(""))
		got, err := runResponses(testCtx(t), t, client(m), ts, streamed, "weather?")
		require.NoError(t, err)
		assert.Equal(t, "sunny in Oslo (metric)", got)
	}
	t.Run("chat completions has no provider search", func(t *testing.T) {
		tools := ts.ChatCompletionTools(testCtx(t), nil)
		require.Len(t, tools, 1)
		assert.Equal(t, toolbox.DefaultToolSearchName, tools[0].OfFunction.Function.Name)
	})
}

func TestTheToolboxSpansNestUnderTheSpanInCtx(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
	m := newModel(t, call("alpha__add", `{"a":2,"b":3}`), answerFromResult(""))
	ctx, parent := tp.Tracer("app").Start(testCtx(t), "agent.turn")
	got, err := runChat(ctx, t, client(m), openaimcp.Tools(box), false, "add")
	parent.End()
	require.NoError(t, err)
	assert.Equal(t, "5", got)
	children := 0
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			children++
		}
	}
	assert.Positive(t, children, "no toolbox span under the loop's span")
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	m := newModel(t, call("weather", `{"city":"Oslo"}`), answerFromResult(""))
	got, err := runResponses(testCtx(t), t, client(m), openaimcp.Tools(box.Plugin("beta")), false, "weather?")
	require.NoError(t, err)
	assert.Equal(t, "sunny in Oslo (metric)", got)
	assert.Equal(t, []string{"big", "wait", "weather"}, toolNames(m.requests()[0]))
}

func TestAHeldToolReachesTheModelAsItsResult(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir})
	require.NoError(t, first.Close())
	box := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			m := newModel(t, call("beta__weather", `{"city":"Oslo"}`), answerFromResult("answer: "))
			got, err := l.run(testCtx(t), t, client(m), openaimcp.Tools(box), l.streamed, "weather?")
			require.NoError(t, err)
			assert.Contains(t, got, "changed since it was pinned")
			assert.NotContains(t, toolNames(m.requests()[0]), "beta__weather", "a held tool is not offered")
		})
	}
}

func TestProviderSearchKeepsAlwaysLoadedToolsLoaded(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true, AlwaysLoadAlpha: true})
	ts := openaimcp.Tools(box, openaimcp.WithProviderSearch())
	m := newModel(t, func(t *testing.T, req request) ([]toolUse, string) {
		for _, tl := range req.Tools[1:] {
			name := toolName(tl)
			_, deferred := tl["defer_loading"]
			assert.Equal(t, !strings.HasPrefix(name, "alpha__"), deferred, name)
		}
		return nil, "done"
	})
	got, err := runResponses(testCtx(t), t, client(m), ts, false, "weather?")
	require.NoError(t, err)
	assert.Equal(t, "done", got)
}
