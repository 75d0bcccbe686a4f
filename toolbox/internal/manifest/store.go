package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// Store is a directory of manifests, one file per entry.
type Store struct {
	dir string
	mu  sync.Mutex // one write at a time from this store
}

// Open opens the store in dir, creating dir (mode 0700) if it is missing.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Store{dir: dir}, nil
}

// path is the file of the entry with digest entry.
func (m *Store) path(entry string) string {
	return filepath.Join(m.dir, entry[:32]+".json")
}

// ErrNone means no manifest is kept for the entry.
var ErrNone = errors.New("toolbox: no manifest")

// Load reads the manifest of sc. A missing file is [ErrNone]; an
// unreadable, malformed or foreign one (another version or entry) is an
// error the caller logs and ignores.
func (m *Store) Load(sc *mcpconfig.Server) (*Manifest, error) {
	entry := EntryDigest(sc)
	raw, err := os.ReadFile(m.path(entry))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNone
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Manifest
		Tools []storedTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("toolbox: manifest %s: %w", m.path(entry), err)
	}
	mf := file.Manifest
	mf.Tools = make([]*mcp.Tool, len(file.Tools))
	for i, st := range file.Tools {
		mf.Tools[i] = st.tool()
	}
	switch {
	case mf.Version != Version:
		return nil, fmt.Errorf("toolbox: manifest %s: version %d, want %d", m.path(entry), mf.Version, Version)
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

// Save writes mf atomically, mode 0600: a temporary file in the same
// directory, synced, then renamed over the old one, so that a reader (or
// another store writing the same file) never sees half a file. Its list's
// digests are written without their parts.
func (m *Store) Save(mf *Manifest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Compact: reading it back is most of a lazy Open.
	listed := *mf
	listed.Digests = make(map[string]Digest, len(mf.Digests))
	for name, d := range mf.Digests {
		listed.Digests[name] = Digest{Digest: d.Digest}
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
