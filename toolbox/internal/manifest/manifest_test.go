package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

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
	d := EntryDigest(base())
	same := base()
	same.Env["TOKEN"], same.Headers["Authorization"] = "two", "Bearer two"
	same.Timeout, same.Lazy = 5, true
	assert.Equal(t, d, EntryDigest(same), "values, timeouts and lazy are not the entry")
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
		assert.NotEqual(t, d, EntryDigest(s), name)
	}
}

func TestToolDigestIgnoresKeyOrderAndSaysWhatChanged(t *testing.T) {
	a := &mcp.Tool{Name: "t", Description: "d", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}}
	b := &mcp.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"properties":{"x":{"type":"string"}},"type":"object"}`)}
	assert.Equal(t, DigestTool(a).Digest, DigestTool(b).Digest)
	c := &mcp.Tool{Name: "t", Description: "other", Title: "T", InputSchema: a.InputSchema}
	assert.Equal(t, []string{"description", "title"}, ChangedParts(DigestTool(a), DigestTool(c)))
	d := &mcp.Tool{Name: "t", Description: "d", InputSchema: a.InputSchema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	assert.Equal(t, []string{"annotations"}, ChangedParts(DigestTool(a), DigestTool(d)))
}

func TestManifestWritesDoNotCorruptEachOther(t *testing.T) {
	dir := t.TempDir()
	sc := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "x"}
	var wg sync.WaitGroup
	for w := range 4 {
		store, err := Open(dir) // a store per toolbox: no shared lock
		require.NoError(t, err)
		wg.Go(func() {
			for i := range 25 {
				tools := []*mcp.Tool{{Name: "t", Description: string(rune('a' + (w+i)%26))}}
				mf := New(sc, tools, map[string]Digest{"t": DigestTool(tools[0])}, nil)
				assert.NoError(t, store.Save(mf))
				got, err := store.Load(sc)
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
	store, err := Open(dir)
	require.NoError(t, err)
	a := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "x"}
	b := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "y"}
	_, err = store.Load(a)
	require.ErrorIs(t, err, ErrNone)
	require.NoError(t, store.Save(New(a, nil, nil, nil)))
	// b's file holding a's manifest, as a copied or renamed file would.
	raw, err := os.ReadFile(store.path(EntryDigest(a)))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(store.path(EntryDigest(b)), raw, 0o600))
	_, err = store.Load(b)
	assert.ErrorContains(t, err, "written for another entry")
	require.NoError(t, os.WriteFile(store.path(EntryDigest(a)), []byte(`{"version":99}`), 0o600))
	_, err = store.Load(a)
	assert.ErrorContains(t, err, "version 99")
}

func TestDigestsReadFromAManifestAreKeptUntilTheirPartsAreNeeded(t *testing.T) {
	a := &mcp.Tool{Name: "a", Description: "first"}
	b := &mcp.Tool{Name: "b", Description: "second"}
	// The digest a manifest keeps of a, without parts, and a wrong one:
	// Of must not digest a again.
	mf := &Manifest{Tools: []*mcp.Tool{a, b}, Digests: map[string]Digest{"a": {Digest: "kept"}}}
	c := DigestsOf(mf)
	assert.Equal(t, Digest{Digest: "kept"}, c.Of(a))
	assert.Equal(t, DigestTool(b), c.Of(b), "no digest kept: digested")
	full := c.Full(a)
	assert.Equal(t, DigestTool(a), full, "the parts are needed: digested again")
	assert.Equal(t, full, c.Of(a), "and kept")

	named := c.Named([]*mcp.Tool{b})
	assert.Equal(t, map[string]Digest{"b": DigestTool(b)}, named)
	assert.Len(t, c.m, 1, "a is no longer listed, and forgotten")

	var zero Digests
	assert.Equal(t, DigestTool(a), zero.Full(a), "the zero value digests")
}

func TestDefinitionsAreAsAPluginPublishesThem(t *testing.T) {
	mf := &Manifest{Tools: []*mcp.Tool{
		{Name: "raw", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "decoded", InputSchema: map[string]any{"type": "object"}},
		{Name: "none"},
	}}
	defs := mf.Definitions()
	require.Len(t, defs, 3)
	assert.Equal(t, "raw", defs[0].Name)
	assert.Equal(t, "d", defs[0].Description)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(defs[0].InputSchema))
	assert.JSONEq(t, `{"type":"object"}`, string(defs[1].InputSchema))
	assert.JSONEq(t, `{"type":"object"}`, string(defs[2].InputSchema), "no schema is an object's")
}

func TestUpdateWritesWhatChangedAndKeepsWhatWasReadFromTheManifest(t *testing.T) {
	sc := &mcpconfig.Server{Name: "a", Type: mcpconfig.TypeStdio, Command: "x"}
	tool := &mcp.Tool{Name: "t", Description: "d"}
	var c Digests
	real := Listing{Tools: []*mcp.Tool{tool}, Digests: c.Named([]*mcp.Tool{tool}), Real: true}

	first := Update(nil, sc, real, nil, false)
	require.NotNil(t, first, "no manifest yet: written")
	assert.Equal(t, EntryDigest(sc), first.Entry)
	assert.Nil(t, Update(first, sc, real, nil, false), "the same list: not written again")

	other := &mcp.Tool{Name: "t", Description: "changed"}
	changed := Listing{Tools: []*mcp.Tool{other}, Digests: c.Named([]*mcp.Tool{other}), Real: true}
	assert.NotNil(t, Update(first, sc, changed, nil, false), "a changed list is written")

	hinted := real
	hinted.TTL, hinted.CacheScope = time.Hour, "private"
	next := Update(first, sc, hinted, nil, false)
	require.NotNil(t, next, "new cache hints are written")
	assert.EqualValues(t, time.Hour/time.Millisecond, next.TTLMs)
	assert.Equal(t, "private", next.CacheScope)
	assert.Nil(t, Update(next, sc, hinted, nil, false), "fresh, within half its ttl")
	next.ListedAt = time.Now().Add(-31 * time.Minute)
	assert.NotNil(t, Update(next, sc, hinted, nil, false), "past half its ttl: written so that listedAt says when it was seen")

	// Read from the manifest (a lazy server not started): only pins write
	// it, and it keeps the manifest's list, listedAt and hints.
	read := Listing{Tools: next.Tools, Digests: next.Digests}
	assert.Nil(t, Update(next, sc, read, nil, false))
	pins := map[string]Digest{"t": DigestTool(tool)}
	pinned := Update(next, sc, read, pins, true)
	require.NotNil(t, pinned)
	assert.Equal(t, pins, pinned.Pins)
	assert.Equal(t, next.ListedAt, pinned.ListedAt)
	assert.Equal(t, next.TTLMs, pinned.TTLMs)
	assert.Equal(t, next.CacheScope, pinned.CacheScope)
	assert.Nil(t, Update(nil, sc, read, pins, true), "nothing to keep without a manifest or a real list")
}

func TestCompareSaysWhetherAToolIsNewOrWhatChanged(t *testing.T) {
	a := &mcp.Tool{Name: "a", Description: "first"}
	var c Digests
	pins := c.Pins([]*mcp.Tool{a})
	require.NotNil(t, pins["a"].Parts, "pins keep the parts")
	same, isNew, changed := c.Compare(pins, a)
	assert.True(t, same)
	assert.False(t, isNew)
	assert.Nil(t, changed)

	a2 := &mcp.Tool{Name: "a", Description: "first", Title: "A"}
	same, isNew, changed = c.Compare(pins, a2)
	assert.False(t, same)
	assert.False(t, isNew)
	assert.Equal(t, []string{"title"}, changed)

	same, isNew, _ = c.Compare(pins, &mcp.Tool{Name: "b"})
	assert.False(t, same)
	assert.True(t, isNew)
}
