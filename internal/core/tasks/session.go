package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
)

// A Wire is a session's connection as the tasks extension writes on it:
// the connection under go-sdk's session, and the session's envelope
// (_meta) for the params of the extension's requests.
type Wire interface {
	// Write writes msg on the connection, as it is.
	Write(ctx context.Context, msg jsonrpc.Message) error
	// WithEnvelope is params, with the envelope the session's requests
	// carry, as JSON.
	WithEnvelope(params map[string]any) (json.RawMessage, error)
}

// IDBase is how far below zero the ids of task requests start: far from
// go-sdk's (counting up from 1) and the direct calls' (below -2^40).
const IDBase = 1 << 50

// Methods of the notification of a task's status: notifications/tasks as
// the extension was accepted, notifications/tasks/status in its draft.
const (
	MethodNotified      = "notifications/tasks"
	MethodNotifiedDraft = "notifications/tasks/status"
)

// Session is the tasks extension's side of one session: its task
// requests waiting for their answers, the tool calls whose answer may be a
// task, and the notifications of each task waiting for its driver. What
// the session reads passes through [Session.Take] first; what the
// extension sends goes out on its [Wire].
type Session struct {
	wire    Wire
	mu      sync.Mutex
	next    int64
	waiting map[int64]request
	calls   map[jsonrpc.ID]*directcall.TaskAnswer
	// updates are the notifications waiting for the drivers of the
	// tasks, by task id: a task's channel is made when the answer that
	// created it is read, so that a notification read right after it is
	// kept for its driver.
	updates map[string]chan *Task
	ended   error
	done    chan struct{}
	log     *zap.Logger
}

// request is a task request waiting for its answer.
type request struct {
	ch     chan *jsonrpc.Response
	taskID string
	get    bool // tasks/get: its answer supersedes the notifications read before it
}

// Updates is how many notifications of a task wait for its driver; a
// notification that finds them full is dropped (the next poll catches up).
const Updates = 4

// NewSession is the extension's side of a session whose connection is w.
func NewSession(w Wire, log *zap.Logger) *Session {
	if log == nil {
		log = zap.NewNop()
	}
	return &Session{wire: w, waiting: map[int64]request{}, calls: map[jsonrpc.ID]*directcall.TaskAnswer{},
		updates: map[string]chan *Task{}, done: make(chan struct{}), log: log}
}

// Take looks at msg, read from the session's connection, before go-sdk
// does: true when it is the extension's (the answer of a task request, a
// task's status notification), which go-sdk never sees. The answer of a
// tools/call that [Session.Expect] noted is kept for the call, and go-sdk
// reads it too.
func (r *Session) Take(msg jsonrpc.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		return r.deliver(m)
	case *jsonrpc.Request:
		if (m.Method != MethodNotified && m.Method != MethodNotifiedDraft) || m.IsCall() {
			return false
		}
		r.notified(m.Params)
		return true
	}
	return false
}

// Follow is the channel of task id's notifications, for its driver;
// unfollow forgets it.
func (r *Session) Follow(id string) (updates <-chan *Task, unfollow func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := r.updates[id]
	if ch == nil {
		ch = make(chan *Task, Updates)
		r.updates[id] = ch
	}
	return ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.updates[id] == ch {
			delete(r.updates, id)
		}
	}
}

// created notes the task that answered a tools/call, if raw is one, so
// that its notifications are kept from now on.
func (r *Session) created(raw json.RawMessage) {
	if !bytes.Contains(raw, []byte(`"task"`)) {
		return // not a task answer: no need to read it
	}
	id := IDOf(raw)
	if id == "" {
		return
	}
	r.mu.Lock()
	if r.updates[id] == nil {
		r.updates[id] = make(chan *Task, Updates)
	}
	r.mu.Unlock()
}

// notified takes the params of a notifications/tasks (or the draft's
// notifications/tasks/status) read from the connection to the driver of
// its task, without waiting: one of a task no driver follows, or that
// does not parse, is dropped, and so is one that finds its driver's
// channel full.
func (r *Session) notified(params json.RawMessage) {
	t, err := ParseGot(params)
	if err != nil {
		r.log.Debug("mcp task status notification dropped", zap.Error(err))
		return
	}
	r.mu.Lock()
	ch := r.updates[t.ID]
	r.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- t:
	default:
	}
}

// superseded drops the notifications of task id that wait for its
// driver: they were read before the answer of its tasks/get, which
// says more.
func (r *Session) superseded(id string) {
	r.mu.Lock()
	ch := r.updates[id]
	r.mu.Unlock()
	for ch != nil {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// Expect notes tools/call id, whose answer a, if a task, keeps.
func (r *Session) Expect(id jsonrpc.ID, a *directcall.TaskAnswer) {
	r.mu.Lock()
	r.calls[id] = a
	r.mu.Unlock()
}

// deliver takes a response read from the connection: true when it
// answers a task request (it is not go-sdk's).
func (r *Session) deliver(resp *jsonrpc.Response) bool {
	r.mu.Lock()
	if a, ok := r.calls[resp.ID]; ok {
		delete(r.calls, resp.ID)
		r.mu.Unlock()
		if resp.Error == nil {
			a.Take(resp.Result)
			r.created(resp.Result)
		}
		return false
	}
	n, ok := resp.ID.Raw().(int64)
	if !ok || n > -IDBase {
		r.mu.Unlock()
		return false
	}
	w, ok := r.waiting[n]
	delete(r.waiting, n)
	r.mu.Unlock()
	if ok {
		if w.get {
			r.superseded(w.taskID)
		}
		w.ch <- resp
	}
	return true
}

// Drop forgets the tool call whose answer a was to keep: it ended without
// one.
func (r *Session) Drop(a *directcall.TaskAnswer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, x := range r.calls {
		if x == a {
			delete(r.calls, id)
		}
	}
}

// End fails every request waiting, and every later one, with err: the
// session's connection is gone.
func (r *Session) End(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended == nil {
		r.ended = err
		close(r.done)
	}
}

// open registers a request of ours about task taskID (get: a tasks/get,
// whose answer supersedes the notifications read before it) and returns
// its number, below -IDBase, and the channel its answer arrives on; the
// connection's end, if it has ended.
func (r *Session) open(taskID string, get bool) (int64, chan *jsonrpc.Response, error) {
	ch := make(chan *jsonrpc.Response, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended != nil {
		return 0, nil, r.ended
	}
	r.next++
	n := -IDBase - r.next
	r.waiting[n] = request{ch: ch, taskID: taskID, get: get}
	return n, ch, nil
}

// close forgets request n and reports whether it was still waiting for
// its answer, and whether the connection has ended.
func (r *Session) close(n int64) (waiting, ended bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, waiting = r.waiting[n]
	delete(r.waiting, n)
	return waiting, r.ended != nil
}

// Request sends one task request of method on the session's connection
// and waits for its answer: a [Sender].
func (r *Session) Request(ctx context.Context, method, taskID string, params any) (json.RawMessage, error) {
	p, ok := params.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: params of type %T", method, params)
	}
	raw, err := r.wire.WithEnvelope(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	n, ch, err := r.open(taskID, method == "tasks/get")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", mcp.ErrConnectionClosed, method, err)
	}
	forget := func() { r.close(n) }
	id, _ := jsonrpc.MakeID(float64(n))
	if err := r.wire.Write(transportext.WithMcpName(ctx, taskID), &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		forget()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %w", method, resp.Error)
		}
		return resp.Result, nil
	case <-r.done:
		forget()
		return nil, fmt.Errorf("%w: %s: %v", mcp.ErrConnectionClosed, method, r.ended)
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// listenTimeout bounds the notifications/cancelled that ends a task's
// subscriptions/listen stream.
const listenTimeout = 5 * time.Second

// Listen asks the server for task id's notifications/tasks on a
// subscriptions/listen stream of its own (SEP-2575; the tasks extension as
// accepted sends them only there), open until the returned stop is called:
// stop ends the stream (notifications/cancelled, and over Streamable HTTP
// the request's stream closed) and waits for the goroutine that opened it.
// The notifications reach the task's driver as any others do (Take). A
// server that refuses, or acknowledges no task id, changes nothing:
// polling goes on, and its answer is dropped.
func (r *Session) Listen(ctx context.Context, id string) (stop func()) {
	raw, err := r.wire.WithEnvelope(map[string]any{"notifications": map[string]any{"taskIds": []string{id}}})
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
	// slow server never delays the task's first poll. stop waits for it.
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	written := make(chan struct{})
	go func() {
		defer close(written)
		_ = r.wire.Write(lctx, &jsonrpc.Request{ID: reqID, Method: "subscriptions/listen", Params: raw})
	}()
	return func() {
		cancel()
		<-written
		if open, ended := r.close(n); !open || ended {
			return // the server ended it, or the connection is gone
		}
		cctx, done := context.WithTimeout(context.WithoutCancel(ctx), listenTimeout)
		defer done()
		note, _ := json.Marshal(map[string]any{"requestId": n, "reason": "the task's call ended"})
		_ = r.wire.Write(cctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: note})
	}
}

// Abandon ends the task that answered a tools/call the connection will
// not drive (a, the call's answer): the call failed after its answer was
// read (its caller left at that moment), or the answer is not a task of
// the SEP's shape. The notifications kept for the task are let go, and a
// task the server made is cancelled, once, under [CancelTimeout]: nobody
// waits for it, and the server should not run it for nobody.
func (r *Session) Abandon(a *directcall.TaskAnswer) {
	raw := a.Raw()
	if raw == nil {
		return // no answer came: no task was made
	}
	id := r.forget(raw)
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), CancelTimeout)
	defer cancel()
	if _, err := r.Request(ctx, "tasks/cancel", id, map[string]any{"taskId": id}); err != nil {
		r.log.Debug("mcp task abandoned: tasks/cancel failed", zap.String("task", id), zap.Error(err))
	}
}

// IDOf is the taskId of raw when raw is a task answer (resultType
// "task"), else "".
func IDOf(raw json.RawMessage) string {
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
func (r *Session) forget(raw json.RawMessage) string {
	id := IDOf(raw)
	if id == "" {
		return ""
	}
	r.mu.Lock()
	delete(r.updates, id)
	r.mu.Unlock()
	return id
}
