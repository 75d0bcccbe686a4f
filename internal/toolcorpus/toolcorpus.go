package toolcorpus

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is one real server's listing: its tools as it listed them.
type Server struct {
	// Name is the file's name without .json, used as the server's name in
	// an mcp.json.
	Name string `json:"server"`
	// Package and Version say which published package listed them.
	Package string `json:"package"`
	Version string `json:"version"`
	// Instructions is what the server told its client at start, if any.
	Instructions string      `json:"instructions"`
	Tools        []*mcp.Tool `json:"tools"`
}

// Task is one task phrasing, as a user would ask, with the exposed name of
// the tool it needs (the server's name, "__", the tool's).
type Task struct {
	Task string `json:"task"`
	Tool string `json:"tool"`
}

// Dir is the directory of the tool lists, found from this file's place in
// the module so that any package's tests can read it.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "toolbox", "testdata", "tools")
}

// Load reads every listing, sorted by server name.
func Load() ([]Server, error) {
	files, err := filepath.Glob(filepath.Join(Dir(), "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Server
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s Server
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("toolcorpus: %s: %w", f, err)
		}
		s.Name = strings.TrimSuffix(filepath.Base(f), ".json")
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("toolcorpus: no tool lists in %s", Dir())
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Tasks reads the task phrasings of the corpus (tasks.json), the ones the
// search was tuned with.
func Tasks() ([]Task, error) { return readTasks("tasks.json") }

// HeldOutTasks reads the phrasings written after the search was last tuned
// (tasks_heldout.json), to tell how much of its recall is fitted to Tasks.
func HeldOutTasks() ([]Task, error) { return readTasks("tasks_heldout.json") }

func readTasks(file string) ([]Task, error) {
	b, err := os.ReadFile(filepath.Join(Dir(), "..", file))
	if err != nil {
		return nil, err
	}
	var out []Task
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("toolcorpus: %s: %w", file, err)
	}
	return out, nil
}

// NewServer serves s's tools, unchanged, with its instructions. Each call
// answers "<tool> called with <arguments>".
func NewServer(s Server) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.Name, Version: s.Version}, &mcp.ServerOptions{Instructions: s.Instructions})
	for _, tool := range s.Tools {
		name := tool.Name
		srv.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: fmt.Sprintf("%s called with %s", name, req.Params.Arguments),
			}}}, nil
		})
	}
	return srv
}

// Count is how many tools the servers have together.
func Count(servers []Server) int {
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	return n
}
