package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// The extension as it plugs into a connection (package extension): with
// it, the client declares the extension on every request, and a
// tools/call the server answers with a task is driven to its end on the
// same session (Drive): tasks/get at the server's interval, tasks/update
// with the answers of the input handlers of the client's options,
// tasks/cancel once when the call ends first. Its requests go out on the
// session's own connection, beside go-sdk's, with ids of their own, and
// their answers are taken out of what the session reads (Session.Take).

// Settings drive the tasks a server answers tool calls with. The zero
// value uses the defaults of each field.
type Settings struct {
	// DefaultInterval is the wait between polls when the server suggests
	// none (default 1s); MinInterval and MaxInterval bound the server's
	// suggestion (defaults 50ms and 30s). Each wait varies by ±10%.
	DefaultInterval, MinInterval, MaxInterval time.Duration
	// Store, if set, keeps each pending task of a connection that can
	// resume it (Streamable HTTP): written before the first poll,
	// replaced on every answer, deleted when the task ends. A program
	// that restarts lists it and resumes the task with a
	// [messages.CallTool] that resumes the record's task (Resuming). Nil
	// keeps nothing.
	Store Store
}

// DefaultTimeout is a task's total time when the caller's ctx has no
// deadline and no other bound is given: a task may run for hours.
const DefaultTimeout = 24 * time.Hour

// Ext is the tasks extension of a connection's configuration
// (actors.ConnectionConfig.Extensions).
type Ext struct{ s Settings }

var _ extension.Extension = (*Ext)(nil)

// NewExtension is the tasks extension with settings s.
func NewExtension(s Settings) *Ext { return &Ext{s: s} }

// Store is the extension's task store, nil for none.
func (e *Ext) Store() Store { return e.s.Store }

// StoreOf is the task store of the tasks extension among exts, nil when
// there is none.
func StoreOf(exts []extension.Extension) Store {
	for _, x := range exts {
		if e, ok := x.(*Ext); ok {
			return e.s.Store
		}
	}
	return nil
}

// Declare declares the extension over the module's own transports, whose
// connections carry the task requests (over Streamable HTTP with their
// Mcp-Name header). A foreign transport does not declare it, so its
// server makes no task, and one it makes anyway stays NotSupported.
func (e *Ext) Declare(tr transport.McpTransport, opts *mcp.ClientOptions) bool {
	if !drives(tr) {
		return false
	}
	caps := *opts.Capabilities
	ext := make(map[string]any, len(caps.Extensions)+1)
	for k, v := range caps.Extensions {
		ext[k] = v
	}
	caps.Extensions = ext
	caps.AddExtension(Extension, map[string]any{})
	opts.Capabilities = &caps
	return true
}

// drives reports whether tr is one of the module's transports.
func drives(tr transport.McpTransport) bool {
	for {
		switch tr.(type) {
		case transport.Stdio, *transport.Stdio, transport.StreamableHTTP, *transport.StreamableHTTP:
			return true
		}
		// A wrapper that names the server (a toolbox's) unwraps to it.
		w, ok := tr.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			return false
		}
		tr = w.Unwrap()
	}
}

// outlives reports whether a task over tr outlives the connection: over
// Streamable HTTP the task is the server's, and another connection polls
// it; a stdio child that dies takes its tasks with it.
func outlives(tr transport.McpTransport) bool {
	for {
		switch tr.(type) {
		case transport.StreamableHTTP, *transport.StreamableHTTP:
			return true
		}
		w, ok := tr.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			return false
		}
		tr = w.Unwrap()
	}
}

// Open is the extension's part of a session over tr.
func (e *Ext) Open(s extension.Session) extension.Part {
	p := &part{ext: e, s: s, tel: newTelemetry(s.Telemetry()), tr: s.Transport()}
	p.session = NewSession(wire{s}, s.Log())
	return p
}

// wire is the session as the extension writes on it.
type wire struct{ s extension.Session }

func (w wire) Write(ctx context.Context, msg jsonrpc.Message) error { return w.s.Write(ctx, msg) }
func (w wire) WithEnvelope(params map[string]any) (json.RawMessage, error) {
	return w.s.WithEnvelope(params)
}

// part is the extension's part of one session.
type part struct {
	ext     *Ext
	s       extension.Session
	session *Session
	tel     *telemetry
	// tr is the session's transport: whether its tasks outlive it, and
	// the store's label.
	tr transport.McpTransport
}

func (p *part) Take(msg jsonrpc.Message) bool { return p.session.Take(msg) }

func (p *part) Writing(ctx context.Context, req *jsonrpc.Request) {
	if req.Method == "tools/call" {
		if a := directcall.TaskAnswerOf(ctx); a != nil {
			p.session.Expect(req.ID, a)
		}
	}
}

func (p *part) End(err error) { p.session.End(err) }

func (p *part) Call(c extension.Call) extension.CallPart {
	return &taskCall{p: p, c: c, answer: new(directcall.TaskAnswer)}
}

// resumes reports whether a task this session loses goes on from the
// next one: over Streamable HTTP, under a supervisor.
func (p *part) resumes() bool { return p.s.Supervised() && outlives(p.tr) }

// taskCall is a call's state in the tasks extension: the answer of its
// tools/call when it is a task, and, while the task is driven, its latest
// state, for a resumption on the next session. The call's goroutine's
// alone: Drive keeps the state on that goroutine, and resume reads it
// there after the drive.
type taskCall struct {
	p      *part
	c      extension.Call
	answer *directcall.TaskAnswer
	state  *messages.TaskState
}

func (tc *taskCall) Value(key any) any {
	if key == (directcall.TaskAnswerKey{}) {
		return tc.answer
	}
	return nil
}

// Answered drives the task that answered the call; a failed call's task
// answer, if one came, is cancelled.
func (tc *taskCall) Answered(ctx context.Context, res *mcp.CallToolResult, err error) (*messages.CallToolReply, bool) {
	if err != nil {
		tc.p.session.Drop(tc.answer)
		tc.p.session.Abandon(tc.answer) // answered with a task as the call ended
		return nil, false
	}
	if !isTask(res) {
		return nil, false
	}
	reply := tc.drive(ctx)
	if reply == nil || reply.Failure != nil {
		tc.c.Cancel(errCallFailed)
	}
	return reply, true
}

// errCallFailed is the cause of a call's cancellation once its task's
// drive failed.
var errCallFailed = errors.New("the call failed")

// Resume is the reply to a call that resumes a task
// (tasks.Call.Resume, in messages.CallTool.Ext): no tools/call, the task driven from its state.
func (tc *taskCall) Resume(ctx context.Context) (*messages.CallToolReply, bool) {
	if resumed(tc.c.Message()) == nil {
		return nil, false
	}
	reply := tc.drive(ctx)
	if reply == nil || reply.Failure != nil {
		tc.c.Cancel(errCallFailed)
	}
	return reply, true
}

// isTask reports whether res is go-sdk's reading of a task answer.
func isTask(res *mcp.CallToolResult) bool {
	if res == nil || len(res.Content) != 0 || res.StructuredContent != nil {
		return false
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return false
	}
	var rt struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(raw, &rt) == nil && rt.ResultType == "task"
}

// timeout is the cause of a task's call cancelled at its deadline (Call.Deadline).
type timeout struct{ limit string }

func (e *timeout) Error() string { return "deadline exceeded: " + e.limit + " passed" }

// drive drives the task that answered the call's tools/call to its end,
// or the task the call's message resumes (Call.Resume), and
// returns the call's reply (nil when the caller gave up, or when the call
// went back to resume the task on the next session).
func (tc *taskCall) drive(ctx context.Context) (reply *messages.CallToolReply) {
	p, c := tc.p, tc.c
	msg := c.Message()
	x := CallOf(msg)
	if x == nil {
		x = new(Call)
	}
	var t *Task
	if x.Resume != nil {
		t = FromState(x.Resume)
	} else {
		raw := tc.answer.Raw()
		if raw == nil {
			return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Message: `server answered resultType "task" (SEP-2663), but its task was not read`}, nil, false, false)
		}
		var err error
		if t, err = ParseCreated(raw); err != nil {
			p.session.Abandon(tc.answer) // a task it may be: cancelled
			return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Message: "server answered a task: " + err.Error()}, nil, false, false)
		}
	}
	ctx, tr := p.tel.start(ctx, msg.Name, t) // the task's span and duration (telemetry.go)
	defer func() { tr.end(ctx, reply) }()
	if x.Want {
		// A plugin's hook call may return while the task runs on
		// (plugin.TaskOptions.DetachAfter).
		c.Tell(&messages.CallTask{ID: msg.ID, TaskID: t.ID})
	}
	// The task is the server's now: a lost connection must not run the
	// tool again.
	c.Settled()
	if !x.Deadline.IsZero() {
		c.StopDeadline()
		limit := x.Limit
		if limit == "" {
			limit = "the task's deadline"
		}
		tt := time.AfterFunc(time.Until(x.Deadline), func() { c.Cancel(&timeout{limit}) })
		defer tt.Stop()
	}
	k := tc.keeper(t)
	updates, unfollow := p.session.Follow(t.ID) // the server's notifications/tasks, if it sends them
	defer unfollow()
	if !t.Status.Terminal() && !t.Draft {
		defer p.session.Listen(ctx, t.ID)() // asks for them; a draft server sends them unasked
	}
	opts, roots := p.s.Client()
	cfg := Config{
		DefaultInterval: p.ext.s.DefaultInterval,
		MinInterval:     p.ext.s.MinInterval,
		MaxInterval:     p.ext.s.MaxInterval,
		Answer:          Inputs(opts, roots),
		Seen:            tr.seen(tc.seen(t)), // polls as span events (telemetry.go)
		Keep:            k.keep,
		Leave:           k.leave,
		Updates:         updates,
	}
	res, err := Drive(ctx, p.session.Request, cfg, t)
	reply, resume := tc.ended(ctx, t.ID, res, err)
	if resume {
		tr.resumed() // the next session's span goes on (telemetry.go)
		return nil   // the record stays: the next session goes on
	}
	if _, closing, ok := p.s.Ended(context.Cause(ctx)); !ok || !closing {
		k.forget()
	}
	return reply
}

// ended is the reply to a call whose task's drive returned res or err;
// resume when the call went back instead, to poll the task from the next
// session.
func (tc *taskCall) ended(ctx context.Context, id string, res json.RawMessage, err error) (reply *messages.CallToolReply, resume bool) {
	p, c := tc.p, tc.c
	if err == nil {
		r, derr := directcall.DecodeCallToolResult(res)
		if derr != nil {
			return c.Fail(&messages.Failure{Kind: messages.FailureInternal,
				Message: fmt.Sprintf("task %s completed with a result that does not decode: %v", id, derr)}, nil, false, false), false
		}
		return c.Classify(r), false
	}
	var tt *timeout
	cause := context.Cause(ctx)
	why, closing, ended := p.s.Ended(cause)
	switch {
	case ctx.Err() != nil && errors.As(cause, &tt):
		return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: fmt.Sprintf("task %s: %s", id, tt.Error())}, nil, false, false), false
	case ctx.Err() != nil && ended:
		if p.resumes() && !closing {
			// The connection ended under the task, which runs on.
			tc.resume(err, false)
			return nil, true
		}
		why = "call in flight when the connection ended: " + why
		if p.resumes() {
			why += fmt.Sprintf("; task %s runs on on the server", id)
		}
		return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseConnectionLost, Message: why}, nil, false, false), false
	case ctx.Err() != nil:
		reply := c.Failed(ctx, err)
		if ce, ok := errors.AsType[*CancelError](err); ok && p.resumes() && p.failed(ce.Err) {
			// The connection failed under the cancel: the next one
			// resumes the task only to cancel it.
			tc.resumeLost(err, true)
		}
		return reply, false
	case errors.Is(err, ErrNoInput):
		return c.Fail(&messages.Failure{Kind: messages.FailureNotSupported, Message: err.Error() +
			": no input handler (plugin.WithInputRequired) answers it, so the task was cancelled", Err: err}, nil, false, false), false
	case errors.Is(err, ErrLost):
		return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseTaskLost, Message: err.Error(), Err: err}, nil, false, false), false
	case errors.Is(err, ErrFailed):
		return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Message: err.Error()}, err, true, false), false
	case p.failed(err):
		if p.resumes() {
			tc.resumeLost(err, false)
			return nil, true
		}
		return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseConnectionLost,
			Message: "the connection ended while the task ran: " + err.Error()}, err, false, true), false
	}
	return c.Fail(&messages.Failure{Kind: messages.FailureInternal, Message: err.Error()}, err, false, true), false
}

// failed reports whether err, of a task request, is its connection's
// failure.
func (p *part) failed(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || p.s.Broken(err)
}

// resumeLost ends the session, whose connection failed under a task
// request with err (an HTTP endpoint that went away does not end the
// session by itself; a failed request does), and hands the call back to
// resume the task on the next session: resume.
func (tc *taskCall) resumeLost(err error, cancel bool) {
	tc.p.s.Failed(err)
	tc.resume(err, cancel)
}

// resume hands the call back, for the next session: a copy of its message
// that carries the task's latest state, bounded by the task's deadline
// from now on. With cancel, or when its caller gave up, the next session
// resumes the task only to cancel it.
func (tc *taskCall) resume(err error, cancel bool) {
	m := Resuming(tc.c.Message(), tc.state)
	x := CallOf(m)
	switch {
	case cancel:
		// Its caller was answered: nothing bounds the cancel but the
		// supervisor's wait for the next connection.
		m.Deadline, m.Limit = time.Time{}, ""
	case !x.Deadline.IsZero():
		m.Deadline, m.Limit = x.Deadline, x.Limit
	}
	tc.p.s.Log().Info("mcp task resumes on the next connection", zap.String("task", x.Resume.ID), zap.Error(err))
	tc.c.HandBack(m, cancel)
}

// keeper keeps a call's task as it goes: the latest state for a
// resumption on the next session, and, with a store, its record.
type keeper struct {
	tc     *taskCall
	store  Store
	server string
	tool   string
	id     string
}

func (tc *taskCall) keeper(t *Task) *keeper {
	k := &keeper{tc: tc, tool: tc.c.Message().Name, id: t.ID}
	if outlives(tc.p.tr) {
		k.store = tc.p.ext.s.Store
		k.server = named.LabelOf(tc.p.tr)
	}
	return k
}

// keep is Config.Keep.
func (k *keeper) keep(t *Task) error {
	st := t.State()
	k.tc.state = st
	if k.store == nil {
		return nil
	}
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	return k.store.Put(ctx, Record{Server: k.server, Tool: k.tool, Task: *st})
}

// leave is Config.Leave: a task whose connection failed is left to run on
// the server, to be resumed from its latest state (over stdio the child
// is gone, and nothing could cancel it). One whose connection was closed
// (the plugin closed, the program ending) is left only when a store keeps
// it for a later ResumeTask; otherwise nothing could resume it, and it is
// cancelled.
func (k *keeper) leave(cause error) bool {
	_, closing, ok := k.tc.p.s.Ended(cause)
	if !ok {
		return false
	}
	return !closing || k.store != nil
}

// forget deletes the task's record: it has ended, or been cancelled.
func (k *keeper) forget() {
	if k.store == nil {
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	if err := k.store.Delete(ctx, k.server, k.id); err != nil {
		k.tc.p.s.Log().Warn("mcp task store: deleting a record failed", zap.String("task", k.id), zap.Error(err))
	}
}

// storeTimeout bounds each write of a task store.
const storeTimeout = 10 * time.Second

// seen passes each new status message of the task on as the call's
// progress, and counts it as a sign of life for its idle timeout.
func (tc *taskCall) seen(first *Task) func(*Task) {
	last, status, n := first.StatusMessage, first.Status, 0
	return func(t *Task) {
		if t.StatusMessage == last && t.Status == status {
			return
		}
		last, status = t.StatusMessage, t.Status
		n++
		var p *messages.CallProgress
		if t.StatusMessage != "" {
			p = &messages.CallProgress{ID: tc.c.Message().ID, Progress: float64(n), Message: t.StatusMessage}
		}
		tc.c.Progress(p)
	}
}
