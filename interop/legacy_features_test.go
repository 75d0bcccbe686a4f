package interop

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577), and a part of the older revisions tested here

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// What the plugin offers, on a session of an older revision: the reference
// server-everything (pinned in package.json; the TypeScript SDK v1, which
// speaks up to 2025-11-25), in a child process over stdio, started with
// plugin.WithLegacyFallback. Each subtest starts its own child, through a
// tee of what the client writes (legacyRun.Received counts it).

// everything starts server-everything over stdio for t and connects a
// plugin to it with the fallback and opts.
func everything(t *testing.T, opts ...plugin.Option) (*legacyRun, *plugin.McpPlugin) {
	t.Helper()
	r := startLegacy(t, legacyRow(t, legacyStdio))
	require.Equal(t, "@modelcontextprotocol/server-everything", r.Server.Name)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, r.WireTransport, append([]plugin.Option{plugin.WithLegacyFallback()}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	require.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion())
	return r, p
}

// everythingInput answers the server's sampling, elicitation and roots
// requests; the server registers the tools that ask for them only for a
// client that declares them.
func everythingInput() plugin.InputHandlers {
	return plugin.InputHandlers{
		Sample: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			return &mcp.CreateMessageWithToolsResult{Model: "interop-model", Role: "assistant",
				Content: []mcp.Content{&mcp.TextContent{Text: "sampled " + strconv.Itoa(int(req.Params.MaxTokens))}}}, nil
		},
		Elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		Roots: []*mcp.Root{{URI: "file:///interop/root", Name: "interop-root"}},
	}
}

func hasTool(p *plugin.McpPlugin, name string) bool {
	return slices.ContainsFunc(p.Tools(), func(t *mcp.Tool) bool { return t.Name == name })
}

func legacyText(t *testing.T, p *plugin.McpPlugin, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := p.CallTool(ctx, tool, args).Await(ctx)
	require.NoError(t, err, tool)
	require.False(t, res.IsError, plugin.RenderResult(res))
	return plugin.RenderResult(res)
}

// Tools, CallTool and the stream hook: the list, a text, an image and a
// structured result rendered as on a 2026-07-28 session, and the server's
// refusal of bad arguments a tool error through both.
func TestLegacyEverythingTools(t *testing.T) {
	_, p := everything(t)
	for _, name := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "trigger-long-running-operation"} {
		assert.True(t, hasTool(p, name), name)
	}
	assert.Equal(t, "Echo: hi", legacyText(t, p, "echo", map[string]any{"message": "hi"}))
	assert.Contains(t, legacyText(t, p, "get-sum", map[string]any{"a": 2, "b": 3}), "5")
	img := legacyText(t, p, "get-tiny-image", nil)
	assert.Contains(t, img, "[image: image/png, ")
	assert.NotContains(t, img, "iVBOR", "never the image's data")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := p.CallTool(ctx, "get-structured-content", map[string]any{"location": "New York"}).Await(ctx)
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.NotNil(t, res.StructuredContent, "structuredContent")

	// Bad arguments: the server's own refusal, a tool error.
	res, err = p.CallTool(ctx, "get-sum", map[string]any{"a": "two"}).Await(ctx)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.True(t, strings.HasPrefix(plugin.RenderResult(res), plugin.ToolErrorPrefix), plugin.RenderResult(res))

	chunk := &host.Chunk{Blocks: []host.Block{
		host.Text{Text: "before"},
		host.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"message":"hook"}`)},
		host.ToolCall{ID: "c2", Name: "get-sum", Arguments: json.RawMessage(`{"a":"two"}`)},
		host.ToolCall{ID: "c3", Name: "no-such-tool", Arguments: json.RawMessage(`{}`)},
	}}
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	assert.Equal(t, host.Text{Text: "before"}, chunk.Blocks[0])
	ok1, is := chunk.Blocks[1].(host.ToolResult)
	require.True(t, is)
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "echo", Content: "Echo: hook"}, ok1)
	bad, is := chunk.Blocks[2].(host.ToolResult)
	require.True(t, is)
	assert.True(t, bad.IsError)
	assert.True(t, strings.HasPrefix(bad.Content, plugin.ToolErrorPrefix), bad.Content)
	_, untouched := chunk.Blocks[3].(host.ToolCall)
	assert.True(t, untouched, "a tool the server does not list is left to others")
}

// Progress: each notifications/progress of a call reaches WithProgress's
// handler, in order, before the call returns.
func TestLegacyEverythingProgress(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []plugin.Progress
	)
	_, p := everything(t, plugin.WithProgress(func(pr plugin.Progress) {
		mu.Lock()
		seen = append(seen, pr)
		mu.Unlock()
	}))
	out := legacyText(t, p, "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3})
	assert.Contains(t, out, "Steps: 3")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 3, "every progress before the result")
	for i, pr := range seen {
		assert.Equal(t, float64(i+1), pr.Progress)
		assert.Equal(t, float64(3), pr.Total)
		assert.Equal(t, "trigger-long-running-operation", pr.Tool)
	}
}

// Cancellation and the caller's deadline: a call whose ctx is cancelled,
// and one whose deadline passes, end at once with the usual errors, and
// notifications/cancelled for each reaches the server (on the wire the
// client writes); the session serves the next call.
func TestLegacyEverythingCancellation(t *testing.T) {
	started := make(chan struct{}, 4)
	r, p := everything(t, plugin.WithProgress(func(plugin.Progress) {
		select {
		case started <- struct{}{}:
		default:
		}
	}))
	long := map[string]any{"duration": 600, "steps": 6000}

	ctx, cancel := context.WithCancel(t.Context())
	f := p.CallTool(ctx, "trigger-long-running-operation", long)
	select {
	case <-started: // the server runs it
	case <-time.After(time.Minute):
		t.Fatal("no progress within a minute")
	}
	cancel()
	_, err := f.Await(t.Context())
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	require.Eventually(t, func() bool { return r.Received("notifications/cancelled") == 1 }, time.Minute, 20*time.Millisecond,
		"notifications/cancelled reaches the server")
	var cancelled struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
			Meta      map[string]any  `json:"_meta"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.wireLine("notifications/cancelled")), &cancelled))
	assert.NotEmpty(t, cancelled.Params.RequestID)
	assert.NotContains(t, cancelled.Params.Meta, mcp.MetaKeyProtocolVersion, "no 2026-07-28 envelope on an older revision's message")

	dctx, dcancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer dcancel()
	_, err = p.CallTool(dctx, "trigger-long-running-operation", long).Await(t.Context())
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "deadline exceeded")
	require.Eventually(t, func() bool { return r.Received("notifications/cancelled") == 2 }, time.Minute, 20*time.Millisecond,
		"notifications/cancelled for the deadline too")

	assert.Equal(t, "Echo: after", legacyText(t, p, "echo", map[string]any{"message": "after"}))
}

// Resources, templates and prompts: listed, read and got.
func TestLegacyEverythingResourcesAndPrompts(t *testing.T) {
	_, p := everything(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	res, err := p.ListResources(ctx, "")
	require.NoError(t, err)
	require.NotEmpty(t, res.Resources)
	read, err := p.ReadResource(ctx, res.Resources[0].URI)
	require.NoError(t, err)
	require.NotEmpty(t, read.Contents)
	assert.Equal(t, res.Resources[0].URI, read.Contents[0].URI)

	templates, err := p.ListResourceTemplates(ctx, "")
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(templates.ResourceTemplates, func(rt *mcp.ResourceTemplate) bool {
		return rt.URITemplate == "demo://resource/dynamic/text/{resourceId}"
	}), "the dynamic text template")
	text, err := p.ReadResource(ctx, "demo://resource/dynamic/text/7")
	require.NoError(t, err)
	require.Len(t, text.Contents, 1)
	assert.NotEmpty(t, text.Contents[0].Text)

	prompts, err := p.ListPrompts(ctx, "")
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(prompts.Prompts, func(pr *mcp.Prompt) bool { return pr.Name == "args-prompt" }))
	got, err := p.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Lisbon"})
	require.NoError(t, err)
	require.NotEmpty(t, got.Messages)
	b, err := json.Marshal(got.Messages)
	require.NoError(t, err)
	assert.Contains(t, string(b), "Lisbon")
}

// Server→client requests: the server asks for sampling, elicitation and
// roots in the middle of a call, and InputHandlers answer them.
func TestLegacyEverythingInputHandlers(t *testing.T) {
	_, p := everything(t, plugin.WithInputRequired(everythingInput()), plugin.WithToolRefresh())
	// The server registers these tools once it has read the client's
	// capabilities (after notifications/initialized) and says so with
	// notifications/tools/list_changed.
	require.Eventually(t, func() bool {
		return hasTool(p, "trigger-sampling-request") && hasTool(p, "trigger-elicitation-request") && hasTool(p, "get-roots-list")
	}, time.Minute, 20*time.Millisecond, "the tools for the declared capabilities")

	out := legacyText(t, p, "trigger-sampling-request", map[string]any{"prompt": "hello", "maxTokens": 17})
	assert.Contains(t, out, "sampled 17")
	assert.Contains(t, out, "interop-model")

	out = legacyText(t, p, "trigger-elicitation-request", nil)
	assert.Contains(t, strings.ToLower(out), "decline")

	out = legacyText(t, p, "get-roots-list", nil)
	assert.Contains(t, out, "file:///interop/root")
	assert.Contains(t, out, "interop-root")
}

// Resource list changes: a tool that registers a session resource makes
// the server send notifications/resources/list_changed, which reaches
// WithListChangeHandler's handler, and the next list has it.
func TestLegacyEverythingListChanged(t *testing.T) {
	changes := make(chan plugin.ListChange, 16)
	_, p := everything(t, plugin.WithListChangeHandler(func(c plugin.ListChange) {
		select {
		case changes <- c:
		default:
		}
	}))
	data := "data:text/plain;base64,aGVsbG8="
	out := legacyText(t, p, "gzip-file-as-resource", map[string]any{"name": "interop.gz", "data": data})
	assert.Contains(t, out, "demo://resource/session/interop.gz")
	select {
	case c := <-changes:
		assert.Equal(t, plugin.ResourcesChanged, c)
	case <-time.After(time.Minute):
		t.Fatal("no resources list change within a minute")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := p.ListResources(ctx, "")
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == "demo://resource/session/interop.gz" }))
}

// Supervision: the child killed for real (SIGKILL), the supervisor starts
// a new one, which is initialized again, and calls work.
func TestLegacyEverythingRestart(t *testing.T) {
	r := startLegacy(t, legacyRow(t, legacyStdio))
	pids := filepath.Join(t.TempDir(), "pids")
	tr := transport.Stdio{Command: "/bin/sh", Args: append([]string{"-c", `echo $$ >> "$0"; exec "$@"`, pids}, r.argv...),
		Dir: r.Dir, Label: r.Server.Row()}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, tr, plugin.WithLegacyFallback(), plugin.WithBackoff(10*time.Millisecond, 100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "Echo: one", legacyText(t, p, "echo", map[string]any{"message": "one"}))

	first := lastPID(t, pids)
	proc, err := os.FindProcess(first)
	require.NoError(t, err)
	require.NoError(t, proc.Kill()) // SIGKILL where there are signals
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.Restarts >= 1 && st.State == actors.Ready
	}, time.Minute, 20*time.Millisecond, "restarted and ready")
	assert.NotEqual(t, first, lastPID(t, pids), "a new child")
	assert.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion(), "initialized again")
	assert.Equal(t, "Echo: two", legacyText(t, p, "echo", map[string]any{"message": "two"}))
}

// lastPID is the last pid written to the file.
func lastPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	fields := strings.Fields(string(b))
	require.NotEmpty(t, fields)
	pid, err := strconv.Atoi(fields[len(fields)-1])
	require.NoError(t, err)
	return pid
}

// Spans: the connect span and a call's span name the revision.
func TestLegacyEverythingSpans(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	_, p := everything(t, plugin.WithTracerProvider(tp))
	legacyText(t, p, "echo", map[string]any{"message": "span"})
	require.NoError(t, p.Close())
	named := map[string]string{}
	for _, sp := range spans.Ended() {
		for _, kv := range sp.Attributes() {
			if kv.Key == "mcp.protocol.version" {
				named[sp.Name()] = kv.Value.AsString()
			}
		}
	}
	assert.Equal(t, p.ProtocolVersion(), named["mcp connect"], "%v", named)
	assert.Equal(t, p.ProtocolVersion(), named["tools/call echo"], "%v", named)
}

// Logging: the server's notifications/message reach a LoggingMessageHandler
// given through WithClientOptions, which takes the place of the plugin's
// own (TestLegacyEverythingLoggingToLogger).
func TestLegacyEverythingLogging(t *testing.T) {
	got := make(chan *mcp.LoggingMessageParams, 16)
	_, p := everything(t, plugin.WithClientOptions(&mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			select {
			case got <- req.Params:
			default:
			}
		},
	}))
	legacyText(t, p, "toggle-simulated-logging", nil)
	defer legacyText(t, p, "toggle-simulated-logging", nil)
	select {
	case m := <-got:
		assert.NotEmpty(t, m.Level)
		assert.Contains(t, m.Data, "message")
	case <-time.After(time.Minute):
		t.Fatal("no notifications/message within a minute")
	}
}

// The server's notifications/message reach the plugin's logger
// (WithLogger), naming the server.
func TestLegacyEverythingLoggingToLogger(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	_, p := everything(t, plugin.WithLogger(zap.New(core)))
	legacyText(t, p, "toggle-simulated-logging", nil)
	defer legacyText(t, p, "toggle-simulated-logging", nil)
	require.Eventually(t, func() bool {
		for _, e := range logs.All() {
			if text := fmt.Sprint(e.Message, e.ContextMap()); strings.Contains(text, "level message") || strings.Contains(text, "level-message") {
				return true
			}
		}
		return false
	}, time.Minute, 50*time.Millisecond, "a notifications/message in the log")
}

// WithTasks declares the 2026-07-28 tasks extension (SEP-2663); an older
// revision's initialize does not: that session has no such extension.
func TestLegacyTasksNotDeclaredOnInitialize(t *testing.T) {
	r, p := everything(t, plugin.WithTasks(plugin.TaskOptions{}))
	assert.Equal(t, "Echo: t", legacyText(t, p, "echo", map[string]any{"message": "t"}))
	var init struct {
		Params struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.wireLine("initialize")), &init))
	assert.NotContains(t, string(init.Params.Capabilities["extensions"]), "io.modelcontextprotocol/tasks")
}

// Over stdio an older revision's tool call takes the direct path (whose
// ids are below -2^40, never go-sdk's), as a 2026-07-28 session's does, as
// that revision's tools/call: the same line without the 2026-07-28
// envelope, which initialize's revision has none of
// (TestLegacyEverythingCancellation: its notifications/cancelled too).
func TestLegacyEverythingDirectCalls(t *testing.T) {
	r, p := everything(t)
	assert.Equal(t, "Echo: d", legacyText(t, p, "echo", map[string]any{"message": "d"}))
	var call struct {
		ID     json.Number `json:"id"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	line := r.wireLine("tools/call")
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	require.NoError(t, d.Decode(&call), line)
	id, err := call.ID.Int64()
	require.NoError(t, err)
	if os.Getenv(transport.DirectCallsEnv) == "0" {
		assert.Positive(t, id, "direct calls off: go-sdk's session sends the call: %s", line)
	} else {
		assert.Less(t, id, int64(-1<<40), "the direct path's id: %s", line)
	}
	assert.NotContains(t, call.Params.Meta, mcp.MetaKeyProtocolVersion, line)
	assert.NotContains(t, call.Params.Meta, mcp.MetaKeyClientCapabilities, line)
}

// Tasks (SEP-2663) are a 2026-07-28 extension: with WithTasks, calls on an
// older revision's session are plain calls, never sent or driven as
// tasks, and a tool that needs the 2025-11-25 tasks (SEP-1686, which this
// client does not speak) fails with the server's own words, a tool error.
func TestLegacyEverythingTasks(t *testing.T) {
	r, p := everything(t, plugin.WithTasks(plugin.TaskOptions{}))
	assert.Equal(t, "Echo: t", legacyText(t, p, "echo", map[string]any{"message": "t"}))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := p.CallTool(ctx, "simulate-research-query", map[string]any{"topic": "x"}).Await(ctx)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, plugin.RenderResult(res), "requires task augmentation")
	var call struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.wireLine("tools/call")), &call))
	assert.NotContains(t, call.Params, "task", "no SEP-1686 task asked for")
}

// wireLine is the first line on the wire of method.
func (r *legacyRun) wireLine(method string) string {
	b, err := os.ReadFile(r.wire)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, `"method":"`+method+`"`) {
			return line
		}
	}
	return ""
}

// The toolbox over an older revision's server: a lazy entry with
// "legacyFallback": true starts at the first Open to learn its tools
// (there is no manifest yet); opened again it is not started, its tools
// come from the manifest, tool search finds them, and the first call,
// approved by the handler, starts the server at its older revision. Its
// tools are pinned, and the live list agrees with the pins.
func TestLegacyEverythingToolbox(t *testing.T) {
	r := startLegacy(t, legacyRow(t, legacyStdio))
	file, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": r.argv[0], "args": r.argv[1:], "cwd": r.Dir, "legacyFallback": true, "lazy": true},
	}})
	require.NoError(t, err)
	cfg, err := mcpconfig.Parse(file)
	require.NoError(t, err)
	manifests := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	first, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(manifests), toolbox.WithPinnedTools())
	require.NoError(t, err)
	require.Equal(t, actors.Ready, first.Status()["everything"].State, "no manifest yet: started at Open")
	assert.Contains(t, actors.LegacyRevisions(), first.ProtocolVersion("everything"))
	require.NoError(t, first.Close())

	var (
		mu       sync.Mutex
		approved []plugin.ApprovalRequest
	)
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(manifests), toolbox.WithPinnedTools(),
		toolbox.WithToolSearch(toolbox.ToolSearch{}),
		toolbox.WithApprovalHandler(func(_ context.Context, req plugin.ApprovalRequest) error {
			mu.Lock()
			defer mu.Unlock()
			approved = append(approved, req)
			return nil
		}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })
	require.Equal(t, actors.NotStarted, tb.Status()["everything"].State, "lazy, with a manifest")
	require.True(t, tb.HasTool("everything__echo"), "from the manifest")
	found := tb.Search("echo message")
	require.NotEmpty(t, found)
	assert.True(t, slices.ContainsFunc(found, func(tl toolbox.Tool) bool { return tl.Name == "everything__echo" }), "%v", found)

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "everything__echo", Arguments: json.RawMessage(`{"message":"lazy"}`)}}}
	require.NoError(t, tb.OnStreamChunk(ctx, chunk))
	out, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok)
	assert.Equal(t, "Echo: lazy", out.Content)
	assert.Equal(t, actors.Ready, tb.Status()["everything"].State, "started by the call")
	assert.Contains(t, actors.LegacyRevisions(), tb.ProtocolVersion("everything"))
	assert.Empty(t, tb.HeldTools(), "the older revision's list matches its pins")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, approved, 1)
	assert.Equal(t, "echo", approved[0].Tool)
	assert.Equal(t, "c1", approved[0].CallID)
}
