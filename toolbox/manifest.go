package toolbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// manifestVersion is the layout of a manifest file; a file of another
// version is ignored.
const manifestVersion = 1

// manifest is one server's last tool list, kept on disk between processes:
// what a lazy server exposes before it starts, and the pins of
// [WithPinnedTools].
type manifest struct {
	Version int `json:"version"`
	// Server is the entry's name, for people reading the file.
	Server string `json:"server"`
	// Entry is the digest of the entry the list came from (see
	// entryDigest); a file whose Entry differs is not used.
	Entry string `json:"entry"`
	// ListedAt is when the server last listed these tools.
	ListedAt time.Time `json:"listedAt"`
	// TTLMs and CacheScope are the list's cache hints (SEP-2549), when
	// known: TTLMs is the smallest positive ttlMs of its tools/list pages;
	// a lazy server whose manifest is older than it is started at Open to
	// list again (see manifest.expired). CacheScope is the list's
	// cacheScope ("private", "public", or "" when the server gave none).
	TTLMs      int64  `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	// Tools are the definitions as the server sent them, sorted by name.
	Tools []*mcp.Tool `json:"tools"`
	// Digests holds each listed tool's digest, by the tool's own name
	// (without its parts: only pins need those).
	Digests map[string]toolDigest `json:"digests"`
	// Pins are the tools trusted on first use or by AcceptTools, by name;
	// nil when nothing is pinned.
	Pins map[string]toolDigest `json:"pins,omitempty"`
}

// expired reports whether the list's ttlMs has passed since it was
// listed: its tools are then not trusted until the server lists again.
func (mf *manifest) expired(now time.Time) bool {
	return mf.TTLMs > 0 && now.Sub(mf.ListedAt) > time.Duration(mf.TTLMs)*time.Millisecond
}

// toolDigest is a digest of the parts of a tool a user trusts: one over
// all of them, and one per part, so that a change can say what changed.
type toolDigest struct {
	Digest string            `json:"digest"`
	Parts  map[string]string `json:"parts,omitempty"`
}

// pinnedParts are the members of a tool's JSON that a pin covers.
var pinnedParts = []string{"annotations", "description", "inputSchema", "outputSchema", "title"}

// digestTool digests tool's pinned parts. Each part is decoded and encoded
// again, so that key order and spacing do not count as a change.
func digestTool(tool *mcp.Tool) toolDigest {
	raw, err := json.Marshal(tool)
	var members map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &members)
	}
	d := toolDigest{Parts: make(map[string]string, len(pinnedParts))}
	all := sha256.New()
	for _, part := range pinnedParts {
		var canonical []byte
		if v, ok := members[part]; ok && err == nil {
			var x any
			if json.Unmarshal(v, &x) == nil {
				canonical, _ = json.Marshal(x)
			}
		}
		sum := sha256.Sum256(canonical)
		d.Parts[part] = hex.EncodeToString(sum[:])
		fmt.Fprintf(all, "%s=%x\n", part, sum)
	}
	d.Digest = hex.EncodeToString(all.Sum(nil))
	return d
}

// changedParts names, sorted, the parts of now that differ from pin.
func changedParts(pin, now toolDigest) []string {
	var out []string
	for _, part := range pinnedParts {
		if pin.Parts[part] != now.Parts[part] {
			out = append(out, part)
		}
	}
	return out
}

// entryDigest identifies a server's entry: its type, command, args, url and
// the names (never the values) of its env variables and headers. A
// manifest is kept under it, so that an entry that now runs another
// command does not use the old one's tools.
func entryDigest(sc *mcpconfig.Server) string {
	key := struct {
		Type    string   `json:"type"`
		Command string   `json:"command,omitempty"`
		Args    []string `json:"args,omitempty"`
		URL     string   `json:"url,omitempty"`
		Env     []string `json:"env,omitempty"`
		Headers []string `json:"headers,omitempty"`
	}{sc.Type, sc.Command, sc.Args, sc.URL, slices.Sorted(maps.Keys(sc.Env)), slices.Sorted(maps.Keys(sc.Headers))}
	raw, _ := json.Marshal(key)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// manifestStore is the directory of manifests, one file per entry.
type manifestStore struct {
	dir string
	mu  sync.Mutex // one write at a time from this toolbox
}

// DefaultManifestDir is where manifests are kept when a server is lazy or
// tools are pinned and [WithManifestDir] names no directory:
// os.UserCacheDir()/mcpconnector.
func DefaultManifestDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcpconnector"), nil
}

// openManifestStore creates dir (mode 0700) if it is missing.
func openManifestStore(dir string) (*manifestStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &manifestStore{dir: dir}, nil
}

// path is the file of the entry with digest entry.
func (m *manifestStore) path(entry string) string {
	return filepath.Join(m.dir, entry[:32]+".json")
}

// errNoManifest means no manifest is kept for the entry.
var errNoManifest = errors.New("toolbox: no manifest")

// load reads the manifest of sc. A missing file is errNoManifest; an
// unreadable, malformed or foreign one (another version or entry) is an
// error the caller logs and ignores.
func (m *manifestStore) load(sc *mcpconfig.Server) (*manifest, error) {
	entry := entryDigest(sc)
	raw, err := os.ReadFile(m.path(entry))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoManifest
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		manifest
		Tools []storedTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("toolbox: manifest %s: %w", m.path(entry), err)
	}
	mf := file.manifest
	mf.Tools = make([]*mcp.Tool, len(file.Tools))
	for i, st := range file.Tools {
		mf.Tools[i] = st.tool()
	}
	switch {
	case mf.Version != manifestVersion:
		return nil, fmt.Errorf("toolbox: manifest %s: version %d, want %d", m.path(entry), mf.Version, manifestVersion)
	case mf.Entry != entry:
		return nil, fmt.Errorf("toolbox: manifest %s: written for another entry", m.path(entry))
	}
	for _, tool := range mf.Tools {
		if tool.Name == "" {
			return nil, fmt.Errorf("toolbox: manifest %s: a tool without a name", m.path(entry))
		}
	}
	return &mf, nil
}

// storedTool is a tool as a manifest keeps it, read without decoding its
// schemas: a lazy server's tools are published from the manifest as they
// are, and ~20 servers' schemas decoded into maps would cost most of Open.
type storedTool struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

func (st storedTool) tool() *mcp.Tool {
	t := &mcp.Tool{Name: st.Name, Title: st.Title, Description: st.Description, Annotations: st.Annotations}
	if len(st.InputSchema) > 0 {
		t.InputSchema = st.InputSchema
	}
	if len(st.OutputSchema) > 0 {
		t.OutputSchema = st.OutputSchema
	}
	return t
}

// save writes mf atomically, mode 0600: a temporary file in the same
// directory, synced, then renamed over the old one, so that a reader (or
// another toolbox writing the same file) never sees half a file.
func (m *manifestStore) save(mf *manifest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Compact: reading it back is most of a lazy Open.
	listed := *mf
	listed.Digests = make(map[string]toolDigest, len(mf.Digests))
	for name, d := range mf.Digests {
		listed.Digests[name] = toolDigest{Digest: d.Digest}
	}
	raw, err := json.Marshal(&listed)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(m.dir, ".manifest-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.Write(raw); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Rename(tmp, m.path(mf.Entry))
	return err
}

// newManifest is the manifest of sc listing tools now, with prev's pins.
func newManifest(sc *mcpconfig.Server, tools []*mcp.Tool, digests map[string]toolDigest, pins map[string]toolDigest) *manifest {
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b *mcp.Tool) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return &manifest{Version: manifestVersion, Server: sc.Name, Entry: entryDigest(sc), ListedAt: time.Now().UTC(),
		Tools: sorted, Digests: digests, Pins: pins}
}
