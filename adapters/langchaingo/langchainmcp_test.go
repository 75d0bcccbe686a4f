package langchainmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	langchainmcp "github.com/cuca-go/mcpconnector/adapters/langchaingo"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// step is one turn of the scripted model: its answer to the messages.
type step func(msgs []llms.MessageContent) *llms.ContentChoice

// scripted is an llms.Model that plays its steps, one per GenerateContent.
type scripted struct {
	mu    sync.Mutex
	steps []step
	turns [][]llms.MessageContent
	opts  []llms.CallOptions
}

var _ llms.Model = (*scripted)(nil)

func newModel(steps ...step) *scripted { return &scripted{steps: steps} }

func (m *scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.turns)
	if n >= len(m.steps) {
		return nil, fmt.Errorf("scripted model: no step %d", n+1)
	}
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	m.turns = append(m.turns, msgs)
	m.opts = append(m.opts, o)
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{m.steps[n](msgs)}}, nil
}

func (m *scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// callTool is a step that calls one tool the way OpenAIFunctionsAgent
// describes its functions: the input as the string "__arg1".
func callTool(id, name, input string) step {
	return func([]llms.MessageContent) *llms.ContentChoice {
		args, err := json.Marshal(map[string]string{"__arg1": input})
		if err != nil {
			panic(err)
		}
		return &llms.ContentChoice{ToolCalls: []llms.ToolCall{{ID: id, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(args)}}}}
	}
}

// answer answers from the last tool response.
func answer(msgs []llms.MessageContent) *llms.ContentChoice {
	return &llms.ContentChoice{Content: "the tool said: " + lastResponse(msgs)}
}

func lastResponse(msgs []llms.MessageContent) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				return r.Content
			}
		}
	}
	return "no tool response"
}

func lcTools(t *testing.T, src langchainmcp.Source, opts ...langchainmcp.Option) []tools.Tool {
	t.Helper()
	ts, err := langchainmcp.Tools(ctx(t), src, opts...)
	require.NoError(t, err)
	return ts
}

// run runs an OpenAIFunctionsAgent's executor over ts with m.
func run(ctx context.Context, ts []tools.Tool, m llms.Model) (string, error) {
	ex := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(m, ts), agents.WithMaxIterations(8))
	return chains.Run(ctx, ex, "go")
}

func TestTheAgentCallsAToolAndAnswersFromIt(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := lcTools(t, box)
	m := newModel(callTool("c1", "beta__weather", `{"city":"Oslo"}`), answer)
	out, err := run(ctx(t), ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", out)

	// Every exposed tool, named as exposed, its description ending with
	// its input's schema as the server sent it.
	assert.Len(t, ts, len(box.ToolDefinitions()))
	var weather tools.Tool
	for _, tl := range ts {
		if tl.Name() == "beta__weather" {
			weather = tl
		}
	}
	require.NotNil(t, weather)
	desc, schema, ok := strings.Cut(weather.Description(), " Input: a JSON object of the arguments, with this JSON Schema: ")
	require.True(t, ok, weather.Description())
	assert.Equal(t, "The weather forecast of a city", desc)
	assert.JSONEq(t, agenttest.WeatherSchema, schema)
	require.Len(t, m.opts, 2)
	var fns []string
	for _, f := range m.opts[0].Functions {
		fns = append(fns, f.Name)
	}
	assert.Contains(t, fns, "beta__weather", "the agent offered the tools to the model")
}

func TestTheInputsAnAgentSends(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	var add tools.Tool
	for _, tl := range lcTools(t, box) {
		if tl.Name() == "alpha__add" {
			add = tl
		}
	}
	require.NotNil(t, add)
	for _, c := range []struct{ name, input, want string }{
		{"object", `{"a":2,"b":3}`, "5"},
		{"padded", " \n{\"a\":2,\"b\":3}\n", "5"},
		{"a JSON string holding the object", `"{\"a\":2,\"b\":3}"`, "5"},
		{"in a code fence", "```json\n{\"a\":2,\"b\":3}\n```", "5"},
		{"not an object", `2+3`, "must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := add.Call(ctx(t), c.input)
			require.NoError(t, err)
			assert.Contains(t, out, c.want)
		})
	}
	t.Run("empty is no arguments", func(t *testing.T) {
		var echo tools.Tool
		for _, tl := range lcTools(t, box) {
			if tl.Name() == "alpha__echo" {
				echo = tl
			}
		}
		out, err := echo.Call(ctx(t), "")
		require.NoError(t, err)
		assert.Equal(t, "{}", out)
	})
}

func TestFailuresAreObservationsAndTheExecutorGoesOn(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	ts := lcTools(t, box)
	for _, c := range []struct {
		name, tool, input, want string
	}{
		{"failing tool", "alpha__fail", `{}`, plugin.ToolErrorPrefix + "boom"},
		{"denied approval", "alpha__echo", `{"x":1}`, agenttest.DeniedReason},
		{"over the cap", "beta__big", `{}`, "cut]"},
		{"input not an object", "alpha__add", `2+3`, "must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newModel(callTool("c1", c.tool, c.input), answer)
			out, err := run(ctx(t), ts, m)
			require.NoError(t, err, "a failed call does not end the run")
			require.Len(t, m.turns, 2)
			res := lastResponse(m.turns[1])
			assert.Contains(t, res, c.want)
			assert.Equal(t, "the tool said: "+res, out)
		})
	}
}

func TestACancelledRunCancelsTheCallOnTheServer(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := lcTools(t, box)
	path := box.WaitPath(t)
	args, err := json.Marshal(map[string]string{"path": path})
	require.NoError(t, err)
	m := newModel(callTool("c1", "beta__wait", string(args)), answer)
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := run(c, ts, m)
		done <- err
	}()
	box.WaitStarted(t, path)
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	box.WaitCancelled(t, path)
	assert.Len(t, m.turns, 1, "the run ended with the call")
}

func TestToolSearchThroughTheFixedPair(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := lcTools(t, box)
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	require.Equal(t, []string{toolbox.DefaultToolSearchName, "call_tool"}, names)

	m := newModel(
		callTool("c1", toolbox.DefaultToolSearchName, `{"query":"weather forecast city"}`),
		callTool("c2", "call_tool", `{"name":"beta__weather","arguments":{"city":"Bergen","units":"imperial"}}`),
		answer)
	out, err := run(ctx(t), ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Bergen (imperial)", out)
	require.Len(t, m.turns, 3)
	search := lastResponse(m.turns[1])
	_, schemas, ok := strings.Cut(search, "Input schemas of the loaded tools")
	require.True(t, ok, search)
	var line string
	for l := range strings.Lines(schemas) {
		if rest, found := strings.CutPrefix(l, "- beta__weather: "); found {
			line = rest
		}
	}
	assert.JSONEq(t, agenttest.WeatherSchema, line)
}

// The text ReAct agent (MRKL): the model writes "Action:" and "Action
// Input:" lines and reads "Observation:" lines.
func TestTheOneShotAgentWritesTheArgumentsAsActionInput(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := lcTools(t, box)
	m := newModel(
		func([]llms.MessageContent) *llms.ContentChoice {
			return &llms.ContentChoice{Content: "Thought: I need the weather.\nAction: beta__weather\nAction Input: {\"city\": \"Oslo\"}"}
		},
		func(msgs []llms.MessageContent) *llms.ContentChoice {
			prompt := msgs[len(msgs)-1].Parts[0].(llms.TextContent).Text
			i := strings.LastIndex(prompt, "Observation: ")
			obs, _, _ := strings.Cut(prompt[i+len("Observation: "):], "\n")
			return &llms.ContentChoice{Content: "Thought: done.\nFinal Answer: the tool said: " + obs}
		})
	ex := agents.NewExecutor(agents.NewOneShotAgent(m, ts), agents.WithMaxIterations(4))
	out, err := chains.Run(ctx(t), ex, "What is the weather in Oslo?")
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", out)
	// The prompt the model read described the tool with its input's schema.
	prompt := m.turns[0][0].Parts[0].(llms.TextContent).Text
	assert.Contains(t, prompt, "beta__weather: The weather forecast of a city Input: a JSON object of the arguments, with this JSON Schema: ")
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := lcTools(t, box.Plugin("beta"))
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	assert.Equal(t, []string{"big", "wait", "weather"}, names, "a plugin has no tool search: its own names")
	out, err := run(ctx(t), ts, newModel(callTool("c1", "weather", `{"city":"Oslo"}`), answer))
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", out)
}

func TestAHeldToolReachesTheModelAsItsResult(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir})
	require.NoError(t, first.Close())
	box := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true, Search: true})
	ts := lcTools(t, box)
	m := newModel(callTool("c1", "call_tool", `{"name":"beta__weather","arguments":{"city":"Oslo"}}`), answer)
	out, err := run(ctx(t), ts, m)
	require.NoError(t, err)
	assert.Contains(t, out, "changed since it was pinned")

	// Without tool search the held tool is not offered; a model that calls
	// it anyway reads langchaingo's own answer, and the run goes on.
	plain := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true})
	ts = lcTools(t, plain)
	for _, tl := range ts {
		assert.NotEqual(t, "beta__weather", tl.Name(), "a held tool is not offered")
	}
	out, err = run(ctx(t), ts, newModel(callTool("c1", "beta__weather", `{"city":"Oslo"}`), answer))
	require.NoError(t, err)
	assert.Contains(t, out, "not a valid tool")
}

func TestThePluginsSpansNestUnderTheRunsSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
	ts := lcTools(t, box)
	c, parent := tp.Tracer("app").Start(ctx(t), "agent run")
	out, err := run(c, ts, newModel(callTool("c1", "alpha__add", `{"a":20,"b":22}`), answer))
	parent.End()
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 42", out)
	var call sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		if sp.Name() == "tools/call add" {
			call = sp
		}
	}
	require.NotNil(t, call, "the plugin traced the call")
	assert.Equal(t, parent.SpanContext().SpanID(), call.Parent().SpanID())
}

// A call whose ctx deadline passes ends with ctx's error, never with the
// failure's text as the tool's output, whichever timer fires first: many
// times over, with deadlines of milliseconds, so that a busy machine meets
// every order of the two.
func TestADeadlineEndsTheCallWithCtxError(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	var wait tools.Tool
	for _, tl := range lcTools(t, box) {
		if tl.Name() == "beta__wait" {
			wait = tl
		}
	}
	require.NotNil(t, wait)
	args, err := json.Marshal(map[string]string{"path": box.WaitPath(t)})
	require.NoError(t, err)
	for i := range 100 {
		c, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
		out, err := wait.Call(c, string(args))
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "call %d answered %q", i, out)
		require.Empty(t, out, "call %d", i)
	}
}
