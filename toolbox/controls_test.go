package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// controlsEntry runs testserver.NewControlsServer in a child process.
func controlsEntry(t *testing.T) entry {
	cmd, args := testserver.ControlsCommand(t, testserver.ControlsOptions{})
	return entry{"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
}

// serverStats asks one server what reached it, past the toolbox's names.
func serverStats(t *testing.T, tb *toolbox.Toolbox, server string) testserver.ControlsStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tb.Plugin(server).CallTool(ctx, "stats", nil).Await(ctx)
	require.NoError(t, err)
	var s testserver.ControlsStats
	require.NoError(t, json.Unmarshal([]byte(plugin.RenderResult(res)), &s))
	return s
}

func TestTrustedServerSkipsApproval(t *testing.T) {
	safe, other := controlsEntry(t), controlsEntry(t)
	safe["trust"] = true
	var mu sync.Mutex
	var seen []plugin.ApprovalRequest
	tb := open(t, config(t, map[string]entry{"safe": safe, "other": other}),
		toolbox.WithPluginOptions(plugin.WithApproval(func(_ context.Context, r plugin.ApprovalRequest) error {
			if r.Tool == "stats" {
				return nil
			}
			mu.Lock()
			seen = append(seen, r)
			mu.Unlock()
			return errors.New("ask me later")
		})))

	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "s", Name: "safe__text", Arguments: json.RawMessage(`{"unit":"x","times":2}`)},
		host.ToolCall{ID: "o", Name: "other__text", Arguments: json.RawMessage(`{"unit":"y","times":2}`)},
	}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "s", Name: "safe__text", Content: "xx"}, chunk.Blocks[0])
	o := chunk.Blocks[1].(host.ToolResult)
	assert.Equal(t, "o", o.ToolCallID)
	assert.Equal(t, "other__text", o.Name)
	assert.True(t, o.IsError)
	assert.Contains(t, o.Content, "ask me later")

	_, err := tb.CallTool(context.Background(), "other__text", map[string]any{"unit": "z", "times": 1}).Await(context.Background())
	assert.ErrorIs(t, err, plugin.ErrDenied)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2, "only the untrusted server's calls are decided")
	assert.Equal(t, "text", seen[0].Tool, "the server's own tool name")
	assert.Equal(t, "o", seen[0].CallID, "the hook's ToolCall ID")
	assert.Contains(t, seen[0].Server, `server "other"`)
	assert.Equal(t, "", seen[1].CallID)
	assert.Equal(t, int64(0), serverStats(t, tb, "other").Calls)
	assert.Equal(t, int64(1), serverStats(t, tb, "safe").Calls)
}

func TestMaxResultBytesIsPerServer(t *testing.T) {
	small, big := controlsEntry(t), controlsEntry(t)
	small["maxResultBytes"] = 64
	tb := open(t, config(t, map[string]entry{"small": small, "big": big}))
	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "s", Name: "small__text", Arguments: json.RawMessage(`{"unit":"ü","times":500}`)},
		host.ToolCall{ID: "b", Name: "big__text", Arguments: json.RawMessage(`{"unit":"ü","times":500}`)},
	}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	s, b := chunk.Blocks[0].(host.ToolResult), chunk.Blocks[1].(host.ToolResult)
	assert.LessOrEqual(t, len(s.Content), 64)
	assert.True(t, strings.HasPrefix(s.Content, "üü"))
	assert.Contains(t, s.Content, "more cut]")
	assert.Equal(t, "small__text", s.Name)
	assert.Equal(t, strings.Repeat("ü", 500), b.Content)
	// A future's result is the server's, whole.
	assert.Equal(t, strings.Repeat("ü", 500), call(t, tb, "small__text", map[string]any{"unit": "ü", "times": 500}))
}

func TestToolListChangeRechecksCollisions(t *testing.T) {
	a, b := controlsEntry(t), controlsEntry(t)
	a["prefix"], b["prefix"] = "", "b_"
	tb := open(t, config(t, map[string]entry{"a": a, "b": b}), toolbox.WithPluginOptions(plugin.WithToolRefresh()))
	require.True(t, tb.HasTool("stats"))
	require.True(t, tb.HasTool("b_stats"))

	// A tool added at runtime appears under its exposed name.
	assert.Equal(t, "added fresh", call(t, tb, "add_tool", map[string]any{"name": "fresh"}))
	require.Eventually(t, func() bool { return tb.HasTool("fresh") }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, "I am fresh", call(t, tb, "fresh", nil))

	// a adds a tool that takes b's exposed name: a, the server that
	// changed, is held out whole, though it came first; b keeps its names.
	assert.Equal(t, "added b_stats", call(t, tb, "add_tool", map[string]any{"name": "b_stats"}))
	require.Eventually(t, func() bool {
		return errors.Is(tb.Status()["a"].LastError, toolbox.ErrNameCollision)
	}, 10*time.Second, 5*time.Millisecond)
	st := tb.Status()["a"]
	assert.Equal(t, actors.Failed, st.State)
	assert.Contains(t, st.LastError.Error(), `server "a"`)
	assert.Contains(t, st.LastError.Error(), `server "b"`)
	assert.False(t, tb.HasTool("fresh"))
	assert.False(t, tb.HasTool("add_tool"))
	for _, tl := range tb.Tools() {
		assert.Equal(t, "b", tl.Server)
	}
	var bs testserver.ControlsStats
	require.NoError(t, json.Unmarshal([]byte(call(t, tb, "b_stats", nil)), &bs))
	assert.Equal(t, int64(0), bs.Calls, "b_stats is still b's stats")
	assert.Equal(t, actors.Ready, tb.Status()["b"].State)

	// a drops the tool again: its names are free, and it is back.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := tb.Plugin("a").CallTool(ctx, "remove_tool", map[string]any{"name": "b_stats"}).Await(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return tb.HasTool("fresh") && tb.HasTool("add_tool") }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, actors.Ready, tb.Status()["a"].State)
	assert.NoError(t, tb.Status()["a"].LastError)
	require.NoError(t, json.Unmarshal([]byte(call(t, tb, "b_stats", nil)), &bs))
	assert.Equal(t, int64(0), bs.Calls, "b_stats stayed b's throughout")
}
