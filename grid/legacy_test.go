//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// legacyConfig is an mcp.json with one Streamable HTTP server, "old": a
// go-sdk server that serves only the revisions before 2026-07-28
// (internal/fixture/legacyserver), as the servers of the TypeScript SDK v1
// do. Its entry has "legacyFallback": true when fallback is set.
func legacyConfig(t *testing.T, fallback bool) *mcpconfig.Config {
	t.Helper()
	return &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"old": {Name: "old", Type: mcpconfig.TypeHTTP, URL: legacyserver.StartHTTP(t), LegacyFallback: fallback},
	}}
}

// A grain of a server whose entry says "legacyFallback": true initializes
// it at an older revision on its member; grid.Connect from another member
// calls it, and sees the revision.
func TestLegacyFallbackGrainConnect(t *testing.T) {
	members := startMembers(t, 2, legacyConfig(t, true))
	_, others := hostOf(t, members, "old")
	p := connect(t, others[0], "old")
	assert.Equal(t, actors.LegacyRevisions()[0], p.ProtocolVersion(), "the revision crossed the wire")
	assert.Equal(t, "echo: hi", callText(t, p, "echo", map[string]any{"text": "hi"}))

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"text":"hook"}`)}}}
	require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "echo", Content: "echo: hook"}, chunk.Blocks[0])
}

// grid.OpenToolbox over the same config: the server's tools are exposed and
// called through its grain on the member the cluster chose, and the
// toolbox names its revision.
func TestLegacyFallbackGridToolbox(t *testing.T) {
	cfg := legacyConfig(t, true)
	members := startMembers(t, 2, cfg)
	_, others := hostOf(t, members, "old")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb, err := grid.OpenToolbox(ctx, others[0], cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })
	assert.Equal(t, actors.LegacyRevisions()[0], tb.ProtocolVersion("old"))

	res, err := tb.CallTool(ctx, "old__echo", map[string]any{"text": "hi"}).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "echo: hi", plugin.RenderResult(res))
}

// Without the key the grain refuses the server as the plugin does: the
// default speaks 2026-07-28 only.
func TestLegacyServerRefusedByGrainWithoutTheKey(t *testing.T) {
	members := startMembers(t, 1, legacyConfig(t, false))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := grid.Connect(ctx, members[0], "old")
	require.ErrorIs(t, err, plugin.ErrProtocolVersion)
}

// The fallback for every server of a kind: grid.WithPluginOptions with
// plugin.WithLegacyFallback, the entry without the key.
func TestLegacyFallbackForEveryGrainOfAKind(t *testing.T) {
	members := startMembers(t, 2, legacyConfig(t, false), plugin.WithLegacyFallback())
	_, others := hostOf(t, members, "old")
	p := connect(t, others[0], "old")
	assert.Equal(t, actors.LegacyRevisions()[0], p.ProtocolVersion())
	assert.Equal(t, "5", callText(t, p, "add", map[string]any{"a": 2, "b": 3}))
}
