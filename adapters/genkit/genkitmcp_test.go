package genkitmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	genkitmcp "github.com/cuca-go/mcpconnector/adapters/genkit"
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

// step is one turn of the scripted model: its answer to the request.
type step func(req *ai.ModelRequest) *ai.Message

// script is a scripted Genkit model's turns and what it was sent.
type script struct {
	mu    sync.Mutex
	steps []step
	reqs  []*ai.ModelRequest
}

// newGenkit returns a Genkit with the scripted model "test/scripted".
func newGenkit(t *testing.T, steps ...step) (*genkit.Genkit, *script) {
	t.Helper()
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	g := genkit.Init(c)
	s := &script{steps: steps}
	genkit.DefineModel(g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			n := len(s.reqs)
			if n >= len(s.steps) {
				return nil, fmt.Errorf("scripted model: no step %d", n+1)
			}
			s.reqs = append(s.reqs, req)
			return &ai.ModelResponse{Request: req, Message: s.steps[n](req), FinishReason: ai.FinishReasonStop}, nil
		})
	return g, s
}

func callTool(ref, name, args string) step {
	return func(*ai.ModelRequest) *ai.Message {
		var in any
		if err := json.Unmarshal([]byte(args), &in); err != nil {
			panic(err)
		}
		return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: ref, Input: in})}}
	}
}

// answer answers from the last tool response.
func answer(req *ai.ModelRequest) *ai.Message {
	return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("the tool said: " + lastOutput(req))}}
}

func lastOutput(req *ai.ModelRequest) string {
	last := req.Messages[len(req.Messages)-1]
	for _, p := range last.Content {
		if p.IsToolResponse() {
			if s, ok := p.ToolResponse.Output.(string); ok {
				return s
			}
			return fmt.Sprintf("not text: %#v", p.ToolResponse.Output)
		}
	}
	return "no tool response"
}

func toolNames(req *ai.ModelRequest) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	return out
}

func generate(ctx context.Context, t *testing.T, g *genkit.Genkit, src genkitmcp.Source, opts ...genkitmcp.Option) (*ai.ModelResponse, error) {
	t.Helper()
	tools, loads, err := genkitmcp.Tools(ctx, g, src, opts...)
	require.NoError(t, err)
	return genkit.Generate(ctx, g, ai.WithModelName("test/scripted"), ai.WithPrompt("go"),
		ai.WithTools(tools...), ai.WithMiddleware(loads), ai.WithMaxTurns(8))
}

func TestGenerateCallsAToolAndAnswersFromIt(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	g, s := newGenkit(t, callTool("r1", "beta__weather", `{"city":"Oslo"}`), answer)
	resp, err := generate(ctx(t), t, g, box)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", resp.Text())

	require.Len(t, s.reqs, 2)
	names := toolNames(s.reqs[0])
	assert.Len(t, names, len(box.ToolDefinitions()))
	assert.Contains(t, names, "alpha__add")
	for _, d := range s.reqs[0].Tools {
		if d.Name == "beta__weather" {
			assert.Equal(t, "The weather forecast of a city", d.Description)
			b, err := json.Marshal(d.InputSchema)
			require.NoError(t, err)
			assert.JSONEq(t, agenttest.WeatherSchema, string(b), "the schema as the server sent it")
		}
	}
	// The tool is defined on g.
	assert.NotNil(t, genkit.LookupTool(g, "beta__weather"))
}

func TestFailuresAreOutputTextAndGenerateGoesOn(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Deny: []string{"echo"}, MaxResultBytes: 100})
	for _, c := range []struct {
		name, tool, args, want string
	}{
		{"failing tool", "alpha__fail", `{}`, plugin.ToolErrorPrefix + "boom"},
		{"denied approval", "alpha__echo", `{"x":1}`, agenttest.DeniedReason},
		{"over the cap", "beta__big", `{}`, "cut]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, s := newGenkit(t, callTool("r1", c.tool, c.args), answer)
			resp, err := generate(ctx(t), t, g, box)
			require.NoError(t, err, "a failed call does not end Generate")
			require.Len(t, s.reqs, 2)
			out := lastOutput(s.reqs[1])
			assert.Contains(t, out, c.want)
			assert.Equal(t, "the tool said: "+out, resp.Text())
		})
	}
}

// Genkit's own tools check the model's arguments against the schema and
// end Generate on a mismatch; these reach the server as the model sent
// them, nulls too, and the server's answer is what the model reads.
func TestArgumentsReachTheServerAsTheModelSentThem(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	for _, c := range []struct{ name, tool, args, want string }{
		{"nulls kept", "alpha__echo", `{"x":null,"y":[1,null]}`, `{"x":null,"y":[1,null]}`},
		{"not the schema's types", "alpha__add", `{"a":"two","b":3}`, plugin.ToolErrorPrefix},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, s := newGenkit(t, callTool("r1", c.tool, c.args), answer)
			resp, err := generate(ctx(t), t, g, box)
			require.NoError(t, err)
			require.Len(t, s.reqs, 2)
			out := lastOutput(s.reqs[1])
			assert.Contains(t, out, c.want)
			assert.Equal(t, "the tool said: "+out, resp.Text())
		})
	}
}

func TestACancelledGenerateCancelsTheCallOnTheServer(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	path := box.WaitPath(t)
	args, err := json.Marshal(map[string]string{"path": path})
	require.NoError(t, err)
	g, s := newGenkit(t, callTool("r1", "beta__wait", string(args)), answer)
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := generate(c, t, g, box)
		done <- err
	}()
	box.WaitStarted(t, path)
	cancel()
	err = <-done
	require.Error(t, err)
	// Genkit wraps a tool's error as text: the cause shows in the message.
	assert.Contains(t, err.Error(), context.Canceled.Error())
	box.WaitCancelled(t, path)
	assert.Len(t, s.reqs, 1, "Generate ended with the call")
}

func TestToolSearchLoadsTheFoundToolsForTheNextTurn(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	g, s := newGenkit(t,
		callTool("r1", toolbox.DefaultToolSearchName, `{"query":"weather forecast city"}`),
		callTool("r2", "beta__weather", `{"city":"Bergen","units":"imperial"}`),
		answer)
	resp, err := generate(ctx(t), t, g, box)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Bergen (imperial)", resp.Text())

	require.Len(t, s.reqs, 3)
	assert.Equal(t, []string{toolbox.DefaultToolSearchName}, toolNames(s.reqs[0]), "only the search tool at first")
	assert.Equal(t, []string{toolbox.DefaultToolSearchName, "beta__weather"}, toolNames(s.reqs[1]), "the found tool joins the next turn")
	b, err := json.Marshal(s.reqs[1].Tools[1].InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, agenttest.WeatherSchema, string(b))
	assert.Contains(t, lastOutput(s.reqs[1]), "beta__weather: The weather forecast of a city")

	// Another conversation starts with the search tool alone again.
	g2, s2 := newGenkit(t, func(*ai.ModelRequest) *ai.Message {
		return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("nothing to do")}}
	})
	_, err = generate(ctx(t), t, g2, box)
	require.NoError(t, err)
	assert.Equal(t, []string{toolbox.DefaultToolSearchName}, toolNames(s2.reqs[0]))
}

func TestMiddlewareKeepsTheRequestsOtherTools(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	g, s := newGenkit(t, func(*ai.ModelRequest) *ai.Message {
		return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("ok")}}
	})
	own := genkit.DefineTool(g, "local_clock", "The time", func(*ai.ToolContext, any) (string, error) { return "noon", nil })
	tools, loads, err := genkitmcp.Tools(ctx(t), g, box)
	require.NoError(t, err)
	_, err = genkit.Generate(ctx(t), g, ai.WithModelName("test/scripted"), ai.WithPrompt("go"),
		ai.WithTools(append(tools, own)...), ai.WithMiddleware(loads))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"local_clock", toolbox.DefaultToolSearchName}, toolNames(s.reqs[0]))
}

func TestToolsTwiceOnOneGenkitIsAnError(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	g, _ := newGenkit(t)
	_, _, err := genkitmcp.Tools(ctx(t), g, box)
	require.NoError(t, err)
	_, _, err = genkitmcp.Tools(ctx(t), g, box)
	require.ErrorIs(t, err, genkitmcp.ErrDefined)
}

func TestThePluginsSpansNestUnderGenkitsSpans(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []genkitmcp.Option
		parent func(sdktrace.ReadOnlySpan) bool // the span the call's span nests under
	}{
		// By default the call runs in Generate's ctx: its span nests under
		// the span Genkit opened for the turn that called the tool.
		{"by default, under Genkit's generate span", nil, func(sp sdktrace.ReadOnlySpan) bool { return sp.Name() == "generate" }},
		{"WithToolSpans, under Genkit's span of the tool", []genkitmcp.Option{genkitmcp.WithToolSpans()}, func(sp sdktrace.ReadOnlySpan) bool {
			for _, a := range sp.Attributes() {
				if a.Key == "genkit:type" && a.Value.AsString() == "action" && sp.Name() == "alpha__add" {
					return true
				}
			}
			return false
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			// Genkit traces with the global provider when it is the SDK's.
			prev := otel.GetTracerProvider()
			otel.SetTracerProvider(tp)
			t.Cleanup(func() {
				otel.SetTracerProvider(prev)
				_ = tp.Shutdown(context.Background())
			})
			box := agenttest.Open(t, agenttest.Options{Toolbox: []toolbox.Option{toolbox.WithPluginOptions(plugin.WithTracerProvider(tp))}})
			g, _ := newGenkit(t, callTool("r1", "alpha__add", `{"a":20,"b":22}`), answer)
			resp, err := generate(ctx(t), t, g, box, tc.opts...)
			require.NoError(t, err)
			assert.Equal(t, "the tool said: 42", resp.Text())

			byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
			var call sdktrace.ReadOnlySpan
			toolSpans := 0
			for _, sp := range rec.Ended() {
				byID[sp.SpanContext().SpanID()] = sp
				switch sp.Name() {
				case "tools/call add":
					call = sp
				case "alpha__add":
					toolSpans++
				}
			}
			require.NotNil(t, call, "the plugin traced the call")
			parent, ok := byID[call.Parent().SpanID()]
			require.True(t, ok, "the call's span has a parent among Genkit's spans")
			assert.True(t, tc.parent(parent), "the call's span nests under %q", parent.Name())
			assert.Equal(t, parent.SpanContext().TraceID(), call.SpanContext().TraceID())
			if tc.opts == nil {
				assert.Zero(t, toolSpans, "no Genkit span of the tool by default")
			}
		})
	}
}

func TestAToolThatComesLaterJoinsTheRequest(t *testing.T) {
	c := ctx(t)
	p, err := plugin.Connect(c, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithToolRefresh())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	g, s := newGenkit(t, callTool("r1", "add_tool", `{"name":"later"}`), answer, callTool("r2", "later", `{}`), answer)
	tools, loads, err := genkitmcp.Tools(c, g, p)
	require.NoError(t, err)
	generate := func() (*ai.ModelResponse, error) {
		return genkit.Generate(c, g, ai.WithModelName("test/scripted"), ai.WithPrompt("go"),
			ai.WithTools(tools...), ai.WithMiddleware(loads))
	}
	resp, err := generate()
	require.NoError(t, err)
	assert.Equal(t, "the tool said: added later", resp.Text())
	assert.NotContains(t, toolNames(s.reqs[0]), "later")

	require.Eventually(t, func() bool { return p.HasTool("later") }, 10*time.Second, 5*time.Millisecond,
		"the plugin's list follows the server's")
	resp, err = generate()
	require.NoError(t, err)
	assert.Equal(t, "the tool said: I am later", resp.Text(), "Genkit found the tool defined after Tools")
	assert.Contains(t, toolNames(s.reqs[2]), "later")
}

func TestAPluginIsASource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Search: true})
	g, s := newGenkit(t, callTool("r1", "weather", `{"city":"Oslo"}`), answer)
	resp, err := generate(ctx(t), t, g, box.Plugin("beta"))
	require.NoError(t, err)
	assert.Equal(t, "the tool said: sunny in Oslo (metric)", resp.Text())
	assert.ElementsMatch(t, []string{"big", "wait", "weather"}, toolNames(s.reqs[0]), "a plugin has no tool search: its own names")
}

// A held tool is neither offered nor defined: Genkit, which ends Generate
// on a name it has no tool for, never sees it.
func TestAHeldToolIsNotOffered(t *testing.T) {
	dir := t.TempDir()
	first := agenttest.Open(t, agenttest.Options{PinDir: dir})
	require.NoError(t, first.Close())
	box := agenttest.Open(t, agenttest.Options{PinDir: dir, ChangedWeather: true})
	g, s := newGenkit(t, callTool("r1", "alpha__add", `{"a":1,"b":2}`), answer)
	resp, err := generate(ctx(t), t, g, box)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 3", resp.Text())
	assert.NotContains(t, toolNames(s.reqs[0]), "beta__weather")
	assert.Contains(t, toolNames(s.reqs[0]), "beta__wait", "the server's other tools are")
	assert.Nil(t, genkit.LookupTool(g, "beta__weather"))
}

// A call whose ctx deadline passes ends with ctx's error, never with the
// failure's text as the tool's output, whichever timer fires first: many
// times over, with deadlines of milliseconds, so that a busy machine meets
// every order of the two.
func TestADeadlineEndsTheCallWithCtxError(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{})
	g := genkit.Init(t.Context())
	_, _, err := genkitmcp.Tools(ctx(t), g, box)
	require.NoError(t, err)
	wait := genkit.LookupTool(g, "beta__wait")
	require.NotNil(t, wait)
	in := map[string]any{"path": box.WaitPath(t)}
	for i := range 100 {
		c, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
		out, err := wait.RunRaw(c, in)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "call %d answered %v", i, out)
		require.Nil(t, out, "call %d", i)
	}
}
