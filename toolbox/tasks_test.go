package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// taskEntry serves the SEP-2663 task server over loopback HTTP.
func taskEntry(t *testing.T) entry {
	h, err := taskserver.StartHTTP(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Stop() })
	return entry{"type": "http", "url": h.URL}
}

func taskChunk(blocks ...host.Block) *host.Chunk { return &host.Chunk{Blocks: blocks} }

// A toolbox's server with WithTasks drives tasks; a hook call detached by
// DetachAfter is read back through the task result tool.
func TestToolboxDetachedTaskAndTaskResultTool(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"jobs": taskEntry(t), "other": httpEntry(t)}),
		toolbox.WithPluginOptions(plugin.WithTasks(plugin.TaskOptions{DetachAfter: 20 * time.Millisecond})))
	results := tb.TaskResultTool()
	assert.Equal(t, "get_task_result", results.Definition().Name)
	assert.Equal(t, "get_task_result", results.Name())
	assert.True(t, json.Valid(results.Definition().InputSchema))

	// CallTool never detaches: it waits for the task to end (here after
	// polls that take longer than DetachAfter).
	assert.Equal(t, "done", call(t, tb, "jobs__work", map[string]any{"polls": 2}))

	file := filepath.Join(t.TempDir(), "go")
	args, err := json.Marshal(map[string]any{"until": file, "text": "late result"})
	require.NoError(t, err)
	chunk := taskChunk(host.ToolCall{ID: "c1", Name: "jobs__work", Arguments: args})
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	out := chunk.Blocks[0].(host.ToolResult)
	require.False(t, out.IsError, out.Content)
	assert.Equal(t, "jobs__work", out.Name)
	detached := tb.Plugin("jobs").DetachedTasks()
	require.Len(t, detached, 1)
	id := detached[0].TaskID
	assert.Contains(t, out.Content, id)

	ask := func(args string) host.ToolResult {
		t.Helper()
		c := taskChunk(host.ToolCall{ID: "r1", Name: results.Name(), Arguments: json.RawMessage(args)},
			host.Text{Text: "between"})
		require.NoError(t, results.OnStreamChunk(t.Context(), c))
		assert.Equal(t, host.Text{Text: "between"}, c.Blocks[1], "other blocks pass through")
		r := c.Blocks[0].(host.ToolResult)
		assert.Equal(t, "r1", r.ToolCallID)
		assert.Equal(t, results.Name(), r.Name)
		return r
	}
	r := ask(fmt.Sprintf(`{"task_id":%q}`, id))
	assert.False(t, r.IsError)
	assert.Contains(t, r.Content, "still running")

	require.NoError(t, os.WriteFile(file, nil, 0o600))
	r = ask(fmt.Sprintf(`{"task_id":%q,"wait_seconds":30}`, id))
	assert.Equal(t, host.ToolResult{ToolCallID: "r1", Name: results.Name(), Content: "late result"}, r)

	r = ask(fmt.Sprintf(`{"task_id":%q}`, id))
	assert.True(t, r.IsError, "a result is given once")
	assert.Contains(t, r.Content, "no running or unread task")
	r = ask(`{}`)
	assert.True(t, r.IsError)
	assert.True(t, strings.Contains(r.Content, "task_id is required"), r.Content)

	res, handled, err := results.ExecuteLocalTool(context.Background(), host.ToolCall{ID: "x", Name: "jobs__work"})
	assert.False(t, handled)
	assert.NoError(t, err)
	assert.Empty(t, res)
}

// The "tasks" key of a server's entry gives it WithTasks with its
// settings; a server without it declares nothing and gets no task.
func TestToolboxTasksConfigKey(t *testing.T) {
	jobs := taskEntry(t)
	jobs["tasks"] = map[string]any{"detachAfter": "20ms", "minPollInterval": "10ms"}
	tb := open(t, config(t, map[string]entry{"jobs": jobs, "plain": taskEntry(t)}))
	file := filepath.Join(t.TempDir(), "never")
	args, err := json.Marshal(map[string]any{"until": file, "text": "x"})
	require.NoError(t, err)

	// Without the key the server makes no task: the tool answers at once.
	chunk := taskChunk(host.ToolCall{ID: "p1", Name: "plain__work", Arguments: args})
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "p1", Name: "plain__work", Content: "x"}, chunk.Blocks[0])

	// With it, the task is driven, and detaches after 20ms.
	chunk = taskChunk(host.ToolCall{ID: "j1", Name: "jobs__work", Arguments: args})
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	out := chunk.Blocks[0].(host.ToolResult)
	assert.Contains(t, out.Content, "still running")
	require.Len(t, tb.Plugin("jobs").DetachedTasks(), 1)
	assert.Empty(t, tb.Plugin("plain").DetachedTasks())
}
