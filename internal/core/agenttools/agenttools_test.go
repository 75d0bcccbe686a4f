package agenttools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func def(t *testing.T, defs []host.ToolDefinition, name string) host.ToolDefinition {
	t.Helper()
	for _, d := range defs {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no tool %q among %v", name, names(defs))
	return host.ToolDefinition{}
}

func names(defs []host.ToolDefinition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

func call(name, args string) host.ToolCall {
	return host.ToolCall{ID: "call_" + name, Name: name, Arguments: json.RawMessage(args)}
}

func TestToolsAreTheExposedNamesWithTheSchemasAsSent(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := agenttools.New(box, nil)
	all := ts.All()
	assert.Contains(t, names(all), "alpha__add")
	assert.Contains(t, names(all), "beta__wait")
	weather := def(t, all, "beta__weather")
	assert.Equal(t, "The weather forecast of a city", weather.Description)
	assert.JSONEq(t, agenttest.WeatherSchema, string(weather.InputSchema))
	// Without tool search, every list is every tool.
	assert.Equal(t, all, ts.Published(ctx(t), nil))
	assert.Equal(t, all, ts.Fixed(ctx(t)))
	_, ok := ts.SearchTool(ctx(t))
	assert.False(t, ok)
}

func TestCallsReachTheModelAsResultText(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	ts := agenttools.New(box, nil)
	for _, c := range []struct {
		name, call, args string
		isError          bool
		want             string
	}{
		{"result", "alpha__add", `{"a":2,"b":3}`, false, "5"},
		{"schema as sent", "beta__weather", `{"city":"Oslo"}`, false, "sunny in Oslo (metric)"},
		{"tool failure", "alpha__fail", `{}`, true, "boom"},
		{"denied approval", "alpha__echo", `{"x":1}`, true, agenttest.DeniedReason},
		{"arguments not an object", "alpha__add", `[1]`, true, "must be a JSON object"},
		{"unknown tool", "gamma__nope", `{}`, true, `"gamma__nope" is not a tool here`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.Call(ctx(t), call(c.call, c.args))
			assert.Equal(t, c.isError, res.IsError, res.Text)
			assert.Contains(t, res.Text, c.want)
		})
	}
	t.Run("over the cap", func(t *testing.T) {
		res := ts.Call(ctx(t), call("beta__big", `{}`))
		assert.False(t, res.IsError)
		assert.LessOrEqual(t, len(res.Text), 100)
		assert.Contains(t, res.Text, "cut]")
	})
}

func TestACancelledCallCancelsTheServersCall(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	ts := agenttools.New(box, nil)
	path := box.WaitPath(t)
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan agenttools.Result, 1)
	go func() { done <- ts.Call(c, call("beta__wait", `{"path":`+jsonString(path)+`}`)) }()
	box.WaitStarted(t, path)
	cancel()
	res := <-done
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "context canceled")
	box.WaitCancelled(t, path)
	// The toolbox still works.
	assert.Equal(t, "5", ts.Call(ctx(t), call("alpha__add", `{"a":2,"b":3}`)).Text)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolSearchPublishesWhatTheConversationLoaded(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	ts := agenttools.New(box, nil)
	first := ts.Published(ctx(t), nil)
	require.Equal(t, []string{toolbox.DefaultToolSearchName}, names(first))
	search, ok := ts.SearchTool(ctx(t))
	require.True(t, ok)
	assert.Equal(t, first[0], search)
	assert.Contains(t, search.Description, "beta__weather")

	var conv agenttools.Conversation
	sc := call(toolbox.DefaultToolSearchName, `{"query":"beta__weather"}`)
	res := ts.Call(ctx(t), sc)
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "beta__weather")
	assert.NotContains(t, res.Text, "Input schemas", "no schemas outside the fixed pair")
	conv.Record(sc, res)

	next := ts.Published(ctx(t), conv.Messages())
	assert.Equal(t, []string{toolbox.DefaultToolSearchName, "beta__weather"}, names(next))
	assert.JSONEq(t, agenttest.WeatherSchema, string(def(t, next, "beta__weather").InputSchema))
	// Another conversation has loaded nothing.
	assert.Equal(t, first, ts.Published(ctx(t), nil))

	wc := call("beta__weather", `{"city":"Bergen","units":"imperial"}`)
	res = ts.Call(ctx(t), wc)
	assert.Equal(t, agenttools.Result{Text: "sunny in Bergen (imperial)"}, res)
}

func TestTheFixedPairSearchesThenCalls(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true, Deny: []string{"echo"}})
	ts := agenttools.New(box, &agenttools.Options{CallToolName: "run_tool"})
	fixed := ts.Fixed(ctx(t))
	require.Equal(t, []string{toolbox.DefaultToolSearchName, "run_tool"}, names(fixed))
	assert.Contains(t, fixed[1].Description, toolbox.DefaultToolSearchName)
	assert.True(t, json.Valid(fixed[1].InputSchema))

	res := ts.CallFixed(ctx(t), call(toolbox.DefaultToolSearchName, `{"query":"weather forecast city"}`))
	require.False(t, res.IsError, res.Text)
	_, schemas, ok := strings.Cut(res.Text, "Input schemas of the loaded tools, for run_tool's \"arguments\":\n")
	require.True(t, ok, res.Text)
	line := ""
	for l := range strings.Lines(schemas) {
		if s, found := strings.CutPrefix(l, "- beta__weather: "); found {
			line = strings.TrimSpace(s)
		}
	}
	assert.JSONEq(t, agenttest.WeatherSchema, line)

	for _, c := range []struct {
		name, args string
		isError    bool
		want       string
	}{
		{"call", `{"name":"beta__weather","arguments":{"city":"Oslo"}}`, false, "sunny in Oslo (metric)"},
		{"arguments as a string", `{"name":"alpha__add","arguments":"{\"a\":1,\"b\":2}"}`, false, "3"},
		{"no arguments", `{"name":"beta__big"}`, false, "xxxx"},
		{"failure", `{"name":"alpha__fail","arguments":{}}`, true, "boom"},
		{"denied", `{"name":"alpha__echo","arguments":{}}`, true, agenttest.DeniedReason},
		{"unknown", `{"name":"nope","arguments":{}}`, true, `"nope" is not a tool here`},
		{"no name", `{"arguments":{}}`, true, `"name" is missing`},
		{"not an object", `[]`, true, "run_tool needs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := ts.CallFixed(ctx(t), call("run_tool", c.args))
			assert.Equal(t, c.isError, res.IsError, res.Text)
			assert.Contains(t, res.Text, c.want)
		})
	}
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	var p agenttools.Source = box.Plugin("beta")
	ts := agenttools.New(p, nil)
	// A plugin has no tool search: its own names, every tool.
	assert.Equal(t, []string{"big", "wait", "weather"}, names(ts.Fixed(ctx(t))))
	assert.Equal(t, ts.All(), ts.Published(ctx(t), nil))
	assert.Equal(t, "sunny in Oslo (metric)", ts.Call(ctx(t), call("weather", `{"city":"Oslo"}`)).Text)
	assert.Equal(t, "sunny in Oslo (metric)", ts.CallFixed(ctx(t), call("weather", `{"city":"Oslo"}`)).Text)
}

func TestTheToolboxSpansNestUnderTheSpanInCtx(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
	ts := agenttools.New(box, nil)
	c, parent := tp.Tracer("framework").Start(ctx(t), "framework.tool")
	res := ts.Call(c, call("alpha__add", `{"a":1,"b":1}`))
	parent.End()
	require.False(t, res.IsError, res.Text)
	var children int
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() {
			children++
			assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID())
		}
	}
	assert.Positive(t, children, "no span of the call is a child of the framework's")
}

func TestNewPanicsOnANilSource(t *testing.T) {
	assert.Panics(t, func() { agenttools.New(nil, nil) })
}

func TestCallEachRunsAMessagesCallsInOrder(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}})
	ts := agenttools.New(box, nil)
	got := ts.CallEach(ctx(t), []host.ToolCall{
		call("alpha__add", `{"a":1,"b":2}`),
		call("alpha__echo", `{}`),
		call("nope", `{}`),
		call("beta__weather", `{"city":"Oslo"}`),
	})
	require.Len(t, got, 4)
	assert.Equal(t, agenttools.Result{Text: "3"}, got[0])
	assert.True(t, got[1].IsError)
	assert.Contains(t, got[1].Text, agenttest.DeniedReason)
	assert.True(t, got[2].IsError)
	assert.Contains(t, got[2].Text, `"nope" is not a tool here`)
	assert.Equal(t, agenttools.Result{Text: "sunny in Oslo (metric)"}, got[3])
	assert.Nil(t, ts.CallEach(ctx(t), nil))
}

func TestAHeldToolIsAResultAndIsNotListed(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir})
	require.Contains(t, names(agenttools.New(first, nil).All()), "beta__weather")
	require.NoError(t, first.Close())

	box := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true})
	ts := agenttools.New(box, nil)
	assert.NotContains(t, names(ts.All()), "beta__weather", "a held tool is not exposed")
	res := ts.Call(ctx(t), call("beta__weather", `{"city":"Oslo"}`))
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "changed since it was pinned")
	assert.Equal(t, "5", ts.Call(ctx(t), call("alpha__add", `{"a":2,"b":3}`)).Text)
}

func TestAlwaysLoadedToolsAreNeverDeferred(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true, AlwaysLoadAlpha: true})
	ts := agenttools.New(box, nil)
	always := ts.AlwaysLoaded(ctx(t))
	assert.True(t, always["alpha__add"])
	assert.False(t, always["beta__weather"])
	fixed := names(ts.Fixed(ctx(t)))
	assert.Equal(t, []string{toolbox.DefaultToolSearchName, agenttools.DefaultCallToolName}, fixed[:2])
	assert.Contains(t, fixed, "alpha__add")
	assert.NotContains(t, fixed, "beta__weather")
	assert.Contains(t, names(ts.Published(ctx(t), nil)), "alpha__add")
	// Without tool search nothing is always loaded: everything is published.
	assert.Empty(t, agenttools.New(box.Plugin("alpha"), nil).AlwaysLoaded(ctx(t)))
}
