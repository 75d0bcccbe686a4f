package actors

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// listenTimeout bounds the notifications/cancelled that ends a task's
// subscriptions/listen stream.
const listenTimeout = 5 * time.Second

// listenTask asks the server for task id's notifications/tasks on a
// subscriptions/listen stream of its own (SEP-2575; the tasks extension as
// accepted sends them only there), open until the returned stop is called:
// stop ends the stream (notifications/cancelled, and over Streamable HTTP
// the request's stream closed) and waits for the goroutine that opened it.
// The notifications reach the task's driver as any others do (notified).
// A server that refuses, or acknowledges no task id, changes nothing:
// polling goes on, and its answer is dropped.
func (c *envelopeConn) listenTask(ctx context.Context, id string) (stop func()) {
	r := c.tasks
	raw, err := c.withEnvelope(map[string]any{"notifications": map[string]any{"taskIds": []string{id}}})
	if err != nil {
		return func() {}
	}
	// Its answer (the server ended the stream, or refused it) is taken and
	// dropped: the channel holds the one answer there is.
	n, _, err := r.open(id, false)
	if err != nil {
		return func() {}
	}
	reqID, _ := jsonrpc.MakeID(float64(n))
	// Over Streamable HTTP the write returns once the stream is open, and
	// the stream lasts as long as lctx: it runs on a goroutine, so that a
	// slow server never delays the task's first poll.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = c.Connection.Write(lctx, &jsonrpc.Request{ID: reqID, Method: "subscriptions/listen", Params: raw})
	})
	return func() {
		cancel()
		wg.Wait()
		if open, ended := r.close(n); !open || ended {
			return // the server ended it, or the connection is gone
		}
		cctx, done := context.WithTimeout(context.WithoutCancel(ctx), listenTimeout)
		defer done()
		note, _ := json.Marshal(map[string]any{"requestId": n, "reason": "the task's call ended"})
		_ = c.Connection.Write(cctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: note})
	}
}
