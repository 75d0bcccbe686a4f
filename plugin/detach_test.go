package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
)

// workCall is a model's call of the task server's work tool.
func workCall(t *testing.T, id string, args map[string]any) *host.Chunk {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	return &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: id, Name: "work", Arguments: raw}}}
}

// A hook call whose task runs past DetachAfter returns a block naming the
// task; the task goes on, its hook's ctx ended, and its result is taken
// later.
func TestDetachedHookCall(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{DetachAfter: 20 * time.Millisecond}))
			file := filepath.Join(t.TempDir(), "go")

			ctx, cancel := context.WithCancel(t.Context())
			chunk := workCall(t, "c1", map[string]any{"until": file, "text": "late"})
			require.NoError(t, p.OnStreamChunk(ctx, chunk))
			cancel() // the turn is over; the task is not
			out, ok := chunk.Blocks[0].(host.ToolResult)
			require.True(t, ok, "the call is replaced: %#v", chunk.Blocks[0])
			assert.False(t, out.IsError, out.Content)
			assert.Equal(t, "c1", out.ToolCallID)
			assert.Equal(t, "work", out.Name)

			detached := p.DetachedTasks()
			require.Len(t, detached, 1)
			d := detached[0]
			assert.Equal(t, "work", d.Tool)
			assert.Equal(t, "c1", d.CallID)
			require.NotEmpty(t, d.TaskID)
			assert.Contains(t, out.Content, d.TaskID, "the block names the task")
			assert.Contains(t, out.Content, "still running")
			assert.False(t, d.Detached.Before(d.Started))

			// Asked before it ends: still running, nothing cancelled.
			asked, stop := context.WithCancel(t.Context())
			stop()
			res, done := p.DetachedResult(asked, d.TaskID)
			assert.False(t, done)
			assert.False(t, res.IsError)
			assert.Contains(t, res.Content, "still running")

			require.NoError(t, os.WriteFile(file, nil, 0o600))
			res, done = p.DetachedResult(t.Context(), d.TaskID)
			require.True(t, done)
			assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "work", Content: "late"}, res)
			assert.Empty(t, p.DetachedTasks(), "a result taken is forgotten")

			res, done = p.DetachedResult(t.Context(), d.TaskID)
			assert.False(t, done)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Content, "no detached call has this task")
			_, _, err := p.DetachedCallResult(t.Context(), d.TaskID)
			assert.ErrorIs(t, err, plugin.ErrValidation)

			reqs := s.checkTaskRequests(t, true)
			assert.Zero(t, count(reqs, "tasks/cancel"), "a detached task is not cancelled")
			assert.Equal(t, 1, count(reqs, "tools/call"))
		})
	}
}

// Without DetachAfter, or before it passes, the hook waits for the end;
// a caller that gives up before the call detaches cancels the task.
func TestDetachNotYet(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	var once sync.Once
	polled := make(chan struct{})
	p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{DetachAfter: time.Hour}),
		plugin.WithProgress(func(plugin.Progress) { once.Do(func() { close(polled) }) }))

	chunk := workCall(t, "c1", map[string]any{"polls": 3, "text": "finished"})
	require.NoError(t, p.OnStreamChunk(t.Context(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "work", Content: "finished"}, chunk.Blocks[0])
	assert.Empty(t, p.DetachedTasks())

	ctx, cancel := context.WithCancel(t.Context())
	chunk = workCall(t, "c2", map[string]any{"outcome": "never", "message": "running"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.OnStreamChunk(ctx, chunk)
	}()
	<-polled
	cancel()
	<-done
	out := chunk.Blocks[0].(host.ToolResult)
	assert.True(t, out.IsError)
	assert.Contains(t, out.Content, "context canceled")
	assert.Empty(t, p.DetachedTasks())
	s.waitCancel(t) // the task of a caller that gave up is cancelled
	s.oneCancel(t)
}
