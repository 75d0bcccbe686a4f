package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// reconnecting is a status handler that closes the channel it returns
// the first time the plugin is reconnecting.
func reconnecting() (plugin.Option, <-chan struct{}) {
	ch := make(chan struct{})
	seen := false
	return plugin.WithStatusHandler(func(s plugin.Status) {
		if s.State == actors.Reconnecting && !seen {
			seen = true
			close(ch)
		}
	}), ch
}

func TestServerRequestWaitsForReconnection(t *testing.T) {
	onReconnect, down := reconnecting()
	// The restart waits a while, so that the request arrives while the
	// supervisor reconnects; the default reconnection wait (10s) covers it.
	p := connect(t, testserver.Stdio(t), plugin.WithBackoff(300*time.Millisecond, 300*time.Millisecond), onReconnect)
	_, err := p.CallTool(t.Context(), "exit", nil).Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrInternal)
	<-down
	res, err := p.ListPrompts(t.Context(), "")
	require.NoError(t, err, "held by the supervisor, then sent on the new session")
	assert.Empty(t, res.Prompts)
	assert.GreaterOrEqual(t, p.Status().Restarts, 1)
}

func TestServerRequestReconnectWaitExpires(t *testing.T) {
	onReconnect, down := reconnecting()
	// The restart never comes within the test: the request's wait must expire.
	p := connect(t, testserver.Stdio(t), plugin.WithBackoff(time.Hour, time.Hour),
		plugin.WithReconnectWait(100*time.Millisecond), onReconnect)
	_, err := p.CallTool(t.Context(), "exit", nil).Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrInternal)
	<-down
	_, err = p.ReadResource(t.Context(), "file:///x")
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "WithReconnectWait")
	assert.Contains(t, err.Error(), `resources/read "file:///x"`)
}
