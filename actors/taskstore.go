package actors

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

// TaskRecord is a pending task (SEP-2663) as a [TaskStore] keeps it:
// enough to resume polling it from another connection or process.
type TaskRecord struct {
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

// TaskStore keeps the pending tasks of tool calls, so that a program that
// restarts can resume waiting on them. Its methods may be called from
// several goroutines at once, and by several connections sharing it.
type TaskStore interface {
	// Put keeps r, replacing the record of the same server and task id.
	Put(ctx context.Context, r TaskRecord) error
	// Delete forgets the record of server's task id; forgetting one that
	// is not kept is no error.
	Delete(ctx context.Context, server, id string) error
	// List returns every record kept, of every server.
	List(ctx context.Context) ([]TaskRecord, error)
}

// DirTaskStore is a [TaskStore] on local disk: one file per task in Dir,
// replaced whole on each Put (written, synced, renamed), so that a crash
// leaves either the old record or the new one.
type DirTaskStore struct {
	// Dir is the directory; Put creates it (mode 0700).
	Dir string
}

const recordExt = ".task.json"

func (s DirTaskStore) file(server, id string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + id))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+recordExt)
}

// Put writes r's file.
func (s DirTaskStore) Put(_ context.Context, r TaskRecord) error {
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
func (s DirTaskStore) Delete(_ context.Context, server, id string) error {
	err := os.Remove(s.file(server, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// List reads every record's file; a missing Dir holds none.
func (s DirTaskStore) List(_ context.Context) ([]TaskRecord, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []TaskRecord
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
		var r TaskRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("task store: %s: %w", e.Name(), err)
		}
		out = append(out, r)
	}
	return out, nil
}
