//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// countServer serves the count server over loopback HTTP, in the variant
// last given to set (see countserver.VariantEnv), and counts the
// server/discover requests it gets: one per connection made to it.
func countServer(t *testing.T) (url string, discovers *atomic.Int64, set func(variant string)) {
	t.Helper()
	discovers = &atomic.Int64{}
	handlers := map[string]http.Handler{}
	for _, v := range []string{"1", "2", "3"} {
		handlers[v] = testserver.NewHTTPHandler(countserver.NewServer(v))
	}
	var variant atomic.Value
	variant.Store("1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			discovers.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		handlers[variant.Load().(string)].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, discovers, func(v string) { variant.Store(v) }
}

// A lazy server of a clustered toolbox: with a manifest its grain is not
// activated at Open, only by the first call, wherever the lookup puts it;
// pins hold out a changed tool as in a local toolbox.
func TestLazyGrainIsActivatedOnFirstCall(t *testing.T) {
	url, discovers, _ := countServer(t)
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"count": {Name: "count", Type: mcpconfig.TypeHTTP, URL: url, Lazy: true},
	}}
	dir := t.TempDir()
	opts := []toolbox.Option{toolbox.WithManifestDir(dir), toolbox.WithPinnedTools()}

	// The first cluster learns the tools (no manifest yet) and goes away.
	first := startMembers(t, 1, cfg)
	tb, err := grid.OpenToolbox(context.Background(), first[0], cfg, opts...)
	require.NoError(t, err)
	assert.True(t, tb.HasTool("count__echo"))
	require.NoError(t, tb.Close())
	shutdown(first...)
	require.EqualValues(t, 1, discovers.Load())

	// A new cluster: Open activates no grain.
	members := startMembers(t, 2, cfg)
	tb, err = grid.OpenToolbox(context.Background(), members[0], cfg, opts...)
	require.NoError(t, err)
	defer tb.Close()
	assert.EqualValues(t, 1, discovers.Load(), "no grain activated at Open")
	assert.Equal(t, actors.NotStarted, tb.Status()["count"].State)
	assert.True(t, tb.HasTool("count__add"), "tools from the manifest")

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "count__add", Arguments: []byte(`{"a":2,"b":3}`)}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "count__add", Content: "5"}, chunk.Blocks[0])
	assert.EqualValues(t, 2, discovers.Load(), "the first call activated the grain")
	assert.Equal(t, actors.Ready, tb.Status()["count"].State)
	hosting, _ := hostOf(t, members, "count")
	assert.NotNil(t, hosting)
}

// A clustered toolbox pins as a local one does: a tool changed since its
// pin is held out, and a call to it is denied.
func TestPinnedToolsOfGrains(t *testing.T) {
	url, _, set := countServer(t)
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{"count": {Name: "count", Type: mcpconfig.TypeHTTP, URL: url}}}
	opts := []toolbox.Option{toolbox.WithManifestDir(t.TempDir()), toolbox.WithPinnedTools()}
	local, err := toolbox.Open(context.Background(), cfg, opts...)
	require.NoError(t, err)
	require.NoError(t, local.Close())

	set("2") // echo's description changes
	members := startMembers(t, 1, cfg)
	tb, err := grid.OpenToolbox(context.Background(), members[0], cfg, opts...)
	require.NoError(t, err)
	defer tb.Close()
	assert.False(t, tb.HasTool("count__echo"))
	assert.True(t, tb.HasTool("count__add"))
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "count__echo", Arguments: []byte(`{"text":"x"}`)}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "changed since it was pinned (description)")
	require.NoError(t, tb.AcceptTools("count"))
	assert.True(t, tb.HasTool("count__echo"))
}
