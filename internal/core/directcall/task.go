package directcall

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
)

// TaskAnswer receives the result of a tools/call that a server answered
// with a task (SEP-2663, resultType "task"): the CallToolResult decoded
// from it cannot hold the task's id and requestState. A call's context
// carries it under [TaskAnswerKey] when the caller drives tasks; the
// direct path keeps the answer in it, and so may whatever reads the
// session's answers.
type TaskAnswer struct {
	raw atomic.Pointer[json.RawMessage]
}

// TaskAnswerKey is the context key of a call's [*TaskAnswer].
type TaskAnswerKey struct{}

// TaskAnswerOf is the [*TaskAnswer] ctx carries, or nil.
func TaskAnswerOf(ctx context.Context) *TaskAnswer {
	a, _ := ctx.Value(TaskAnswerKey{}).(*TaskAnswer)
	return a
}

// Take keeps a copy of result when it is a task; it reports whether it
// was.
func (a *TaskAnswer) Take(result []byte) bool {
	if !IsTask(result) {
		return false
	}
	raw := json.RawMessage(bytes.Clone(result))
	a.raw.Store(&raw)
	return true
}

// Raw is the task answer kept, or nil.
func (a *TaskAnswer) Raw() json.RawMessage {
	if p := a.raw.Load(); p != nil {
		return *p
	}
	return nil
}

// IsTask reports whether result, a tools/call result, has resultType
// "task".
func IsTask(result []byte) bool {
	if !bytes.Contains(result, []byte(`"task"`)) {
		return false
	}
	var w struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &w) == nil && w.ResultType == "task"
}
