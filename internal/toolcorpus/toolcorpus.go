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

// FirstServers are the 11 servers of the corpus as it was when the
// one-tool phrasings were written and their targets set (189 tools,
// listed on 2026-12-01).
var FirstServers = []string{"chrome", "context7", "everything", "filesystem", "git", "github", "memory", "notion", "onepassword", "playwright", "thinking"}

// First keeps of servers those of FirstServers.
func First(servers []Server) []Server {
	var out []Server
	for _, s := range servers {
		if slices.Contains(FirstServers, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Count is how many tools the servers have together.
func Count(servers []Server) int {
	n := 0
	for _, s := range servers {
		n += len(s.Tools)
	}
	return n
}

// StepTask is a task as people write it, in one message of several
// steps, with the tools each step needs: a step is covered when any one of
// its tools is loaded.
type StepTask struct {
	Task  string     `json:"task"`
	Steps [][]string `json:"steps"`
}

// StepTasks reads the several-step tasks written before tool search was
// tuned for them (tasks_steps.json).
func StepTasks() ([]StepTask, error) { return readStepTasks("tasks_steps.json") }

// LateStepTasks reads the several-step tasks written after that tuning
// ended (tasks_steps_late.json), to tell how much of it is fitted.
func LateStepTasks() ([]StepTask, error) { return readStepTasks("tasks_steps_late.json") }

func readStepTasks(file string) ([]StepTask, error) {
	b, err := os.ReadFile(filepath.Join(Dir(), "..", file))
	if err != nil {
		return nil, err
	}
	var out []StepTask
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("toolcorpus: %s: %w", file, err)
	}
	for i, t := range out {
		if len(t.Steps) == 0 || slices.ContainsFunc(t.Steps, func(s []string) bool { return len(s) == 0 }) {
			return nil, fmt.Errorf("toolcorpus: %s: task %d has a step without tools", file, i)
		}
	}
	return out, nil
}

// AsSteps makes each one-tool phrasing a task of one step.
func AsSteps(tasks []Task) []StepTask {
	out := make([]StepTask, len(tasks))
	for i, t := range tasks {
		out[i] = StepTask{Task: t.Task, Steps: [][]string{{t.Tool}}}
	}
	return out
}

// Depths are the numbers of loaded tools that [Measure] scores at.
var Depths = [...]int{3, 5, 10}

// Figures score a search on a set of tasks.
type Figures struct {
	// Tasks counts the tasks, Steps their steps.
	Tasks, Steps int
	// Hits counts, at each of Depths, the tasks of which a search loaded a
	// needed tool (of any step).
	Hits [len(Depths)]int
	// Covered counts the steps with a tool among the first 5 loaded.
	Covered int
	// Misses lists, for the tasks with a step not covered at 5, the task
	// and what was loaded.
	Misses []string
}

// Recall is the share of tasks with a needed tool among the first
// Depths[i] loaded.
func (f Figures) Recall(i int) float64 { return float64(f.Hits[i]) / float64(max(f.Tasks, 1)) }

// StepsCovered is the share of the steps with a tool among the first 5
// loaded.
func (f Figures) StepsCovered() float64 { return float64(f.Covered) / float64(max(f.Steps, 1)) }

func (f Figures) String() string {
	return fmt.Sprintf("%d tasks, %d steps: recall@3 %.3f @5 %.3f @10 %.3f, steps covered@5 %.3f",
		f.Tasks, f.Steps, f.Recall(0), f.Recall(1), f.Recall(2), f.StepsCovered())
}

// Measure scores search on tasks: search(query, k) returns the exposed
// names of the k tools a search for query loads.
func Measure(tasks []StepTask, search func(query string, k int) []string) Figures {
	var f Figures
	for _, t := range tasks {
		f.Tasks++
		f.Steps += len(t.Steps)
		for i, k := range Depths {
			loaded := search(t.Task, k)
			if slices.ContainsFunc(t.Steps, func(s []string) bool {
				return slices.ContainsFunc(s, func(n string) bool { return slices.Contains(loaded, n) })
			}) {
				f.Hits[i]++
			}
		}
		loaded := search(t.Task, 5)
		covered := 0
		for _, s := range t.Steps {
			if slices.ContainsFunc(s, func(n string) bool { return slices.Contains(loaded, n) }) {
				covered++
			}
		}
		f.Covered += covered
		if covered < len(t.Steps) {
			f.Misses = append(f.Misses, fmt.Sprintf("%d of %d steps: %.80q wants %v, got %v", covered, len(t.Steps), t.Task, t.Steps, loaded))
		}
	}
	return f
}
