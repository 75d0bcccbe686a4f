package toolbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// gated is a server entry that starts the test server only once the file
// flag exists: until then its first connection is under way.
func gated(t *testing.T, flag string) entry {
	cmd, args := testserver.Command(t, "sdk")
	script := `while ! test -f "$1"; do sleep 0.02; done; shift; exec "$@"`
	return entry{"command": "sh", "args": append([]string{"-c", script, "sh", flag, cmd}, args...),
		"env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
}

// Open's ctx that ends before a server is ready: Open returns the toolbox
// with that server connecting, its tools absent and said to be down, and
// WaitReady waits until it is up.
func TestOpenWhoseCtxEndsFirstReturnsAToolboxStillConnecting(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "up")
	cfg := config(t, map[string]entry{"gate": gated(t, flag), "absent": {"command": "/nonexistent/mcp-server"}})
	cfg.Servers["gate"].ConnectTimeout = 5 * time.Minute // only ctx may end the wait

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tb, err := toolbox.Open(ctx, cfg)
	require.NoError(t, err, "ctx ends the wait, not Open")
	t.Cleanup(func() { _ = tb.Close() })
	assert.Equal(t, actors.Connecting, tb.Status()["gate"].State)
	assert.False(t, tb.HasTool("gate__add"))
	_, err = tb.CallTool(t.Context(), "gate__add", nil).Await(t.Context())
	require.ErrorIs(t, err, toolbox.ErrServerDown)
	assert.Contains(t, err.Error(), `server "gate" is down (connecting)`)

	// A WaitReady whose ctx ends first names the server still connecting.
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	err = tb.WaitReady(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), `server "gate" is not ready`)

	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	ctx, cancel = context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	err = tb.WaitReady(ctx)
	// gate is ready; absent, whose command does not exist, is failed and named.
	require.Error(t, err)
	assert.NotErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), `"gate"`)
	assert.Contains(t, err.Error(), `server "absent" is not ready`)
	assert.ErrorIs(t, err, plugin.ErrIO)
	assert.Equal(t, actors.Ready, tb.Status()["gate"].State)
	require.Eventually(t, func() bool { return tb.HasTool("gate__add") }, time.Minute, 5*time.Millisecond)
	assert.Equal(t, "3", call(t, tb, "gate__add", map[string]any{"a": 1, "b": 2}))
}

// A required server still connecting when Open's ctx ends fails Open, with
// ctx's error, and so does any server with WithStrict.
func TestOpenWhoseCtxEndsFirstFailsForARequiredServer(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "never")
	for _, strict := range []bool{false, true} {
		cfg := config(t, map[string]entry{"gate": gated(t, flag)})
		cfg.Servers["gate"].ConnectTimeout = 5 * time.Minute
		var opts []toolbox.Option
		if strict {
			opts = append(opts, toolbox.WithStrict())
		} else {
			cfg.Servers["gate"].Required = true
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		tb, err := toolbox.Open(ctx, cfg, opts...)
		require.Error(t, err, "strict %v", strict)
		assert.Nil(t, tb)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), `"gate"`)
	}
}

// WaitReady on a toolbox whose servers are all up answers nil.
func TestWaitReadyWhenEveryServerIsUp(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": httpEntry(t)}))
	require.NoError(t, tb.WaitReady(t.Context()))
}
