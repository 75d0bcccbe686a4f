package anthropicmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	anthropicmcp "github.com/cuca-go/mcpconnector/adapters/anthropic"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func testCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func client(m *model, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{option.WithBaseURL(m.srv.URL), option.WithAPIKey("test"), option.WithMaxRetries(0)}, opts...)...)
}

// runRunner runs the beta tool runner to its end, streamed or not, and
// returns the final message's text.
func runRunner(ctx context.Context, t *testing.T, c anthropic.Client, ts *anthropicmcp.Toolset, streamed bool, prompt string) (string, error) {
	t.Helper()
	params := anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model: "scripted", MaxTokens: 256, Tools: ts.BetaToolParams(ctx),
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(prompt))},
		},
		DisableThread: true,
	}
	if !streamed {
		msg, err := c.Beta.Messages.NewToolRunner(ts.BetaTools(ctx), params).RunToCompletion(ctx)
		if err != nil {
			return "", err
		}
		return betaText(msg), nil
	}
	runner := c.Beta.Messages.NewToolRunnerStreaming(ts.BetaTools(ctx), params)
	for events, err := range runner.AllStreaming(ctx) {
		if err != nil {
			return "", err
		}
		for _, err := range events {
			if err != nil {
				return "", err
			}
		}
	}
	if err := runner.Err(); err != nil {
		return "", err
	}
	return betaText(runner.LastMessage()), nil
}

func betaText(msg *anthropic.BetaMessage) string {
	if msg == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range msg.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// runLoop is a hand-written loop over the Messages API, streamed or not.
func runLoop(ctx context.Context, t *testing.T, c anthropic.Client, ts *anthropicmcp.Toolset, streamed bool, prompt string) (string, error) {
	t.Helper()
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}
	for range 5 {
		params := anthropic.MessageNewParams{Model: "scripted", MaxTokens: 256, Messages: msgs, Tools: ts.ToolParams(ctx, msgs)}
		var msg *anthropic.Message
		if streamed {
			var acc anthropic.Message
			stream := c.Messages.NewStreaming(ctx, params)
			for stream.Next() {
				require.NoError(t, acc.Accumulate(stream.Current()))
			}
			if err := stream.Err(); err != nil {
				return "", err
			}
			msg = &acc
		} else {
			var err error
			if msg, err = c.Messages.New(ctx, params); err != nil {
				return "", err
			}
		}
		msgs = append(msgs, msg.ToParam())
		results := ts.ToolResults(ctx, msg)
		if len(results) == 0 {
			var b strings.Builder
			for _, c := range msg.Content {
				if c.Type == "text" {
					b.WriteString(c.Text)
				}
			}
			return b.String(), nil
		}
		msgs = append(msgs, anthropic.NewUserMessage(results...))
	}
	return "", errors.New("the loop did not end in 5 turns")
}

type loop struct {
	name     string
	streamed bool
	run      func(context.Context, *testing.T, anthropic.Client, *anthropicmcp.Toolset, bool, string) (string, error)
}

var loops = []loop{
	{"runner", false, runRunner},
	{"runner streamed", true, runRunner},
	{"hand-written", false, runLoop},
	{"hand-written streamed", true, runLoop},
}

func TestTheModelAnswersFromAToolResult(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			for _, c := range []struct {
				name, tool, input, want string
			}{
				{"result", "alpha__add", `{"a":2,"b":3}`, "[ok] 5"},
				{"schema as sent", "beta__weather", `{"city":"Oslo"}`, "[ok] sunny in Oslo (metric)"},
				{"failing tool", "alpha__fail", `{}`, "[error] "},
				{"denied approval", "alpha__echo", `{"x":1}`, "[error] "},
				{"over the cap", "beta__big", `{}`, "[ok] xxx"},
			} {
				t.Run(c.name, func(t *testing.T) {
					m := newModel(t, call(c.tool, c.input), answerFromResult("answer: "))
					got, err := l.run(testCtx(t), t, client(m), anthropicmcp.Tools(box), l.streamed, "go")
					require.NoError(t, err, "a tool's failure must not stop the loop")
					assert.True(t, strings.HasPrefix(got, "answer: "+c.want), got)
					switch c.name {
					case "failing tool":
						assert.Contains(t, got, "boom")
					case "denied approval":
						assert.Contains(t, got, agenttest.DeniedReason)
					case "over the cap":
						assert.Contains(t, got, "cut]")
						assert.Less(t, len(got), agenttest.BigBytes)
					}
					reqs := m.requests()
					require.Len(t, reqs, 2)
					weather := toolNamed(reqs[0], "beta__weather")
					require.NotNil(t, weather, "tools: %v", toolNames(reqs[0]))
					schema, err := json.Marshal(weather["input_schema"])
					require.NoError(t, err)
					assert.JSONEq(t, agenttest.WeatherSchema, string(schema))
					assert.Equal(t, "The weather forecast of a city", weather["description"])
					assert.Contains(t, string(reqs[0].Raw), `"input_schema":`+compact(t, agenttest.WeatherSchema),
						"the schema goes out as the server's JSON")
				})
			}
		})
	}
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

func TestACancelledRunCancelsTheMCPCall(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			path := box.WaitPath(t)
			input, _ := json.Marshal(map[string]string{"path": path})
			m := newModel(t, call("beta__wait", string(input)), answerFromResult(""))
			ctx, cancel := context.WithCancel(testCtx(t))
			done := make(chan error, 1)
			go func() {
				_, err := l.run(ctx, t, client(m), anthropicmcp.Tools(box), l.streamed, "wait")
				done <- err
			}()
			box.WaitStarted(t, path)
			cancel()
			err := <-done
			assert.ErrorIs(t, err, context.Canceled)
			box.WaitCancelled(t, path)
			assert.Len(t, m.requests(), 1, "no request after the cancel")
		})
	}
}

func TestToolSearchFindsThenCalls(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	search := toolbox.DefaultToolSearchName
	t.Run("runner: the fixed pair", func(t *testing.T) {
		for _, streamed := range []bool{false, true} {
			m := newModel(t,
				func(t *testing.T, req request) ([]toolUse, string) {
					assert.Equal(t, []string{search, anthropicmcp.DefaultCallToolName}, toolNames(req))
					return []toolUse{{search, `{"query":"weather forecast"}`}}, ""
				},
				func(t *testing.T, req request) ([]toolUse, string) {
					require.Len(t, req.Results, 1)
					assert.Contains(t, req.Results[0].Text, "- beta__weather: {")
					assert.Equal(t, []string{search, anthropicmcp.DefaultCallToolName}, toolNames(req), "the runner's tools do not change")
					return []toolUse{{anthropicmcp.DefaultCallToolName, `{"name":"beta__weather","arguments":{"city":"Oslo"}}`}}, ""
				},
				answerFromResult(""))
			got, err := runRunner(testCtx(t), t, client(m), anthropicmcp.Tools(box), streamed, "weather?")
			require.NoError(t, err)
			assert.Equal(t, "[ok] sunny in Oslo (metric)", got)
		}
	})
	t.Run("hand-written loop: loaded tools join the request", func(t *testing.T) {
		m := newModel(t,
			func(t *testing.T, req request) ([]toolUse, string) {
				assert.Equal(t, []string{search}, toolNames(req))
				return []toolUse{{search, `{"query":"beta__weather"}`}}, ""
			},
			func(t *testing.T, req request) ([]toolUse, string) {
				assert.Equal(t, []string{search, "beta__weather"}, toolNames(req))
				return []toolUse{{"beta__weather", `{"city":"Bergen","units":"imperial"}`}}, ""
			},
			answerFromResult(""))
		got, err := runLoop(testCtx(t), t, client(m), anthropicmcp.Tools(box), false, "weather?")
		require.NoError(t, err)
		assert.Equal(t, "[ok] sunny in Bergen (imperial)", got)
	})
}

func TestProviderSearchDefersEveryTool(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := anthropicmcp.Tools(box, anthropicmcp.WithProviderSearch())
	check := func(t *testing.T, req request) {
		t.Helper()
		require.NotEmpty(t, req.Tools)
		assert.Equal(t, "tool_search_tool_bm25_20251119", req.Tools[0]["type"])
		assert.Equal(t, "tool_search_tool_bm25", req.Tools[0]["name"])
		names := toolNames(req)[1:]
		assert.Len(t, names, len(box.ToolDefinitions()))
		assert.Contains(t, names, "beta__weather")
		assert.NotContains(t, names, toolbox.DefaultToolSearchName, "the toolbox's own search tool is not sent")
		for _, tl := range req.Tools[1:] {
			assert.Equal(t, true, tl["defer_loading"], tl["name"])
		}
		schema, err := json.Marshal(toolNamed(req, "beta__weather")["input_schema"])
		require.NoError(t, err)
		assert.JSONEq(t, agenttest.WeatherSchema, string(schema))
	}
	// The API found the tool itself; the model calls it, and the adapter runs it.
	script := func() []turn {
		return []turn{
			func(t *testing.T, req request) ([]toolUse, string) {
				check(t, req)
				return []toolUse{{"beta__weather", `{"city":"Oslo"}`}}, ""
			},
			answerFromResult(""),
		}
	}
	t.Run("runner", func(t *testing.T) {
		m := newModel(t, script()...)
		got, err := runRunner(testCtx(t), t, client(m), ts, false, "weather?")
		require.NoError(t, err)
		assert.Equal(t, "[ok] sunny in Oslo (metric)", got)
	})
	t.Run("hand-written", func(t *testing.T) {
		m := newModel(t, script()...)
		got, err := runLoop(testCtx(t), t, client(m), ts, true, "weather?")
		require.NoError(t, err)
		assert.Equal(t, "[ok] sunny in Oslo (metric)", got)
	})
}

func TestTheToolboxSpansNestUnderTheRunnersToolSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
	m := newModel(t, call("alpha__add", `{"a":2,"b":3}`), answerFromResult(""))
	got, err := runRunner(testCtx(t), t, client(m, option.WithTracerProvider(tp)), anthropicmcp.Tools(box), false, "add")
	require.NoError(t, err)
	assert.Equal(t, "[ok] 5", got)
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byID[s.SpanContext().SpanID().String()] = s
	}
	var parents []string
	for _, s := range rec.Ended() {
		if s.InstrumentationScope().Name == "github.com/cuca-go/mcpconnector" || strings.Contains(s.InstrumentationScope().Name, "mcpconnector") {
			if p, ok := byID[s.Parent().SpanID().String()]; ok && !strings.Contains(p.InstrumentationScope().Name, "mcpconnector") {
				parents = append(parents, p.Name())
			}
		}
	}
	require.NotEmpty(t, parents, "no toolbox span has a parent of the runner")
	assert.True(t, strings.HasPrefix(parents[0], "anthropic."), "parent %q", parents[0])
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	m := newModel(t, call("weather", `{"city":"Oslo"}`), answerFromResult(""))
	got, err := runLoop(testCtx(t), t, client(m), anthropicmcp.Tools(box.Plugin("beta")), false, "weather?")
	require.NoError(t, err)
	assert.Equal(t, "[ok] sunny in Oslo (metric)", got)
	assert.Equal(t, []string{"big", "wait", "weather"}, toolNames(m.requests()[0]))
}

func TestAHeldToolReachesTheModelAsItsResult(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir, Search: true})
	require.NoError(t, first.Close())
	box := agenttest.Open(t, agenttest.Options{PinDir: dir, Search: true, ChangedWeather: true})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			// The runner reaches tools through the fixed pair's call tool;
			// a hand-written loop calls them by name.
			c := call("beta__weather", `{"city":"Oslo"}`)
			if strings.HasPrefix(l.name, "runner") {
				c = call(anthropicmcp.DefaultCallToolName, `{"name":"beta__weather","arguments":{"city":"Oslo"}}`)
			}
			m := newModel(t, c, answerFromResult("answer: "))
			got, err := l.run(testCtx(t), t, client(m), anthropicmcp.Tools(box), l.streamed, "weather?")
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(got, "answer: [error] "), got)
			assert.Contains(t, got, "changed since it was pinned")
			assert.NotContains(t, toolNames(m.requests()[0]), "beta__weather", "a held tool is not offered")
		})
	}
}

func TestProviderSearchKeepsAlwaysLoadedToolsLoaded(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true, AlwaysLoadAlpha: true})
	ts := anthropicmcp.Tools(box, anthropicmcp.WithProviderSearch())
	m := newModel(t, func(t *testing.T, req request) ([]toolUse, string) {
		for _, tl := range req.Tools[1:] {
			name, _ := tl["name"].(string)
			_, deferred := tl["defer_loading"]
			assert.Equal(t, !strings.HasPrefix(name, "alpha__"), deferred, name)
		}
		return nil, "done"
	})
	got, err := runLoop(testCtx(t), t, client(m), ts, false, "weather?")
	require.NoError(t, err)
	assert.Equal(t, "done", got)
}
