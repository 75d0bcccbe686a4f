package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// notifyingStdio is the task server over stdio sending
// notifications/tasks/status (taskserver.FlagNotify).
func notifyingStdio(t *testing.T) taskServer {
	dir := t.TempDir()
	cmd, args := taskserver.Command(t, dir, taskserver.FlagNotify)
	s := transport.NewStdio(cmd, args...)
	s.Env = append(s.Env, testserver.FastExitEnv)
	return taskServer{tr: s, dir: dir}
}

// A task whose server notifies its completion ends with that notification,
// not with a poll: the server suggests polling every ten minutes, and the
// result arrives with no tasks/get sent.
func TestTaskCompletesOnItsNotification(t *testing.T) {
	leakCheck(t)
	s := notifyingStdio(t)
	p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{MaxPollInterval: time.Hour}))
	f := p.CallTool(t.Context(), "work", map[string]any{"interval": 600000, "text": "notified"})
	require.Eventually(t, func() bool { return count(s.requests(t), "tools/call") == 1 }, 30*time.Second, 5*time.Millisecond, "the task is made")
	assert.Equal(t, "finished 1", callText(t, p, "finish", nil))
	res, err := f.Await(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "notified", plugin.RenderResult(res))
	reqs := s.checkTaskRequests(t, true)
	assert.Zero(t, count(reqs, "tasks/get"), "no poll was due, none was sent")
	assert.Zero(t, count(reqs, "tasks/cancel"))
}

// Notifications that come with the polls' answers (over stdio before each
// answer, over Streamable HTTP on the tasks/get's event stream) change
// nothing: the task is polled to its end, every requestState accepted.
func TestTaskNotificationsBesidePolls(t *testing.T) {
	servers := map[string]func(t *testing.T) taskServer{
		"stdio": notifyingStdio,
		"http": func(t *testing.T) taskServer {
			dir := t.TempDir()
			h, err := taskserver.StartHTTP(dir, taskserver.FlagNotify)
			require.NoError(t, err)
			t.Cleanup(func() { _ = h.Stop() })
			return taskServer{tr: transport.StreamableHTTP{URL: h.URL}, dir: dir, http: h}
		},
	}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))
			res, err := callWork(t.Context(), p, map[string]any{"polls": 2, "text": "polled"})
			require.NoError(t, err)
			assert.Equal(t, "polled", plugin.RenderResult(res))
			res, err = callWork(t.Context(), p, map[string]any{"outcome": "fail"})
			require.Error(t, err, "a failure notified is the task's failure: %v", res)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			reqs := s.checkTaskRequests(t, true)
			assert.Equal(t, 3+2, count(reqs, "tasks/get"), "three polls, then two")
			assert.Zero(t, count(reqs, "tasks/cancel"))
		})
	}
}

// A notification that the task asks for input is answered at once, not at
// the next poll: the tasks/update goes out with no tasks/get sent.
func TestTaskInputOnItsNotification(t *testing.T) {
	leakCheck(t)
	s := notifyingStdio(t)
	asked := make(chan struct{}, 1)
	p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{MaxPollInterval: time.Hour}), plugin.WithInputRequired(plugin.InputHandlers{
		Elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- struct{}{}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f := p.CallTool(ctx, "work", map[string]any{"interval": 600000, "ask": true})
	require.Eventually(t, func() bool { return count(s.requests(t), "tools/call") == 1 }, 30*time.Second, 5*time.Millisecond, "the task is made")
	assert.Equal(t, "finished 1", callText(t, p, "finish", nil))
	<-asked
	require.Eventually(t, func() bool { return count(s.requests(t), "tasks/update") == 1 }, 30*time.Second, 5*time.Millisecond, "the answer is sent")
	assert.Zero(t, count(s.requests(t), "tasks/get"), "no poll was due, none was sent")
	cancel() // the task would wait for its next poll to show the answer taken
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	s.waitCancel(t)
	s.oneCancel(t)
}
