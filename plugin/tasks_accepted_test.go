package plugin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// checkAccepted checks the log of an accepted-dialect server: every
// request declared the extension, none was refused, no tasks/* request
// carried a requestState (the server gave none), and over HTTP each named
// its task in Mcp-Name.
func (s taskServer) checkAccepted(t *testing.T) []taskserver.Request {
	t.Helper()
	reqs := s.requests(t)
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		assert.True(t, r.Declared, "%s declares the extension", r.Method)
		assert.Empty(t, r.Refused, "%s was refused", r.Method)
		if strings.HasPrefix(r.Method, "tasks/") {
			assert.Empty(t, r.RequestState, "%s: no requestState was given, none is sent", r.Method)
			if s.http != nil {
				assert.Equal(t, r.TaskID, r.McpName, "%s: Mcp-Name is the task id", r.Method)
			}
		}
	}
	return reqs
}

// A server that speaks the extension as accepted is driven as one that
// speaks its draft: polled to the end, its ttlMs read (0: expired at once).
func TestTaskOfTheAcceptedExtension(t *testing.T) {
	for name, start := range taskServers(t, taskserver.FlagAccepted) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))
			// Bounded, so that a task never seen to end fails the test.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := callWork(ctx, p, map[string]any{"polls": 2, "text": "accepted"})
			require.NoError(t, err)
			assert.Equal(t, "accepted", plugin.RenderResult(res))

			_, err = callWork(ctx, p, map[string]any{"outcome": "never", "ttl": 0})
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), "time to live of 0s passed", "ttlMs 0 read")
			reqs := s.checkAccepted(t)
			assert.Equal(t, 3, count(reqs, "tasks/get"), "three polls of the first task, none of the expired one")
		})
	}
}

// A task of an accepted-dialect server that notifies ends with its
// notifications/tasks, which the client asked for on a subscriptions/listen
// stream of the task's (the only place such a server sends them), with no
// poll: the server's pollIntervalMs of ten minutes is honoured while the
// plugin's default would poll every 50 ms. Once the call is over its
// stream is closed.
func TestTaskOfTheAcceptedExtensionNotified(t *testing.T) {
	for name, start := range taskServers(t, taskserver.FlagAccepted, taskserver.FlagNotify) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{DefaultPollInterval: 50 * time.Millisecond, MaxPollInterval: time.Hour}))
			// Bounded, so that a notification missed fails the test, not hangs it.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			f := p.CallTool(ctx, "work", map[string]any{"interval": 600000, "text": "notified"})
			require.Eventually(t, func() bool { return count(s.requests(t), "subscriptions/listen") == 1 }, 30*time.Second, 5*time.Millisecond,
				"the task is made, and its notifications asked for")
			assert.Equal(t, "finished 1", callText(t, p, "finish", nil))
			res, err := f.Await(ctx)
			require.NoError(t, err)
			assert.Equal(t, "notified", plugin.RenderResult(res))
			reqs := s.checkAccepted(t)
			assert.Zero(t, count(reqs, "tasks/get"), "no poll was due, none was sent")
			assert.Len(t, taskIDs(reqs), 1, "the stream listens for the one task")
			if s.http != nil {
				require.Eventually(t, func() bool { return s.http.Listening() == 0 }, 30*time.Second, 5*time.Millisecond, "the stream is closed")
			}
		})
	}
}
