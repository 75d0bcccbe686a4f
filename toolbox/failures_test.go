package toolbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
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
		assert.Equal(t, plugin.StateFailed, st.State, name)
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
