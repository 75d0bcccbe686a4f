package einomcp_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	einomcp "github.com/cuca-go/mcpconnector/adapters/eino"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// tools returns src's eino tools.
func tools(t *testing.T, src einomcp.Source, opts ...einomcp.Option) []tool.BaseTool {
	t.Helper()
	ts, err := einomcp.Tools(ctx(t), src, opts...)
	require.NoError(t, err)
	return ts
}

// run runs eino's ReAct agent over tools with the scripted model and
// returns its answer.
func run(ctx context.Context, t *testing.T, ts []tool.BaseTool, m *scripted, opts ...agent.AgentOption) (*schema.Message, error) {
	t.Helper()
	a, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: ts},
		MaxStep:          12,
	})
	require.NoError(t, err)
	return a.Generate(ctx, []*schema.Message{schema.UserMessage("go")}, opts...)
}

func infoOf(t *testing.T, ts []tool.BaseTool, name string) *schema.ToolInfo {
	t.Helper()
	for _, tl := range ts {
		info, err := tl.Info(context.Background())
		require.NoError(t, err)
		if info.Name == name {
			return info
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func schemaJSON(t *testing.T, info *schema.ToolInfo) string {
	t.Helper()
	js, err := info.ToJSONSchema()
	require.NoError(t, err)
	b, err := json.Marshal(js)
	require.NoError(t, err)
	return string(b)
}

func TestTheReActAgentCallsAToolAndAnswersFromIt(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := tools(t, box)
	m, s := newModel(callTool("c1", "beta__weather", `{"city":"Oslo"}`), answer)
	out, err := run(ctx(t), t, ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", out.Content)

	// The model was given every exposed tool, each with its schema as the
	// server sent it.
	require.Len(t, s.tools, 2)
	var names []string
	for _, info := range s.tools[0] {
		names = append(names, info.Name)
	}
	assert.Equal(t, len(box.ToolDefinitions()), len(names))
	assert.Contains(t, names, "alpha__add")
	assert.Contains(t, names, "beta__weather")
	weather := infoOf(t, ts, "beta__weather")
	assert.Equal(t, "The weather forecast of a city", weather.Desc)
	assert.JSONEq(t, agenttest.WeatherSchema, schemaJSON(t, weather))
}

func TestFailuresAreResultTextAndTheLoopGoesOn(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	ts := tools(t, box)
	for _, c := range []struct {
		name, tool, args, want string
	}{
		{"failing tool", "alpha__fail", `{}`, plugin.ToolErrorPrefix + "boom"},
		{"denied approval", "alpha__echo", `{"x":1}`, agenttest.DeniedReason},
		{"over the cap", "beta__big", `{}`, "cut]"},
		{"arguments not an object", "alpha__add", `[1,2]`, "must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, s := newModel(callTool("c1", c.tool, c.args), answer)
			out, err := run(ctx(t), t, ts, m)
			require.NoError(t, err, "a failed call does not end the run")
			results := s.toolMessages()
			require.Len(t, results, 1)
			assert.Contains(t, results[0].Content, c.want)
			assert.Equal(t, "the tool said: "+results[0].Content, out.Content, "the model answered from the result")
		})
	}
}

func TestACancelledRunCancelsTheCallOnTheServer(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := tools(t, box)
	path := box.WaitPath(t)
	args, err := json.Marshal(map[string]string{"path": path})
	require.NoError(t, err)
	m, s := newModel(callTool("c1", "beta__wait", string(args)), answer)
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := run(c, t, ts, m)
		done <- err
	}()
	box.WaitStarted(t, path)
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	box.WaitCancelled(t, path)
	assert.Len(t, s.turns, 1, "the run ended with the call")
}

func TestToolSearchThroughTheFixedPair(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := tools(t, box)
	m, s := newModel(
		callTool("c1", toolbox.DefaultToolSearchName, `{"query":"weather forecast city"}`),
		callTool("c2", "call_tool", `{"name":"beta__weather","arguments":{"city":"Bergen","units":"imperial"}}`),
		answer)
	out, err := run(ctx(t), t, ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Bergen (imperial)", out.Content)

	// eino binds the tools once: the search tool and the call tool, on
	// every turn.
	require.Len(t, s.tools, 3)
	for _, bound := range s.tools {
		var names []string
		for _, info := range bound {
			names = append(names, info.Name)
		}
		assert.Equal(t, []string{toolbox.DefaultToolSearchName, "call_tool"}, names)
	}
	// The search's result told the model the loaded tool's schema.
	search := s.turns[1][len(s.turns[1])-1]
	require.Equal(t, schema.Tool, search.Role)
	_, schemas, ok := strings.Cut(search.Content, "Input schemas of the loaded tools")
	require.True(t, ok, search.Content)
	var line string
	for l := range strings.Lines(schemas) {
		if rest, found := strings.CutPrefix(l, "- beta__weather: "); found {
			line = rest
		}
	}
	assert.JSONEq(t, agenttest.WeatherSchema, line)
}

func TestThePluginsSpansNestUnderEinosToolSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
	ts := tools(t, box)

	// A tracing callback handler, as eino's tracing integrations are: a
	// span from each tool's OnStart to its OnEnd, put in the ctx the tool
	// runs with.
	tracer := tp.Tracer("eino")
	handler := callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			if info.Component != components.ComponentOfTool {
				return ctx
			}
			ctx, _ = tracer.Start(ctx, "eino.tool "+info.Name)
			return ctx
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
			if info.Component == components.ComponentOfTool {
				trace.SpanFromContext(ctx).End()
			}
			return ctx
		}).Build()

	m, _ := newModel(callTool("c1", "alpha__add", `{"a":20,"b":22}`), answer)
	out, err := run(ctx(t), t, ts, m, agent.WithComposeOptions(compose.WithCallbacks(handler)))
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 42", out.Content)

	var einoSpan, call sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		switch {
		case strings.HasPrefix(sp.Name(), "eino.tool "):
			einoSpan = sp
		case sp.Name() == "tools/call add":
			call = sp
		}
	}
	require.NotNil(t, einoSpan, "eino ran the tool under the handler's span")
	require.NotNil(t, call, "the plugin recorded the call")
	assert.Equal(t, einoSpan.SpanContext().SpanID(), call.Parent().SpanID())
	assert.Equal(t, einoSpan.SpanContext().TraceID(), call.SpanContext().TraceID())
}

func TestProgressStreamsAheadOfTheResult(t *testing.T) {
	p := einomcp.NewProgress()
	c := ctx(t)
	mcp, err := plugin.Connect(c, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithProgress(p.Handle))
	require.NoError(t, err)
	t.Cleanup(func() { _ = mcp.Close() })
	ts := tools(t, mcp, einomcp.WithProgress(p))

	// Through a streamed ReAct run: the tool's stream is joined into the
	// message the model reads.
	m, s := newModel(callTool("c1", "progress", `{"steps":3,"ms":20}`), answer)
	a, err := react.NewAgent(c, &react.AgentConfig{ToolCallingModel: m, ToolsConfig: compose.ToolsNodeConfig{Tools: ts}})
	require.NoError(t, err)
	sr, err := a.Stream(c, []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err)
	var reply strings.Builder
	for {
		msg, err := sr.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		reply.WriteString(msg.Content)
	}
	want := "[progress 1/3: step 1]\n[progress 2/3: step 2]\n[progress 3/3: step 3]\ndone"
	results := s.toolMessages()
	require.Len(t, results, 1)
	assert.Equal(t, want, results[0].Content)
	assert.Equal(t, "the tool said: "+want, reply.String())

	// Invoked, the same tool gives the result alone.
	m, s = newModel(callTool("c2", "progress", `{"steps":2,"ms":20}`), answer)
	out, err := run(c, t, ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: done", out.Content)
	assert.Equal(t, "done", s.toolMessages()[0].Content)
}

func TestAToolStreamDirectly(t *testing.T) {
	p := einomcp.NewProgress()
	c := ctx(t)
	mcp, err := plugin.Connect(c, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithProgress(p.Handle))
	require.NoError(t, err)
	t.Cleanup(func() { _ = mcp.Close() })
	var progress tool.StreamableTool
	for _, tl := range tools(t, mcp, einomcp.WithProgress(p)) {
		if info, _ := tl.Info(c); info.Name == "progress" {
			progress = tl.(tool.StreamableTool)
		}
	}
	require.NotNil(t, progress)
	// Two calls at once, each with its own progress.
	type got struct{ chunks []string }
	results := make(chan got, 2)
	for range 2 {
		go func() {
			sr, err := progress.StreamableRun(c, `{"steps":2,"ms":20}`)
			if err != nil {
				results <- got{[]string{err.Error()}}
				return
			}
			defer sr.Close()
			var g got
			for {
				chunk, err := sr.Recv()
				if err != nil {
					break
				}
				g.chunks = append(g.chunks, chunk)
			}
			results <- g
		}()
	}
	for range 2 {
		g := <-results
		assert.Equal(t, []string{"[progress 1/2: step 1]\n", "[progress 2/2: step 2]\n", "done"}, g.chunks)
	}
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := tools(t, box.Plugin("beta"))
	var names []string
	for _, tl := range ts {
		info, err := tl.Info(context.Background())
		require.NoError(t, err)
		names = append(names, info.Name)
	}
	assert.Equal(t, []string{"big", "wait", "weather"}, names, "a plugin has no tool search: its own names")
	m, _ := newModel(callTool("c1", "weather", `{"city":"Oslo"}`), answer)
	out, err := run(ctx(t), t, ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", out.Content)
}

func TestAHeldToolReachesTheModelAsItsResult(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir})
	require.NoError(t, first.Close())
	box := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true})
	ts := tools(t, box)
	m, s := newModel(callTool("c1", "beta__weather", `{"city":"Oslo"}`), answer)
	a, err := react.NewAgent(ctx(t), &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: ts, UnknownToolsHandler: einomcp.UnknownTools(box)},
	})
	require.NoError(t, err)
	out, err := a.Generate(ctx(t), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err, "the held tool's call does not end the run")
	assert.Contains(t, out.Content, "changed since it was pinned")
	for _, info := range s.tools[0] {
		assert.NotEqual(t, "beta__weather", info.Name, "a held tool is not offered")
	}
}

// With tool search, a model may call a loaded tool by its own name rather
// than through the call tool; UnknownTools runs it.
func TestUnknownToolsRunsALoadedToolCalledByName(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := tools(t, box)
	m, s := newModel(
		callTool("c1", toolbox.DefaultToolSearchName, `{"query":"beta__weather"}`),
		callTool("c2", "beta__weather", `{"city":"Oslo"}`),
		callTool("c3", "made_up", `{}`),
		answer)
	a, err := react.NewAgent(ctx(t), &react.AgentConfig{
		ToolCallingModel: m,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: ts, UnknownToolsHandler: einomcp.UnknownTools(box)},
	})
	require.NoError(t, err)
	out, err := a.Generate(ctx(t), []*schema.Message{schema.UserMessage("go")})
	require.NoError(t, err)
	assert.Contains(t, out.Content, `"made_up" is not a tool here`)
	weather := s.turns[2][len(s.turns[2])-1]
	assert.Equal(t, "sunny in Oslo (metric)", weather.Content)
}

// A call whose ctx deadline passes ends with ctx's error, never with the
// failure's text as the tool's output, whichever timer fires first: many
// times over, with deadlines of milliseconds, so that a busy machine meets
// every order of the two.
func TestADeadlineEndsTheCallWithCtxError(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	var wait tool.InvokableTool
	for _, tl := range tools(t, box) {
		if info, err := tl.Info(t.Context()); err == nil && info.Name == "beta__wait" {
			wait = tl.(tool.InvokableTool)
		}
	}
	require.NotNil(t, wait)
	args, err := json.Marshal(map[string]string{"path": box.WaitPath(t)})
	require.NoError(t, err)
	for i := range 100 {
		c, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
		out, err := wait.InvokableRun(c, string(args))
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "call %d answered %q", i, out)
		require.Empty(t, out, "call %d", i)
	}
}
