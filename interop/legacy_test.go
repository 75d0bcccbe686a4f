package interop

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// A server that speaks only 2025 revisions is refused at Connect, with a
// message naming the one revision this client speaks: the reference
// "everything" server, pinned in package.json, answers server/discover
// with an error and would negotiate 2025-11-25 through initialize, which
// the client never sends.
func TestLegacyOnlyServerIsRefusedNamingTheRevision(t *testing.T) {
	node, why := pinnedNode()
	if why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("needs Node.js: %s", why)
		}
		t.Skipf("needs Node.js: %s", why)
	}
	everything := filepath.Join(".cache", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	abs, err := filepath.Abs(everything)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.NewStdio(node, abs, "stdio"))
	require.Nil(t, p)
	t.Log(err)
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
	assert.Contains(t, err.Error(), "server/discover")
	assert.Contains(t, err.Error(), "this client speaks only MCP 2026-07-28")
}
