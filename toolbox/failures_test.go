package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// Servers that speak only older revisions are each started once: Open
// returns with them failed for that reason, in the toolbox's status too,
// and nothing starts them again until the host asks.
func TestLegacyOnlyServersAreStartedOnce(t *testing.T) {
	dir := t.TempDir()
	servers := map[string]entry{"alpha": stdioEntry(t)}
	names := []string{"fs", "git", "memory", "fetch", "time"}
	for _, name := range names {
		cmd, args := testserver.Command(t, "legacy", filepath.Join(dir, name))
		servers[name] = entry{"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
	}
	tb := open(t, config(t, servers), fast)
	assert.Equal(t, "3", call(t, tb, "alpha__add", map[string]any{"a": 1, "b": 2}))
	for _, name := range names {
		st := tb.Status()[name]
		assert.Equal(t, actors.Failed, st.State, name)
		require.ErrorIs(t, st.LastError, plugin.ErrProtocolVersion, name)
		assert.Contains(t, st.LastError.Error(), `server "`+name+`"`)
		assert.Zero(t, st.Restarts, name)
	}
	// Asked again, one of them is started once more.
	require.ErrorIs(t, tb.Plugin("fs").Reconnect(context.Background()), plugin.ErrProtocolVersion)
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		want := 1
		if name == "fs" {
			want = 2
		}
		assert.Equal(t, want, strings.Count(string(b), "server/discover"), "%s was started %d times", name, want)
	}
}

// Open returns within the connect timeout against a server that never
// answers (and ignores its closed stdin), with that server failed for
// that reason.
func TestOpenIsBoundedByTheConnectTimeout(t *testing.T) {
	cfg := config(t, map[string]entry{
		"alpha": stdioEntry(t),
		"mute":  {"command": "sh", "args": []string{"-c", "exec sleep 60"}},
	})
	// alpha must come up: a race-built child on a busy machine can take
	// seconds, so its own connect timeout (which wins over the plugin
	// options') is generous; only mute's 300ms is meant to expire.
	cfg.Servers["alpha"].ConnectTimeout = time.Minute
	start := time.Now()
	tb := open(t, cfg,
		// No retry before the status is read (see below).
		toolbox.WithPluginOptions(plugin.WithBackoff(time.Minute, time.Minute)),
		toolbox.WithPluginOptions(plugin.WithConnectTimeout(300*time.Millisecond)))
	t.Logf("Open returned after %s", time.Since(start))
	st := tb.Status()["mute"]
	assert.Equal(t, actors.Failed, st.State)
	require.ErrorIs(t, st.LastError, context.DeadlineExceeded)
	assert.Contains(t, st.LastError.Error(), "connect timeout of 300ms")
	assert.Equal(t, "3", call(t, tb, "alpha__add", map[string]any{"a": 1, "b": 2}))
}

// Through a toolbox, every progress sent before the result reaches
// WithProgress before the call returns.
func TestProgressThroughAToolboxArrivesBeforeTheResult(t *testing.T) {
	cmd, args := testserver.ControlsCommand(t, testserver.ControlsOptions{})
	var mu sync.Mutex
	seen := map[string]int{}
	tb := open(t, config(t, map[string]entry{
		"ctl": {"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	}), toolbox.WithPluginOptions(plugin.WithProgress(func(p plugin.Progress) {
		mu.Lock()
		seen[p.CallID]++
		mu.Unlock()
	})))
	for i := range 20 {
		id := fmt.Sprintf("call-%d", i)
		chunk := &host.Chunk{Blocks: []host.Block{
			host.ToolCall{ID: id, Name: "ctl__progress", Arguments: json.RawMessage(`{"steps":3,"ms":0}`)},
		}}
		require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
		require.Equal(t, "done", chunk.Blocks[0].(host.ToolResult).Content)
		mu.Lock()
		n := seen[id]
		mu.Unlock()
		require.Equal(t, 3, n, "call %d: every step before the result", i)
	}
}

// The host's plugin options win over the toolbox's defaults: a connect
// timeout given through WithPluginOptions bounds the server's connection,
// not the toolbox's own default.
func TestHostPluginOptionsWinOverTheToolboxDefaults(t *testing.T) {
	tb := open(t, config(t, map[string]entry{
		"alpha": stdioEntry(t),
		"mute":  {"command": "sh", "args": []string{"-c", "exec sleep 60"}},
	}),
		// No retry before the status is read: with a short backoff, a loaded
		// machine could read the retry's connecting instead (as above).
		toolbox.WithPluginOptions(plugin.WithBackoff(time.Minute, time.Minute)),
		toolbox.WithPluginOptions(plugin.WithConnectTimeout(300*time.Millisecond)))
	st := tb.Status()["mute"]
	assert.Equal(t, actors.Failed, st.State)
	require.ErrorIs(t, st.LastError, context.DeadlineExceeded)
	assert.Contains(t, st.LastError.Error(), "connect timeout of 300ms")
}

// An option that has no effect on a server's plugin fails Open with
// ErrValidation naming it, strict or not.
func TestAPluginOptionWithNoEffectFailsOpen(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": stdioEntry(t)})
	for name, opt := range map[string]plugin.Option{
		"WithLossGrace":      plugin.WithLossGrace(time.Second), // a facade's
		"WithoutSupervision": plugin.WithoutSupervision(),       // the toolbox's own, for each server
		"WithRetryConnect":   plugin.WithRetryConnect(),
	} {
		tb, err := toolbox.Open(context.Background(), cfg, fast, toolbox.WithPluginOptions(plugin.WithLogger(nil), opt))
		if tb != nil {
			_ = tb.Close()
		}
		require.ErrorIs(t, err, plugin.ErrValidation, name)
		assert.Contains(t, err.Error(), "plugin."+name)
	}
}
