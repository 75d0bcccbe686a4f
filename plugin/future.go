package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/messages"
)

// Future is a tool call in progress, returned by [McpPlugin.CallTool].
type Future struct {
	p       *McpPlugin
	id      uint64
	name    string
	callID  string // the model's ToolCall ID, if the call comes from one
	callCtx context.Context
	ch      chan any      // the reply, from the plugin's callRouter
	gate    *approvalGate // with WithApproval: whether the call was sent

	mu   sync.Mutex
	done bool
	res  *mcp.CallToolResult
	err  error
}

// Await waits for the call's result. It returns when the server answers,
// when ctx (or the ctx given to CallTool) is done — then the call is
// cancelled on the server and the error wraps ctx's error — or when the
// connection fails. Every error is an [*Error], which says why beside its
// kind: a deadline that ended the call (whichever limit: the caller's,
// [WithDefaultCallTimeout], [WithCallTimeoutCap], [WithIdleTimeout]) matches
// context.DeadlineExceeded and is named in the message; a cancellation
// context.Canceled; a session that ended under the call
// [ErrConnectionLost]; a server's JSON-RPC error is a *jsonrpc.Error to
// errors.As. A call that never reached the server (its session was already
// ending) waits for the reconnection instead of failing. Await may be
// called again; it returns the same outcome.
func (f *Future) Await(ctx context.Context) (*mcp.CallToolResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return f.res, f.err
	}
	var msg any
	select {
	case msg = <-f.ch:
		f.res, f.err = f.p.decodeReply(f.name, msg)
	case <-ctx.Done():
		f.err = f.giveUp(ctx.Err())
	case <-f.callCtx.Done():
		f.err = f.giveUp(f.callCtx.Err())
	case <-f.p.done:
		select {
		case msg = <-f.ch:
			f.res, f.err = f.p.decodeReply(f.name, msg)
		default:
			f.p.router.forget(f.id)
			f.err = f.p.callError(KindInternal, f.name, errors.New("plugin closed before the call was answered"))
		}
	}
	f.done = true
	return f.res, f.err
}

// giveUp cancels the call on the connection and forgets its reply. A call
// still being decided on is never sent.
func (f *Future) giveUp(cause error) error {
	if f.gate == nil || f.gate.abandon() {
		f.p.system.Root.Send(f.p.router.targetOf(f.id, f.p.pid), &messages.CancelCall{ID: f.id})
		f.p.router.forget(f.id)
	}
	return f.p.callError(KindInternal, f.name, fmt.Errorf("caller gave up: %w", cause))
}

// failedCall is the future of a call of tool name (callID: the model's
// ToolCall ID, if any) that failed before anything was sent; its
// [Future.ToolResult] names the call.
func failedCall(callID, name string, err error) *Future {
	return &Future{done: true, err: err, callID: callID, name: name}
}

// FailedFuture returns a future whose Await returns err at once, for
// facades that route calls and find nowhere to send one (a toolbox asked
// for a tool no server has).
func FailedFuture(err error) *Future { return &Future{done: true, err: err} }

var errUnexpectedReply = errors.New("unrecognised reply from the connection actor")

// decodeReply maps a connection actor's reply to a result or an [*Error].
func (p *McpPlugin) decodeReply(tool string, msg any) (*mcp.CallToolResult, error) {
	switch m := msg.(type) {
	case *messages.CallToolReply:
		if m.Failure != nil {
			return nil, p.failure(m.Failure)
		}
		return m.Result, nil
	case *Error: // decided on this side: denied, abandoned, or not sendable
		return nil, m
	case *actor.DeadLetterResponse:
		return nil, p.callError(KindInternal, tool, errors.New("the connection actor is gone"))
	default:
		return nil, p.callError(KindInternal, tool, fmt.Errorf("%w: %T", errUnexpectedReply, msg))
	}
}

// callError is the error of a call of tool, failed on this side.
func (p *McpPlugin) callError(kind Kind, tool string, err error) *Error {
	e := &Error{Kind: kind, Server: p.server, Op: messages.CallOp(tool), Err: err}
	if kind == KindValidation {
		e.Schema = ArgumentsSchema
	}
	return e
}

func (p *McpPlugin) failure(f *messages.Failure) *Error {
	kind := KindInternal
	switch f.Kind {
	case messages.FailureIO:
		kind = KindIO
	case messages.FailureNotSupported:
		kind = KindNotSupported
	}
	return &Error{Kind: kind, Server: p.server, Err: f}
}

// replyProcess is a one-shot mailbox registered with the actor system, like
// protoactor's own futures, but readable as a channel so that a wait can
// also end on a context.
type replyProcess struct {
	system *actor.ActorSystem
	pid    *actor.PID
	ch     chan any
}

func newReplyProcess(system *actor.ActorSystem) *replyProcess {
	r := &replyProcess{system: system, ch: make(chan any, 1)}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpreply$"+system.ProcessRegistry.NextId())
	return r
}

// SendUserMessage keeps the first reply and unregisters the process.
func (r *replyProcess) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	select {
	case r.ch <- msg:
	default:
	}
	r.stop()
}

// SendSystemMessage ignores system messages: nothing watches a reply.
func (r *replyProcess) SendSystemMessage(*actor.PID, any) {}

// Stop unregisters the process.
func (r *replyProcess) Stop(*actor.PID) { r.stop() }

func (r *replyProcess) stop() { r.system.ProcessRegistry.Remove(r.pid) }

// wait blocks for the reply or ctx.
func (r *replyProcess) wait(ctx context.Context) (any, error) {
	select {
	case msg := <-r.ch:
		return msg, nil
	case <-ctx.Done():
		r.stop()
		return nil, ctx.Err()
	}
}

// callRouter is the one mailbox every tool-call reply of a plugin comes to:
// a process registered with the actor system once, which hands each reply to
// its Future by call ID. (A process per call would cost six allocations and
// a registry update per call.) For a facade attached to an actor elsewhere
// (att set) it also keeps each call's message and target, so that a call a
// dead letter bounced can be sent to the actor's new home, and it hears of
// the loss of the actor it watches.
type callRouter struct {
	system  *actor.ActorSystem
	pid     *actor.PID
	att     *attachment
	mu      sync.Mutex
	pending map[uint64]pendingCall
	byReq   map[uint32]uint64 // attached: sender RequestId → call ID
	nextReq uint32
}

// pendingCall is a call waiting for its reply.
type pendingCall struct {
	ch chan any
	f  *Future // for its progress
	// Attached facades only: the call, where it went, how often, and the
	// RequestId of its sender PID, which a dead letter answer carries.
	msg   *messages.CallTool
	to    *actor.PID
	req   uint32
	sends int
	// resending: a goroutine is sending the call to the actor's next home;
	// another reason to resend it (a bounce, a hand-over) is the same one.
	resending bool
}

func newCallRouter(system *actor.ActorSystem, att *attachment) *callRouter {
	r := &callRouter{system: system, att: att, pending: map[uint64]pendingCall{}}
	if att != nil {
		r.byReq = map[uint32]uint64{}
	}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpcalls$"+system.ProcessRegistry.NextId())
	return r
}

// expect registers f for its reply, which will arrive on f.ch (made here
// unless f has one).
func (r *callRouter) expect(f *Future) {
	if f.ch == nil {
		f.ch = make(chan any, 1)
	}
	r.mu.Lock()
	r.pending[f.id] = pendingCall{ch: f.ch, f: f}
	r.mu.Unlock()
}

// expectAt registers f, the call of an attached facade sent as msg to to,
// and returns the sender PID to send it with: the router's, with a
// RequestId of the call's own.
func (r *callRouter) expectAt(f *Future, msg *messages.CallTool, to *actor.PID) *actor.PID {
	if f.ch == nil {
		f.ch = make(chan any, 1)
	}
	id, ch := f.id, f.ch
	r.mu.Lock()
	req := r.newReq()
	r.pending[id] = pendingCall{ch: ch, f: f, msg: msg, to: to, req: req, sends: 1}
	r.byReq[req] = id
	r.mu.Unlock()
	return r.sender(req)
}

// newReq is a fresh RequestId, not 0; called with r.mu held.
func (r *callRouter) newReq() uint32 {
	r.nextReq++
	if r.nextReq == 0 {
		r.nextReq = 1 // 0 means "no request" to protoactor
	}
	return r.nextReq
}

func (r *callRouter) sender(req uint32) *actor.PID {
	return &actor.PID{Address: r.pid.Address, Id: r.pid.Id, RequestId: req}
}

// forget drops call id: its reply, if one comes, goes nowhere.
func (r *callRouter) forget(id uint64) {
	r.mu.Lock()
	r.take(id)
	r.mu.Unlock()
}

// take removes call id and returns it; called with r.mu held.
func (r *callRouter) take(id uint64) (pendingCall, bool) {
	c, ok := r.pending[id]
	if ok {
		delete(r.pending, id)
		if c.req != 0 {
			delete(r.byReq, c.req)
		}
	}
	return c, ok
}

// targetOf is where call id was last sent, or def.
func (r *callRouter) targetOf(id uint64, def *actor.PID) *actor.PID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.pending[id]; ok && c.to != nil {
		return c.to
	}
	return def
}

// resolve answers call id with msg, if it is still waiting.
func (r *callRouter) resolve(id uint64, msg any) {
	r.mu.Lock()
	c, ok := r.take(id)
	r.mu.Unlock()
	if ok {
		c.ch <- msg // buffered, and only one sender: the entry is gone
	}
}

// SendUserMessage delivers a reply to its call. A dead letter means the
// actor is gone. A local one will answer no call of this plugin, so every
// pending call gets it; an attached facade sends the bounced call (which
// never reached the actor) to wherever the actor lives now.
func (r *callRouter) SendUserMessage(pid *actor.PID, message any) {
	_, msg, sender := actor.UnwrapEnvelope(message)
	switch m := msg.(type) {
	case *messages.HandedOver:
		if r.att != nil && sender != nil {
			go r.att.handedOver(sender)
		}
	case *messages.CallToolReply:
		r.resolve(m.ID, m)
	case *messages.CallProgress:
		r.progress(m)
	case *messages.Ready:
		// A watched list (WithToolRefresh on an attached facade).
		if r.att != nil {
			r.att.p.storeTools(m)
		}
	case *actor.DeadLetterResponse:
		if r.att != nil {
			r.mu.Lock()
			id, ok := r.byReq[pid.RequestId]
			r.mu.Unlock()
			if ok {
				go r.att.resend(id)
			}
			return
		}
		r.mu.Lock()
		all := r.pending
		r.pending = map[uint64]pendingCall{}
		r.mu.Unlock()
		for _, c := range all {
			c.ch <- m
		}
	}
}

// progress hands m to the progress handler of its call, if it still waits.
func (r *callRouter) progress(m *messages.CallProgress) {
	r.mu.Lock()
	c, ok := r.pending[m.ID]
	r.mu.Unlock()
	if !ok || c.f == nil || c.f.p.onProgress == nil {
		return
	}
	f := c.f
	f.p.onProgress(Progress{Server: f.p.server, Tool: f.name, CallID: f.callID,
		Progress: m.Progress, Total: m.Total, Message: m.Message})
}

// SendSystemMessage hears of the loss of a watched actor (attached
// facades watch theirs); other system messages are ignored.
func (r *callRouter) SendSystemMessage(_ *actor.PID, message any) {
	if t, ok := message.(*actor.Terminated); ok && r.att != nil {
		r.att.lost(t.Who)
	}
}

// Stop unregisters the router.
func (r *callRouter) Stop(*actor.PID) { r.close() }

func (r *callRouter) close() { r.system.ProcessRegistry.Remove(r.pid) }
