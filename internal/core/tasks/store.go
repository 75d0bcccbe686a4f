package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuca-go/mcpconnector/messages"
)

// Record is a pending task (SEP-2663) as a [Store] keeps it (plugin.TaskRecord):
// enough to resume polling it from another connection or process.
type Record struct {
	// Server names the server the task runs on: its transport's label
	// (transport.StreamableHTTP.Label, else its URL with secrets
	// redacted), so that one store serves many servers.
	Server string `json:"server"`
	// Tool is the tool whose call became the task.
	Tool string `json:"tool"`
	// Task is the task's latest description; its RequestState is the one
	// to echo next.
	Task messages.TaskState `json:"task"`
}

// Store (plugin.TaskStore) keeps the pending tasks of tool calls, so that a program that
// restarts can resume waiting on them. Its methods may be called from
// several goroutines at once, and by several connections sharing it.
type Store interface {
	// Put keeps r, replacing the record of the same server and task id.
	Put(ctx context.Context, r Record) error
	// Delete forgets the record of server's task id; forgetting one that
	// is not kept is no error.
	Delete(ctx context.Context, server, id string) error
	// List returns every record kept, of every server.
	List(ctx context.Context) ([]Record, error)
}

// DirStore (plugin.DirTaskStore) is a [Store] on local disk: one file per task in Dir,
// replaced whole on each Put (written, synced, renamed), so that a crash
// leaves either the old record or the new one.
type DirStore struct {
	// Dir is the directory; Put creates it (mode 0700).
	Dir string
}

const recordExt = ".task.json"

func (s DirStore) file(server, id string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + id))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+recordExt)
}

// Put writes r's file.
func (s DirStore) Put(_ context.Context, r Record) error {
	if r.Task.ID == "" {
		return errors.New("task store: a record needs a task id")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, "put-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), s.file(r.Server, r.Task.ID))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// Delete removes the record's file.
func (s DirStore) Delete(_ context.Context, server, id string) error {
	err := os.Remove(s.file(server, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// List reads every record's file; a missing Dir holds none.
func (s DirStore) List(_ context.Context) ([]Record, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), recordExt) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.Dir, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("task store: %s: %w", e.Name(), err)
		}
		out = append(out, r)
	}
	return out, nil
}
