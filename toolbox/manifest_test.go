package toolbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

func TestEntryDigestCoversNamesNotValues(t *testing.T) {
	base := func() *mcpconfig.Server {
		return &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "npx", Args: []string{"-y", "pkg"},
			Env: map[string]string{"TOKEN": "one"}, Headers: map[string]string{"Authorization": "Bearer one"}}
	}
	d := entryDigest(base())
	same := base()
	same.Env["TOKEN"], same.Headers["Authorization"] = "two", "Bearer two"
	same.Timeout, same.Lazy = 5, true
	assert.Equal(t, d, entryDigest(same), "values, timeouts and lazy are not the entry")
	for name, change := range map[string]func(*mcpconfig.Server){
		"command":     func(s *mcpconfig.Server) { s.Command = "node" },
		"args":        func(s *mcpconfig.Server) { s.Args = []string{"-y", "other"} },
		"url":         func(s *mcpconfig.Server) { s.URL = "https://h/mcp" },
		"env name":    func(s *mcpconfig.Server) { s.Env["OTHER"] = "" },
		"header name": func(s *mcpconfig.Server) { s.Headers["X-Key"] = "" },
		"type":        func(s *mcpconfig.Server) { s.Type = mcpconfig.TypeHTTP },
	} {
		s := base()
		change(s)
		assert.NotEqual(t, d, entryDigest(s), name)
	}
}

func TestToolDigestIgnoresKeyOrderAndSaysWhatChanged(t *testing.T) {
	a := &mcp.Tool{Name: "t", Description: "d", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}
	b := &mcp.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"properties":{"x":{"type":"string"}},"type":"object"}`)}
	assert.Equal(t, digestTool(a).Digest, digestTool(b).Digest)
	c := &mcp.Tool{Name: "t", Description: "other", Title: "T", InputSchema: a.InputSchema}
	assert.Equal(t, []string{"description", "title"}, changedParts(digestTool(a), digestTool(c)))
	d := &mcp.Tool{Name: "t", Description: "d", InputSchema: a.InputSchema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	assert.Equal(t, []string{"annotations"}, changedParts(digestTool(a), digestTool(d)))
}

func TestManifestWritesDoNotCorruptEachOther(t *testing.T) {
	dir := t.TempDir()
	sc := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "x"}
	var wg sync.WaitGroup
	for w := range 4 {
		store, err := openManifestStore(dir) // a store per toolbox: no shared lock
		require.NoError(t, err)
		wg.Go(func() {
			for i := range 25 {
				tools := []*mcp.Tool{{Name: "t", Description: string(rune('a' + (w+i)%26))}}
				mf := newManifest(sc, tools, map[string]toolDigest{"t": digestTool(tools[0])}, nil)
				assert.NoError(t, store.save(mf))
				got, err := store.load(sc)
				if assert.NoError(t, err) {
					assert.Len(t, got.Tools, 1)
				}
			}
		})
	}
	wg.Wait()
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, files, 1, "no temporary file left")
	fi, err := os.Stat(filepath.Join(dir, files[0].Name()))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestManifestOfAnotherEntryOrVersionIsRefused(t *testing.T) {
	dir := t.TempDir()
	store, err := openManifestStore(dir)
	require.NoError(t, err)
	a := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "x"}
	b := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "y"}
	_, err = store.load(a)
	require.ErrorIs(t, err, errNoManifest)
	require.NoError(t, store.save(newManifest(a, nil, nil, nil)))
	// b's file holding a's manifest, as a copied or renamed file would.
	raw, err := os.ReadFile(store.path(entryDigest(a)))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(store.path(entryDigest(b)), raw, 0o600))
	_, err = store.load(b)
	assert.ErrorContains(t, err, "written for another entry")
	require.NoError(t, os.WriteFile(store.path(entryDigest(a)), []byte(`{"version":99}`), 0o600))
	_, err = store.load(a)
	assert.ErrorContains(t, err, "version 99")
}
