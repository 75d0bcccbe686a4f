package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// transports returns the two real ways to reach the go-sdk test server.
func transports(t *testing.T) map[string]transport.McpTransport {
	return map[string]transport.McpTransport{
		"stdio": testserver.Stdio(t),
		"http":  transport.StreamableHTTP{URL: testserver.HTTP(t)},
	}
}

func connect(t *testing.T, tr transport.McpTransport, opts ...plugin.Option) *plugin.McpPlugin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, tr, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func callText(t *testing.T, p *plugin.McpPlugin, name string, args any) string {
	t.Helper()
	res, err := p.CallTool(context.Background(), name, args).Await(context.Background())
	require.NoError(t, err)
	return plugin.RenderResult(res)
}

func TestConnectDiscoversToolsSortedByName(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			p := connect(t, tr)
			assert.Equal(t, "mcp-connector", p.Name())
			assert.Equal(t, "mcp-connector", p.Name())
			var names []string
			for _, tool := range p.Tools() {
				names = append(names, tool.Name)
			}
			assert.Equal(t, testserver.ToolNames, names)

			defs := p.ToolDefinitions()
			require.Len(t, defs, len(testserver.ToolNames))
			assert.Equal(t, "add", defs[0].Name)
			assert.Equal(t, "Add two numbers and return their sum", defs[0].Description)
			var schema map[string]any
			require.NoError(t, json.Unmarshal(defs[0].InputSchema, &schema))
			assert.Equal(t, "object", schema["type"])
			assert.Contains(t, schema["properties"], "a")
		})
	}
}

func TestCallToolReturnsTheServersAnswer(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			p := connect(t, tr)
			assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 21, "b": 21}))
			assert.Equal(t, "42", callText(t, p, "add", json.RawMessage(`{"a": 40, "b": 2}`)))
			assert.Equal(t, "42", callText(t, p, "add", []byte(`{"a": 41, "b": 1}`)))
		})
	}
}

func TestNullOrEmptyArgumentsMeanNone(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	for _, args := range []any{nil, json.RawMessage(nil), json.RawMessage(""), json.RawMessage("null"), []byte(" null "), json.RawMessage("{}")} {
		assert.Equal(t, "{}", callText(t, p, "echo", args), "args %#v", args)
	}
	assert.JSONEq(t, `{"x":[1,2]}`, callText(t, p, "echo", map[string]any{"x": []int{1, 2}}))
}

func TestNonObjectArgumentsAreValidationErrorsAndNeverSent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "received")
	p := connect(t, testserver.Raw(t, "ok", log))
	bad := map[string]any{
		"array":         []int{1, 2},
		"number":        42,
		"string":        "hello",
		"bool":          true,
		"json array":    json.RawMessage(`[1]`),
		"json number":   json.RawMessage(`7`),
		"json string":   []byte(`"x"`),
		"invalid json":  json.RawMessage(`{"a":`),
		"unmarshalable": func() {},
	}
	for name, args := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := p.CallTool(context.Background(), "t", args).Await(context.Background())
			require.ErrorIs(t, err, plugin.ErrValidation)
			var perr *plugin.Error
			require.ErrorAs(t, err, &perr)
			assert.Equal(t, plugin.KindValidation, perr.Kind)
			assert.Equal(t, "tools/call arguments", perr.Schema)
			assert.Contains(t, err.Error(), `tools/call "t"`)
		})
	}
	// A good call afterwards proves the server was reachable all along.
	_, err := p.CallTool(context.Background(), "t", nil).Await(context.Background())
	require.NoError(t, err)
	calls := 0
	for _, line := range testserver.Received(t, log) {
		if line[:len("tools/call")] == "tools/call" {
			calls++
		}
	}
	assert.Equal(t, 1, calls, "only the valid call reaches the server")
}

func TestEveryRequestCarriesMetaAndInitializeIsNeverSent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "received")
	p := connect(t, testserver.Raw(t, "ok", log))
	_, err := p.CallTool(context.Background(), "t", map[string]any{"k": 1}).Await(context.Background())
	require.NoError(t, err)
	lines := testserver.Received(t, log)
	require.GreaterOrEqual(t, len(lines), 3)
	assert.Equal(t, "server/discover 2026-07-28 mcpconnector caps", lines[0])
	for _, line := range lines {
		assert.Regexp(t, `^(server/discover|tools/list|tools/call) 2026-07-28 mcpconnector caps$`, line)
	}
}

func TestLegacyOnlyServerIsRefusedWithoutInitialize(t *testing.T) {
	log := filepath.Join(t.TempDir(), "received")
	_, err := plugin.Connect(context.Background(), testserver.Raw(t, "legacy", log))
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
	assert.Contains(t, err.Error(), "server/discover")
	assert.Contains(t, err.Error(), "2026-07-28")
	for _, line := range testserver.Received(t, log) {
		assert.NotContains(t, line, "initialize", "the server must never see initialize")
	}
}

func TestConnectErrors(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "not-executable")
	require.NoError(t, writeFile(notExec, "#!/bin/sh\n", 0o644))
	cases := []struct {
		name     string
		tr       transport.McpTransport
		sentinel error
		contains string
	}{
		{"command not found", transport.NewStdio("mcpconnector-no-such-command"), plugin.ErrIO, "mcpconnector-no-such-command"},
		{"not executable", transport.NewStdio(notExec), plugin.ErrIO, "permission denied"},
		{"sse without the legacy fallback", transport.SSE{URL: "http://127.0.0.1:1/sse"}, plugin.ErrNotSupported, "WithLegacyFallback"},
		{"tools/list fails", testserver.Raw(t, "list_error"), plugin.ErrInternal, "tools are on fire"},
		{"cursor cycles", testserver.Raw(t, "cursor_cycle"), plugin.ErrInternal, `repeated cursor "again"`},
		{"nothing listens", transport.StreamableHTTP{URL: "http://127.0.0.1:1/mcp"}, plugin.ErrInternal, "127.0.0.1:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := plugin.Connect(context.Background(), c.tr)
			require.Nil(t, p)
			require.ErrorIs(t, err, c.sentinel)
			assert.Contains(t, err.Error(), c.contains)
			assert.Contains(t, err.Error(), c.tr.String(), "the error names the server")
		})
	}
}

func TestResultTypesThatNeedMoreRoundsAreNotSupported(t *testing.T) {
	for _, mode := range []string{"task", "input_required"} {
		t.Run(mode, func(t *testing.T) {
			p := connect(t, testserver.Raw(t, mode))
			_, err := p.CallTool(context.Background(), "t", nil).Await(context.Background())
			require.ErrorIs(t, err, plugin.ErrNotSupported)
			assert.Contains(t, err.Error(), `"`+mode+`"`)
		})
	}
	t.Run("unrecognised", func(t *testing.T) {
		p := connect(t, testserver.Raw(t, "weird"))
		_, err := p.CallTool(context.Background(), "t", nil).Await(context.Background())
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.Contains(t, err.Error(), `"weird"`)
	})
	t.Run("not json", func(t *testing.T) {
		p := connect(t, testserver.Raw(t, "garbage"))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := p.CallTool(ctx, "t", nil).Await(ctx)
		require.ErrorIs(t, err, plugin.ErrInternal)
	})
}

func TestToolErrorsAndUnknownToolsAreInternal(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	res, err := p.CallTool(context.Background(), "fail", nil).Await(context.Background())
	require.NoError(t, err, "an isError result is a result, not a failed call")
	assert.True(t, res.IsError)
	assert.Equal(t, "tool error: boom", plugin.RenderResult(res))

	_, err = p.CallTool(context.Background(), "nope", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), `tools/call "nope"`)
}

func TestUnsupervisedCallsAfterTheServerDiedFailInternal(t *testing.T) {
	p := connect(t, testserver.Stdio(t), plugin.WithoutSupervision())
	_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	require.Eventually(t, func() bool {
		_, err := p.CallTool(context.Background(), "add", nil).Await(context.Background())
		return err != nil && assert.ErrorIs(t, err, plugin.ErrInternal) &&
			assert.Contains(t, err.Error(), "exiting on request", "the error carries the child's stderr")
	}, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, actors.Failed, p.Status().State)
}

func TestConcurrentCallsRunConcurrentlyOnOneSession(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			p := connect(t, tr)
			const n = 8
			futures := make([]*plugin.Future, n)
			for i := range futures {
				futures[i] = p.CallTool(context.Background(), "gather", map[string]any{"n": n})
			}
			for _, f := range futures {
				res, err := f.Await(context.Background())
				require.NoError(t, err)
				assert.Equal(t, "together", plugin.RenderResult(res), "all calls must be in flight at once")
			}
		})
	}
}

func TestCancelledContextEndsTheWaitAndCancelsOnTheServer(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	p := connect(t, testserver.Stdio(t), plugin.WithLogger(zap.New(core)))
	ctx, cancel := context.WithCancel(context.Background())
	f := p.CallTool(context.Background(), "slow", map[string]any{"ms": 60000})
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := f.Await(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, plugin.ErrInternal)
	// The server saw notifications/cancelled: its handler's ctx ended and
	// it said so on stderr, which reaches our logger.
	require.Eventually(t, func() bool {
		return logs.FilterMessage("mcp server stderr").FilterField(zap.String("line", "cancelled")).Len() == 1
	}, 10*time.Second, 10*time.Millisecond)
	// The session is still good.
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 21, "b": 21}))
}

func TestDeadlineBoundsTheCall(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, "slow", map[string]any{"ms": 60000}).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
}

func TestCallTimeoutBoundsCallsWithoutADeadline(t *testing.T) {
	p := connect(t, testserver.Stdio(t), plugin.WithDefaultCallTimeout(100*time.Millisecond))
	_, err := p.CallTool(context.Background(), "slow", map[string]any{"ms": 60000}).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "deadline exceeded")
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c", Name: "slow", Arguments: json.RawMessage(`{"ms":60000}`)}}}
	require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "deadline exceeded")
	// A ctx deadline of the caller's own wins over the bound.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := p.CallTool(ctx, "slow", map[string]any{"ms": 300}).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "done", plugin.RenderResult(out))
}

func TestCloseEndsTheChildAndLeavesNoZombie(t *testing.T) {
	ctx := context.Background()
	p, err := plugin.Connect(ctx, testserver.Stdio(t))
	require.NoError(t, err)
	pid, err := strconv.Atoi(callText(t, p, "pid", nil))
	require.NoError(t, err)
	require.False(t, proc.Gone(pid), "the child runs")
	f := p.CallTool(ctx, "slow", map[string]any{"ms": 60000})

	require.NoError(t, p.Close())
	assert.True(t, proc.Gone(pid), "the child is reaped, not left a zombie")
	_, err = f.Await(ctx)
	require.ErrorIs(t, err, plugin.ErrInternal, "a call in flight fails at Close")
	_, err = p.CallTool(ctx, "add", nil).Await(ctx)
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "closed")
	require.NoError(t, p.Close(), "Close is idempotent")
}

func TestManyGoroutinesGetTheirOwnResults(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				want := fmt.Sprint(g*1000 + i)
				got := callText(t, p, "add", map[string]any{"a": g * 1000, "b": i})
				assert.Equal(t, want, got)
			}
		}()
	}
	wg.Wait()
}

func TestToolSetReadsOneSnapshot(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	tools, defs := p.ToolSet()
	require.NotEmpty(t, tools)
	require.Len(t, defs, len(tools))
	for i := range tools {
		require.Equal(t, tools[i].Name, defs[i].Name)
	}
	require.Equal(t, p.ToolDefinitions(), defs)
}

func TestInFlightCountsRequestsUntilTheyEnd(t *testing.T) {
	asked, decide := make(chan struct{}), make(chan struct{})
	p := connect(t, testserver.Stdio(t), plugin.WithApproval(func(_ context.Context, req plugin.ApprovalRequest) error {
		if req.Tool == "add" {
			close(asked)
			<-decide
		}
		return nil
	}))
	assert.Equal(t, 0, p.InFlight())
	ctx, cancel := context.WithCancel(context.Background())
	slow := p.CallTool(ctx, "slow", map[string]any{"ms": 60000})
	add := p.CallTool(context.Background(), "add", map[string]any{"a": 1, "b": 2})
	<-asked
	assert.Equal(t, 2, p.InFlight(), "one sent, one awaiting its approval")
	close(decide)
	res, err := add.Await(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "3", plugin.RenderResult(res))
	assert.Equal(t, 1, p.InFlight(), "the answered call no longer counts")
	cancel()
	_, err = slow.Await(context.Background())
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, p.InFlight(), "nor does a call given up")
}

// At debug level a call's end is logged beside its start: server, tool,
// duration, whether the result is an error, and its size; a failed call
// says it failed and why.
func TestACallsEndIsLoggedAtDebug(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	p := connect(t, testserver.Stdio(t), plugin.WithLogger(zap.New(core)))
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 21, "b": 21}))
	_, err := p.CallTool(context.Background(), "no_such_tool", nil).Await(context.Background())
	require.Error(t, err)

	ended := logs.FilterMessage("mcp tools/call ended")
	add := ended.FilterField(zap.String("tool", "add")).All()
	require.Len(t, add, 1)
	fields := add[0].ContextMap()
	assert.Equal(t, p.Server(), fields["server"])
	assert.Equal(t, false, fields["isError"])
	assert.EqualValues(t, 1, fields["blocks"])
	assert.EqualValues(t, len("42"), fields["text_bytes"])
	assert.Positive(t, fields["duration"])
	failed := ended.FilterField(zap.String("tool", "no_such_tool")).All()
	require.Len(t, failed, 1)
	assert.Equal(t, true, failed[0].ContextMap()["failed"])
	assert.NotEmpty(t, failed[0].ContextMap()["error"])
}

// The status and ProtocolVersion name the revision the session speaks:
// 2026-07-28 without WithLegacyFallback.
func TestStatusNamesTheSessionsRevision(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	assert.Equal(t, "2026-07-28", p.ProtocolVersion())
	assert.Equal(t, "2026-07-28", p.Status().ProtocolVersion)
}
