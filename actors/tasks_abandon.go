package actors

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
)

// abandonTask ends the task that answered a tools/call the connection will
// not drive: the call failed after its answer was read (its caller left at
// that moment), or the answer is not a task of the SEP's shape. The
// notifications kept for the task are let go, and a task the server made
// is cancelled, once, under [tasks.CancelTimeout]: nobody waits for it,
// and the server should not run it for nobody.
func (c *mcpConnection) abandonTask(conn *envelopeConn, a *directcall.TaskAnswer) {
	raw := a.Raw()
	if raw == nil {
		return // no answer came: no task was made
	}
	id := conn.tasks.forget(raw)
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tasks.CancelTimeout)
	defer cancel()
	if _, err := conn.request(ctx, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil {
		c.log.Debug("mcp task abandoned: tasks/cancel failed", zap.String("task", id), zap.Error(err))
	}
}

// taskIDOf is the taskId of raw when raw is a task answer (resultType
// "task"), else "".
func taskIDOf(raw json.RawMessage) string {
	var t struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if json.Unmarshal(raw, &t) != nil || t.ResultType != "task" {
		return ""
	}
	return t.TaskID
}

// forget lets go of the notifications kept for the task that raw, a
// tools/call's answer, made, and returns its id ("" when raw is no task
// answer).
func (r *taskRequests) forget(raw json.RawMessage) string {
	id := taskIDOf(raw)
	if id == "" {
		return ""
	}
	r.mu.Lock()
	delete(r.updates, id)
	r.mu.Unlock()
	return id
}
