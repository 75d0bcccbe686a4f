package interop

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// legacyRow is the first of legacyServers() of kind k.
func legacyRow(t *testing.T, k legacyKind) legacyServer {
	for _, s := range legacyServers() {
		if s.Kind == k {
			return s
		}
	}
	t.Fatalf("no legacy server of kind %s", k)
	return legacyServer{}
}

// The 2024-11-05 HTTP+SSE transport (transport.SSE) with
// plugin.WithLegacyFallback: the TypeScript SDK v1's HTTP+SSE server is
// initialized at an older revision, lists its tools and answers a call.
func TestLegacySSEWithTheFallback(t *testing.T) {
	r := startLegacy(t, legacyRow(t, legacySSE))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.SSE{URL: r.URL, Label: r.Server.Row()}, plugin.WithLegacyFallback())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })

	assert.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion(), "an older revision")
	var names []string
	for _, tool := range p.Tools() {
		names = append(names, tool.Name)
	}
	require.Contains(t, names, r.Server.Tool)
	res, err := p.CallTool(ctx, r.Server.Tool, r.Server.Args).Await(ctx)
	require.NoError(t, err)
	require.False(t, res.IsError, plugin.RenderResult(res))
	assert.Contains(t, plugin.RenderResult(res), r.Want)
	require.NoError(t, p.Close())
}

// Without the option, transport.SSE is refused at once as NotSupported,
// naming the option, and nothing reaches the server.
func TestLegacySSEWithoutTheFallbackIsRefused(t *testing.T) {
	r := startLegacy(t, legacyRow(t, legacySSE))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.SSE{URL: r.URL, Label: r.Server.Row()})
	require.Nil(t, p)
	require.ErrorIs(t, err, plugin.ErrNotSupported)
	assert.Contains(t, err.Error(), "plugin.WithLegacyFallback")
	r.Stop()
	assert.Zero(t, r.Received("initialize"))
	assert.Zero(t, r.Received("server/discover"))
}

// A config file's "legacyFallback": true starts that server at an older
// revision through the toolbox (over stdio, and over HTTP+SSE with "type":
// "sse"); toolbox.ProtocolVersion says which. An "sse" entry without the key
// is refused, the error naming it, and a stdio one without it fails with
// plugin.ErrProtocolVersion, as before.
func TestLegacyToolboxConfigKey(t *testing.T) {
	stdio := startLegacy(t, legacyRow(t, legacyStdio))
	sse := startLegacy(t, legacyRow(t, legacySSE))
	env := map[string]string{}
	for _, kv := range stdio.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	entry := func(legacy bool) map[string]any {
		return map[string]any{"command": stdio.argv[0], "args": stdio.argv[1:], "env": env, "cwd": stdio.Dir, "legacyFallback": legacy}
	}
	file, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"old":      entry(true),
		"plain":    entry(false),
		"sse":      map[string]any{"type": "sse", "url": sse.URL, "legacyFallback": true},
		"sseplain": map[string]any{"type": "sse", "url": sse.URL},
	}})
	require.NoError(t, err)
	cfg, err := mcpconfig.Parse(file)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })

	st := tb.Status()
	for _, name := range []string{"old", "sse"} {
		require.Equal(t, actors.Ready, st[name].State, "%s: %v", name, st[name].LastError)
		assert.Contains(t, actors.LegacyRevisions(), tb.ProtocolVersion(name), name)
	}
	assert.Equal(t, actors.Failed, st["sseplain"].State)
	require.ErrorIs(t, st["sseplain"].LastError, plugin.ErrNotSupported)
	assert.ErrorContains(t, st["sseplain"].LastError, `needs "legacyFallback": true`)
	assert.NotEqual(t, actors.Ready, st["plain"].State)
	assert.ErrorIs(t, st["plain"].LastError, plugin.ErrProtocolVersion)
	assert.Empty(t, tb.ProtocolVersion("plain"))

	for _, name := range []string{"old", "sse"} {
		row := stdio
		if name == "sse" {
			row = sse
		}
		res, err := tb.CallTool(ctx, name+"__"+row.Server.Tool, row.Server.Args).Await(ctx)
		require.NoError(t, err, name)
		require.False(t, res.IsError, plugin.RenderResult(res))
		assert.Contains(t, plugin.RenderResult(res), row.Want, name)
	}
	require.NoError(t, tb.Close())
}

// plugin.WithLegacyFallback among a toolbox's plugin options gives every
// server the fallback, an "sse" entry without the key included.
func TestLegacyToolboxOption(t *testing.T) {
	sse := startLegacy(t, legacyRow(t, legacySSE))
	file, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"sse": map[string]any{"type": "sse", "url": sse.URL}}})
	require.NoError(t, err)
	cfg, err := mcpconfig.Parse(file)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithPluginOptions(plugin.WithLegacyFallback()), toolbox.WithStrict())
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })
	assert.Contains(t, actors.LegacyRevisions(), tb.ProtocolVersion("sse"))
	res, err := tb.CallTool(ctx, "sse__"+sse.Server.Tool, sse.Server.Args).Await(ctx)
	require.NoError(t, err)
	assert.Contains(t, plugin.RenderResult(res), sse.Want)
	require.NoError(t, tb.Close())
}
