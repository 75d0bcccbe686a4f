package toolbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// hintedServer is a go-sdk server on loopback HTTP whose tools/list says
// ttlMs: one hour; it has tool "a", and "b" too once grown. lists counts
// its tools/list answers.
type hintedServer struct {
	*httptest.Server
	lists atomic.Int32
	grown atomic.Bool
}

func newHintedServer(t *testing.T) *hintedServer {
	hs := &hintedServer{}
	mk := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "hinted", Version: "1"}, &mcp.ServerOptions{
			SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
				if _, ok := req.(*mcp.ListToolsRequest); ok {
					hs.lists.Add(1)
					c.TTLMs = int(time.Hour / time.Millisecond)
					c.CacheScope = "private"
				}
			},
		})
		names := []string{"a"}
		if hs.grown.Load() {
			names = append(names, "b")
		}
		for _, n := range names {
			s.AddTool(&mcp.Tool{Name: n, InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: n}}}, nil
				})
		}
		return s
	}
	hs.Server = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mk() },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	return hs
}

func TestALazyManifestOlderThanItsTTLIsListedAgainAtOpen(t *testing.T) {
	hs := newHintedServer(t)
	dir := t.TempDir()
	cfg := config(t, map[string]entry{"h": {"type": "http", "url": hs.URL, "lazy": true}})

	// No manifest: started at Open; the manifest keeps the ttl.
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	var mf map[string]any
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &mf))
	assert.EqualValues(t, time.Hour/time.Millisecond, mf["ttlMs"])
	assert.Equal(t, "private", mf["cacheScope"], "the manifest keeps the list's cacheScope")
	lists := hs.lists.Load()
	require.Positive(t, lists)

	// Within its ttl: not started, its tools from the manifest.
	hs.grown.Store(true)
	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	assert.Equal(t, actors.NotStarted, tb.Status()["h"].State)
	assert.Equal(t, []string{"h__a"}, exposed(tb))
	assert.Equal(t, lists, hs.lists.Load())
	require.NoError(t, tb.Close())

	// Listed two hours ago, by the file: older than its ttl, so the server
	// is started at Open and lists again before its tools are exposed.
	mf["listedAt"] = time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339Nano)
	raw, err = json.Marshal(mf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(files[0], raw, 0o600))
	tb = open(t, cfg, toolbox.WithManifestDir(dir))
	assert.Equal(t, actors.Ready, tb.Status()["h"].State)
	assert.Greater(t, hs.lists.Load(), lists)
	assert.Equal(t, []string{"h__a", "h__b"}, exposed(tb), "the new list, not the manifest's")
	require.NoError(t, tb.Close())

	// Written again with the new list and time: the next Open trusts it.
	tb = open(t, cfg, toolbox.WithManifestDir(dir))
	assert.Equal(t, actors.NotStarted, tb.Status()["h"].State)
	assert.Equal(t, []string{"h__a", "h__b"}, exposed(tb))
}
