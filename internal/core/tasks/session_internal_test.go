package tasks

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

func statusOf(id, st string) json.RawMessage {
	return json.RawMessage(`{"taskId":"` + id + `","status":"` + st + `","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}`)
}

// received is what waits on ch.
func received(ch <-chan *Task) []*Task {
	var out []*Task
	for {
		select {
		case t := <-ch:
			out = append(out, t)
		default:
			return out
		}
	}
}

func TestTaskStatusNotificationsReachTheirTasksDriverOnly(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	r := NewSession(nil, zap.New(core))

	// The answer that makes task t1 is read: a notification read right
	// after it waits for t1's driver, which follows it later.
	id, _ := jsonrpc.MakeID(float64(7))
	r.Expect(id, &directcall.TaskAnswer{})
	require.False(t, r.deliver(&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"resultType":"task","taskId":"t1","status":"working"}`)}))
	r.notified(statusOf("t1", "working"))

	// One of a task no one follows, one of no shape, and one of a status
	// the SEP does not know are dropped; the malformed ones are logged.
	r.notified(statusOf("t2", "working"))
	r.notified(json.RawMessage(`[1,2]`))
	r.notified(statusOf("t1", "sleeping"))
	assert.Equal(t, 2, logs.FilterMessage("mcp task status notification dropped").Len())

	updates, unfollow := r.Follow("t1")
	got := received(updates)
	require.Len(t, got, 1)
	assert.Equal(t, Working, got[0].Status)

	// A full channel drops what does not fit, without blocking.
	for range Updates + 3 {
		r.notified(statusOf("t1", "working"))
	}
	assert.Len(t, received(updates), Updates)

	// The answer of a tasks/get supersedes the notifications read before
	// it; that of a tasks/update does not.
	for n, method := range map[int64]string{-IDBase - 1: "tasks/get", -IDBase - 2: "tasks/update"} {
		r.notified(statusOf("t1", "working"))
		ch := make(chan *jsonrpc.Response, 1)
		r.waiting[n] = request{ch: ch, taskID: "t1", get: method == "tasks/get"}
		rid, _ := jsonrpc.MakeID(float64(n))
		require.True(t, r.deliver(&jsonrpc.Response{ID: rid, Result: json.RawMessage(`{}`)}))
		<-ch
		if method == "tasks/get" {
			assert.Empty(t, received(updates), method)
		} else {
			assert.Len(t, received(updates), 1, method)
		}
	}

	// Once unfollowed, its notifications are dropped too.
	unfollow()
	r.notified(statusOf("t1", "working"))
	assert.Empty(t, received(updates))
	r.mu.Lock()
	assert.Empty(t, r.updates)
	r.mu.Unlock()
}
