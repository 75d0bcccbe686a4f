package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/cuca-go/mcpconnector/messages"
)

// Extension is the identifier a client declares in each request's
// capabilities to receive tasks.
const Extension = "io.modelcontextprotocol/tasks"

// Status is a task's status.
type Status string

// The statuses of a task.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether no status follows s.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

func (s Status) valid() bool { return s == Working || s == InputRequired || s.Terminal() }

// Task is a task as the server last described it.
type Task struct {
	ID            string    `json:"taskId"`
	Status        Status    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt"`
	// TTLSeconds is nil for a task without a time to live. A server that
	// speaks the accepted extension sends ttlMs, read into it in whole
	// seconds, rounded up; one that speaks its draft, ttlSeconds.
	TTLSeconds *int64 `json:"ttlSeconds"`
	// PollIntervalMilliseconds is nil when the server suggests none: the
	// accepted extension's pollIntervalMs, the draft's
	// pollIntervalMilliseconds.
	PollIntervalMilliseconds *int64 `json:"pollIntervalMilliseconds,omitempty"`
	// RequestState is nil when the last answer carried none: then the next
	// request carries none either.
	RequestState *string `json:"requestState,omitempty"`
	// InputRequests are the server's outstanding requests of an
	// input_required task, by key.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// Result is a completed task's result (a CallToolResult).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is a failed task's JSON-RPC error.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// Draft: the server named the task's fields as the extension's draft
	// did (ttlSeconds, pollIntervalMilliseconds, requestState), not as it
	// was accepted (ttlMs, pollIntervalMs). A draft server sends its
	// notifications unasked and knows no subscriptions/listen for tasks.
	Draft bool `json:"-"`
}

// Expiry is when the task's time to live ends (zero for none): after it the
// server may have forgotten the task.
func (t *Task) Expiry() time.Time {
	if t.TTLSeconds == nil || t.CreatedAt.IsZero() {
		return time.Time{}
	}
	return t.CreatedAt.Add(time.Duration(*t.TTLSeconds) * time.Second)
}

// ErrInvalid is the error of an answer that is not a task of the shape the
// SEP gives it.
var ErrInvalid = errors.New("invalid task answer")

// ParseCreated reads a tools/call answer of resultType "task" (a
// CreateTaskResult). Its result, error and inputRequests are dropped: the
// SEP forbids a client to use them there.
func ParseCreated(raw json.RawMessage) (*Task, error) {
	t, rt, err := parse(raw)
	if err != nil {
		return nil, err
	}
	if rt != "task" {
		return nil, fmt.Errorf("%w: resultType %q, not \"task\"", ErrInvalid, rt)
	}
	t.Result, t.Error, t.InputRequests = nil, nil, nil
	return t, nil
}

// ParseGot reads an answer to tasks/get (resultType "complete", or none)
// or the params of notifications/tasks (the draft's
// notifications/tasks/status).
func ParseGot(raw json.RawMessage) (*Task, error) {
	t, rt, err := parse(raw)
	if err != nil {
		return nil, err
	}
	if rt != "" && rt != "complete" {
		return nil, fmt.Errorf("%w: tasks/get answered resultType %q", ErrInvalid, rt)
	}
	switch {
	case t.Status == Completed && len(t.Result) == 0:
		return nil, fmt.Errorf("%w: task %s completed without a result", ErrInvalid, t.ID)
	case t.Status == Failed && t.Error == nil:
		return nil, fmt.Errorf("%w: task %s failed without an error", ErrInvalid, t.ID)
	case t.Status == InputRequired && len(t.InputRequests) == 0:
		return nil, fmt.Errorf("%w: task %s requires input but names no request", ErrInvalid, t.ID)
	}
	return t, nil
}

func parse(raw json.RawMessage) (*Task, string, error) {
	var w struct {
		Task
		ResultType string `json:"resultType"`
		// The accepted extension's names (ext-tasks' schema) of what the
		// draft called ttlSeconds and pollIntervalMilliseconds.
		TTLMs          *float64 `json:"ttlMs"`
		PollIntervalMs *float64 `json:"pollIntervalMs"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	w.Draft = w.TTLMs == nil && w.PollIntervalMs == nil &&
		(w.TTLSeconds != nil || w.PollIntervalMilliseconds != nil || w.RequestState != nil)
	if w.TTLSeconds == nil && w.TTLMs != nil && *w.TTLMs >= 0 {
		// Whole seconds, rounded up: the task is never given up on before
		// the server may forget it.
		s := int64(math.Ceil(*w.TTLMs / 1000))
		w.TTLSeconds = &s
	}
	if w.PollIntervalMilliseconds == nil && w.PollIntervalMs != nil && *w.PollIntervalMs >= 0 {
		ms := int64(*w.PollIntervalMs)
		w.PollIntervalMilliseconds = &ms
	}
	if w.ID == "" {
		return nil, "", fmt.Errorf("%w: no taskId", ErrInvalid)
	}
	if !w.Status.valid() {
		return nil, "", fmt.Errorf("%w: task %s has status %q", ErrInvalid, w.ID, w.Status)
	}
	return &w.Task, w.ResultType, nil
}

// State is t in its public form, to resume it from: its result, error and
// input requests are left out.
func (t *Task) State() *messages.TaskState {
	return &messages.TaskState{ID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLSeconds: t.TTLSeconds,
		PollIntervalMilliseconds: t.PollIntervalMilliseconds, RequestState: t.RequestState}
}

// FromState is the task s describes, to resume polling it. A state of no
// known status (or a terminal one: a kept state is never terminal) counts
// as working, so that the next poll says.
func FromState(s *messages.TaskState) *Task {
	st := Status(s.Status)
	if !st.valid() || st.Terminal() || st == InputRequired {
		st = Working // an input request is asked again by the next poll
	}
	return &Task{ID: s.ID, Status: st, StatusMessage: s.StatusMessage, CreatedAt: s.CreatedAt,
		LastUpdatedAt: s.LastUpdatedAt, TTLSeconds: s.TTLSeconds,
		PollIntervalMilliseconds: s.PollIntervalMilliseconds, RequestState: s.RequestState,
		Draft: s.RequestState != nil} // only the draft has a requestState
}
