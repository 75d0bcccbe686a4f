package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// events collects what a toolbox's handlers report.
type events[T any] struct {
	mu  sync.Mutex
	got []T
}

func (e *events[T]) add(v T) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, v)
}

func (e *events[T]) all() []T {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]T(nil), e.got...)
}

// The status handler names the server by its key, for the servers that
// come up and for those never started.
func TestStatusHandlerNamesTheServer(t *testing.T) {
	var ev events[toolbox.ServerStatus]
	tb := open(t, config(t, map[string]entry{
		"alpha":  stdioEntry(t),
		"absent": {"command": "/nonexistent/mcp-server"},
		"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
	}), fast, toolbox.WithStatusHandler(ev.add))
	find := func(server string, state actors.State) *toolbox.ServerStatus {
		for _, st := range ev.all() {
			if st.Server == server && st.State == state {
				return &st
			}
		}
		return nil
	}
	require.Eventually(t, func() bool {
		return find("alpha", actors.Ready) != nil && find("absent", actors.Failed) != nil
	}, time.Minute, 5*time.Millisecond)
	absent := find("absent", actors.Failed)
	assert.ErrorIs(t, absent.LastError, plugin.ErrIO)
	legacy := find("legacy", actors.Failed)
	require.NotNil(t, legacy, "reported during Open")
	assert.ErrorIs(t, legacy.LastError, plugin.ErrNotSupported)
	for _, st := range ev.all() {
		assert.Contains(t, []string{"alpha", "absent", "legacy"}, st.Server)
	}
	assert.Equal(t, actors.Ready, tb.Status()["alpha"].State)
}

// Progress and approval requests carry the server's key and the tool's
// name on the server.
func TestProgressAndApprovalNameTheServerAndItsTool(t *testing.T) {
	var progress events[plugin.Progress]
	var asked events[plugin.ApprovalRequest]
	tb := open(t, config(t, map[string]entry{"ctl": controlsEntry(t)}),
		toolbox.WithProgressHandler(progress.add),
		toolbox.WithApprovalHandler(func(_ context.Context, r plugin.ApprovalRequest) error {
			asked.add(r)
			if r.Tool == "text" {
				return errors.New("not now")
			}
			return nil
		}))

	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "p", Name: "ctl__progress", Arguments: json.RawMessage(`{"steps":2,"ms":0}`)},
		host.ToolCall{ID: "d", Name: "ctl__text", Arguments: json.RawMessage(`{"unit":"x","times":1}`)},
	}}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	assert.False(t, chunk.Blocks[0].(host.ToolResult).IsError, chunk.Blocks[0])
	denied := chunk.Blocks[1].(host.ToolResult)
	assert.True(t, denied.IsError)
	assert.Contains(t, denied.Content, "not now")

	got := progress.all()
	require.Len(t, got, 2, "every progress reaches the handler before the call returns")
	for i, p := range got {
		assert.Equal(t, "ctl", p.Server)
		assert.Equal(t, "progress", p.Tool)
		assert.Equal(t, "p", p.CallID)
		assert.Equal(t, float64(i+1), p.Progress)
	}
	reqs := asked.all()
	require.Len(t, reqs, 2)
	byTool := map[string]plugin.ApprovalRequest{}
	for _, r := range reqs {
		assert.Equal(t, "ctl", r.Server)
		byTool[r.Tool] = r
	}
	require.Contains(t, byTool, "text")
	assert.Equal(t, "d", byTool["text"].CallID)
	assert.JSONEq(t, `{"unit":"x","times":1}`, string(byTool["text"].Arguments))
	assert.Contains(t, byTool, "progress")
}
