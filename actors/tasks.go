package actors

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
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Tasks (SEP-2663, io.modelcontextprotocol/tasks): with
// ConnectionConfig.Tasks the client declares the extension on every
// request, and a tools/call the server answers with a task is driven to
// its end on the same connection (internal/core/tasks.Drive): tasks/get at
// the server's interval, tasks/update with the answers of the input
// handlers of ClientOptions, tasks/cancel once when the call ends first.
// Its requests go out on the session's own connection, beside go-sdk's,
// with ids of their own, and their answers are taken out of what the
// session reads (envelopeConn.Read).

// TaskSettings drive the tasks a server answers tool calls with. The zero
// value uses the defaults of each field.
type TaskSettings struct {
	// DefaultInterval is the wait between polls when the server suggests
	// none (default 1s); MinInterval and MaxInterval bound the server's
	// suggestion (defaults 50ms and 30s). Each wait varies by ±10%.
	DefaultInterval, MinInterval, MaxInterval time.Duration
	// Store, if set, keeps each pending task of a connection that can
	// resume it (Streamable HTTP): written before the first poll,
	// replaced on every answer, deleted when the task ends. A program
	// that restarts lists it and resumes the task with a
	// [messages.CallTool] whose Task is the record's. Nil keeps nothing.
	Store tasks.Store
}

// DefaultTaskTimeout is a task's total time when the caller's ctx has no
// deadline and no other bound is given: a task may run for hours.
const DefaultTaskTimeout = 24 * time.Hour

// declaresTasks reports whether the connection of cfg drives tasks: asked
// for, and its transport one of this module's, whose connections carry
// the task requests (over Streamable HTTP with their Mcp-Name header). A
// foreign transport does not declare the extension, so its server makes
// no task, and one it makes anyway stays NotSupported.
func declaresTasks(cfg *ConnectionConfig) bool {
	if cfg.Tasks == nil {
		return false
	}
	t := cfg.Transport
	for {
		switch t.(type) {
		case transport.Stdio, *transport.Stdio, transport.StreamableHTTP, *transport.StreamableHTTP:
			return true
		}
		// A wrapper that names the server (a toolbox's) unwraps to it.
		w, ok := t.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			return false
		}
		t = w.Unwrap()
	}
}

// resumesTasks reports whether a task of cfg's connection outlives the
// connection: over Streamable HTTP the task is the server's, and another
// connection polls it; a stdio child that dies takes its tasks with it.
func resumesTasks(cfg *ConnectionConfig) bool {
	t := cfg.Transport
	for {
		switch t.(type) {
		case transport.StreamableHTTP, *transport.StreamableHTTP:
			return true
		}
		w, ok := t.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			return false
		}
		t = w.Unwrap()
	}
}

// declareTasks adds the extension to opts' capabilities, a copy of them.
func declareTasks(opts *mcp.ClientOptions) {
	caps := *opts.Capabilities
	ext := make(map[string]any, len(caps.Extensions)+1)
	for k, v := range caps.Extensions {
		ext[k] = v
	}
	caps.Extensions = ext
	caps.AddExtension(tasks.Extension, map[string]any{})
	opts.Capabilities = &caps
}

// taskCall is a call's state in the tasks extension: the answer of its
// tools/call when it is a task, and, while the task is driven, its latest
// state, for a resumption on the next connection. The call's goroutine's
// alone: tasks.Drive keeps the state on that goroutine, and resume reads
// it there after the drive.
type taskCall struct {
	answer *directcall.TaskAnswer
	state  *messages.TaskState
}

// taskWire is the session's connection as the tasks extension writes on
// it: the connection under the envelope, and the envelope for params.
type taskWire struct{ c *envelopeConn }

func (w taskWire) Write(ctx context.Context, msg jsonrpc.Message) error {
	return w.c.Connection.Write(ctx, msg)
}

func (w taskWire) WithEnvelope(params map[string]any) (json.RawMessage, error) {
	return w.c.withEnvelope(params)
}

// withEnvelope is params, with the envelope (_meta) the connection's
// requests carry, as JSON.
func (c *envelopeConn) withEnvelope(params map[string]any) (json.RawMessage, error) {
	if env := c.envelope.Load(); env != nil {
		params["_meta"] = *env
	}
	return json.Marshal(params)
}

// taskTimeout is the cause of a task's call cancelled at its
// TaskDeadline.
type taskTimeout struct{ limit string }

func (e *taskTimeout) Error() string { return "deadline exceeded: " + e.limit + " passed" }

// isTask reports whether res is go-sdk's reading of a task answer.
func isTask(res *mcp.CallToolResult) bool {
	return res != nil && len(res.Content) == 0 && res.StructuredContent == nil && resultType(res) == "task"
}

// driveTask drives the task that answered cl's tools/call to its end, or
// the task cl's message resumes (messages.CallTool.Task), and returns the
// call's reply (nil when the caller gave up, or when the call went back to
// the supervisor to resume the task on the next connection).
func (c *mcpConnection) driveTask(ctx context.Context, s *mcp.ClientSession, conn *envelopeConn, cl *call, cancel context.CancelCauseFunc) (reply *messages.CallToolReply) {
	msg := cl.msg
	var t *tasks.Task
	if msg.Task != nil {
		t = tasks.FromState(msg.Task)
	} else {
		raw := cl.task.answer.Raw()
		if raw == nil {
			return callFailure(msg, messages.FailureInternal, `server answered resultType "task" (SEP-2663), but its task was not read`)
		}
		var err error
		if t, err = tasks.ParseCreated(raw); err != nil {
			conn.tasks.Abandon(cl.task.answer) // a task it may be: cancelled
			return callFailure(msg, messages.FailureInternal, "server answered a task: "+err.Error())
		}
	}
	ctx, tel := c.cfg.Telemetry.startTask(ctx, c.peer, msg.Name, t) // the task's span and duration (tasks_telemetry.go)
	defer func() { tel.end(ctx, reply) }()                          // (tasks_telemetry.go)
	c.taskStarted(cl, t)                                            // tells a caller that asked (WantTask) the task's id (tasks_detach.go)
	// The task is the server's now: a lost connection must not run the
	// tool again.
	cl.retry = false
	if !msg.TaskDeadline.IsZero() {
		if cl.timer != nil {
			cl.timer.Stop()
		}
		limit := msg.TaskLimit
		if limit == "" {
			limit = "the task's deadline"
		}
		tt := time.AfterFunc(time.Until(msg.TaskDeadline), func() { cancel(&taskTimeout{limit}) })
		defer tt.Stop()
	}
	k := c.taskKeeper(cl, t)
	updates, unfollow := conn.tasks.Follow(t.ID) // the server's notifications/tasks, if it sends them
	defer unfollow()
	if !t.Status.Terminal() && !t.Draft {
		defer conn.tasks.Listen(ctx, t.ID)() // asks for them; a draft server sends them unasked
	}
	cfg := tasks.Config{
		DefaultInterval: c.cfg.Tasks.DefaultInterval,
		MinInterval:     c.cfg.Tasks.MinInterval,
		MaxInterval:     c.cfg.Tasks.MaxInterval,
		Answer:          c.answerer(),
		Seen:            tel.seen(c.taskSeen(cl, t)), // polls as span events (tasks_telemetry.go)
		Keep:            k.keep,
		Leave:           k.leave,
		Updates:         updates,
	}
	res, err := tasks.Drive(ctx, conn.tasks.Request, cfg, t)
	reply, resume := c.taskEnded(ctx, s, cl, t.ID, res, err)
	if resume {
		tel.resumed() // the next connection's span goes on (tasks_telemetry.go)
		return nil    // the record stays: the next connection goes on
	}
	var ended *connectionEnded
	if !errors.As(context.Cause(ctx), &ended) || !ended.closing {
		k.forget()
	}
	return reply
}

// resumeTask is the reply to a call that resumes a task
// (messages.CallTool.Task): no tools/call, the task driven from its state.
func (c *mcpConnection) resumeTask(ctx context.Context, s *mcp.ClientSession, conn *envelopeConn, cl *call) *messages.CallToolReply {
	defer c.untrack(cl)
	if cl.task == nil || conn == nil || conn.tasks == nil {
		cl.cancel(errCallFailed)
		return failCall(cl.msg, &messages.Failure{Kind: messages.FailureNotSupported,
			Message: fmt.Sprintf("task %s cannot be resumed: this connection does not drive tasks (plugin.WithTasks, over the module's stdio or Streamable HTTP transport)", cl.msg.Task.ID)})
	}
	reply := c.driveTask(ctx, s, conn, cl, cl.cancel)
	if reply == nil || reply.Failure != nil {
		cl.cancel(errCallFailed)
	}
	return reply
}

// taskEnded is the reply to a call whose task's drive returned res or
// err; resume when the call went back to the supervisor instead, to poll
// the task from the next connection.
func (c *mcpConnection) taskEnded(ctx context.Context, s *mcp.ClientSession, cl *call, id string, res json.RawMessage, err error) (reply *messages.CallToolReply, resume bool) {
	msg := cl.msg
	if err == nil {
		r, derr := directcall.DecodeCallToolResult(res)
		if derr != nil {
			return callFailure(msg, messages.FailureInternal, fmt.Sprintf("task %s completed with a result that does not decode: %v", id, derr)), false
		}
		return classify(msg, r), false
	}
	var tt *taskTimeout
	var ended *connectionEnded
	cause := context.Cause(ctx)
	switch {
	case ctx.Err() != nil && errors.As(cause, &tt):
		return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: fmt.Sprintf("task %s: %s", id, tt.Error())}), false
	case ctx.Err() != nil && errors.As(cause, &ended):
		if c.resumes() && !ended.closing {
			// The connection ended under the task, which runs on.
			c.resume(cl, err, false)
			return nil, true
		}
		why := "call in flight when the connection ended: " + ended.f.Message
		if c.resumes() {
			why += fmt.Sprintf("; task %s runs on on the server", id)
		}
		return lostCall(msg, why), false
	case ctx.Err() != nil:
		reply := c.callFailed(ctx, s, nil, cl, err)
		if ce, ok := errors.AsType[*tasks.CancelError](err); ok && c.resumes() && connectionFailed(ce.Err) {
			// The connection failed under the cancel: the next one
			// resumes the task only to cancel it.
			c.resumeLost(s, cl, err, true)
		}
		return reply, false
	case errors.Is(err, tasks.ErrNoInput):
		return failCall(msg, &messages.Failure{Kind: messages.FailureNotSupported, Message: err.Error() +
			": no input handler (plugin.WithInputRequired) answers it, so the task was cancelled", Err: err}), false
	case errors.Is(err, tasks.ErrLost):
		return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseTaskLost, Message: err.Error(), Err: err}), false
	case errors.Is(err, tasks.ErrFailed):
		return failCall(msg, causeOf(&messages.Failure{Kind: messages.FailureInternal, Message: err.Error()}, err)), false
	case connectionFailed(err):
		if c.resumes() {
			c.resumeLost(s, cl, err, false)
			return nil, true
		}
		return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseConnectionLost,
			Message: "the connection ended while the task ran: " + err.Error(), Err: kept(err)}), false
	}
	return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Message: err.Error(), Err: kept(err)}), false
}

// connectionFailed reports whether err, of a task request, is its
// connection's failure.
func connectionFailed(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || brokenTransport(err)
}

// resumeLost ends session s, whose connection failed under a task request
// with err (an HTTP endpoint that went away does not end the session by
// itself; a failed request does), and hands cl back to resume the task
// on the next connection: resume.
func (c *mcpConnection) resumeLost(s *mcp.ClientSession, cl *call, err error, cancel bool) {
	c.system.Root.Send(c.self, &sessionEnded{err: err})
	c.resume(cl, err, cancel)
}

// resumes reports whether a task this connection loses goes on from the
// next one: over Streamable HTTP, under a supervisor.
func (c *mcpConnection) resumes() bool { return c.supervised() && resumesTasks(&c.cfg) }

// resume hands cl back to the supervisor, which queues it for the next
// connection: a copy of its message that carries the task's latest state,
// bounded by the task's deadline from now on. With cancel, or when its
// caller gave up, the next connection resumes the task only to cancel it.
func (c *mcpConnection) resume(cl *call, err error, cancel bool) {
	m := *cl.msg
	m.Task = cl.task.state
	switch {
	case cancel:
		// Its caller was answered: nothing bounds the cancel but the
		// supervisor's wait for the next connection.
		m.Deadline, m.Limit = time.Time{}, ""
	case !m.TaskDeadline.IsZero():
		m.Deadline, m.Limit = m.TaskDeadline, m.TaskLimit
	}
	c.log.Info("mcp task resumes on the next connection", zap.String("task", m.Task.ID), zap.Error(err))
	// The actor decides: a caller that gave up has the next connection
	// resume the task only to cancel it.
	c.handBack(cl, &m, cancel)
}

// leave is tasks.Config.Leave: a task whose connection failed is left to
// run on the server, to be resumed from its latest state (over stdio the
// child is gone, and nothing could cancel it). One whose connection was
// closed (the plugin closed, the program ending) is left only when a
// store keeps it for a later ResumeTask; otherwise nothing could resume
// it, and it is cancelled.
func (k *taskKeeper) leave(cause error) bool {
	var ended *connectionEnded
	if !errors.As(cause, &ended) {
		return false
	}
	return !ended.closing || k.store != nil
}

// taskKeeper keeps a call's task as it goes: the latest state for a
// resumption on the next connection, and, with a store, its record.
type taskKeeper struct {
	c      *mcpConnection
	cl     *call
	store  tasks.Store
	server string
	tool   string
	id     string
}

func (c *mcpConnection) taskKeeper(cl *call, t *tasks.Task) *taskKeeper {
	k := &taskKeeper{c: c, cl: cl, tool: cl.msg.Name, id: t.ID}
	if resumesTasks(&c.cfg) {
		k.store = c.cfg.Tasks.Store
		k.server = transportext.LabelOf(c.cfg.Transport)
	}
	return k
}

// keep is tasks.Config.Keep.
func (k *taskKeeper) keep(t *tasks.Task) error {
	st := t.State()
	k.cl.task.state = st
	if k.store == nil {
		return nil
	}
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	return k.store.Put(ctx, tasks.Record{Server: k.server, Tool: k.tool, Task: *st})
}

// forget deletes the task's record: it has ended, or been cancelled.
func (k *taskKeeper) forget() {
	if k.store == nil {
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), storeTimeout)
	defer stop()
	if err := k.store.Delete(ctx, k.server, k.id); err != nil {
		k.c.log.Warn("mcp task store: deleting a record failed", zap.String("task", k.id), zap.Error(err))
	}
}

// storeTimeout bounds each write of a task store.
const storeTimeout = 10 * time.Second

// taskSeen passes each new status message of the task on as the call's
// progress, and counts it as a sign of life for its idle timeout.
func (c *mcpConnection) taskSeen(cl *call, first *tasks.Task) func(*tasks.Task) {
	last, status, n := first.StatusMessage, first.Status, 0
	return func(t *tasks.Task) {
		if t.StatusMessage == last && t.Status == status {
			return
		}
		last, status = t.StatusMessage, t.Status
		n++
		var p *messages.CallProgress
		if t.StatusMessage != "" {
			p = &messages.CallProgress{ID: cl.msg.ID, Progress: float64(n), Message: t.StatusMessage}
		}
		c.progressed(cl, p)
	}
}

// answerer answers a task's input requests with the handlers of the
// connection's client options (tasks.Inputs).
func (c *mcpConnection) answerer() tasks.Answerer {
	return tasks.Inputs(c.cfg.ClientOptions, c.cfg.Roots)
}
