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
	callCtx context.Context
	ch      chan any // the reply, from the plugin's callRouter

	mu   sync.Mutex
	done bool
	res  *mcp.CallToolResult
	err  error
}

// Await waits for the call's result. It returns when the server answers,
// when ctx (or the ctx given to CallTool) is done — then the call is
// cancelled on the server and the error wraps ctx's error — or when the
// connection fails. Every error is an [*Error]. Await may be called again;
// it returns the same outcome.
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

// giveUp cancels the call on the connection and forgets its reply.
func (f *Future) giveUp(cause error) error {
	f.p.system.Root.Send(f.p.pid, &messages.CancelCall{ID: f.id})
	f.p.router.forget(f.id)
	return f.p.callError(KindInternal, f.name, fmt.Errorf("caller gave up: %w", cause))
}

// failedFuture is a future that failed before anything was sent.
func failedFuture(err error) *Future {
	return &Future{done: true, err: err}
}

// FailedFuture returns a future whose Await returns err at once, for
// facades that route calls and find nowhere to send one (a toolbox asked
// for a tool no server has).
func FailedFuture(err error) *Future { return failedFuture(err) }

var errUnexpectedReply = errors.New("unrecognised reply from the connection actor")

// decodeReply maps a connection actor's reply to a result or an [*Error].
func (p *McpPlugin) decodeReply(tool string, msg any) (*mcp.CallToolResult, error) {
	switch m := msg.(type) {
	case *messages.CallToolReply:
		if m.Failure != nil {
			return nil, p.failure(m.Failure)
		}
		return m.Result, nil
	case *actor.DeadLetterResponse:
		return nil, p.callError(KindInternal, tool, errors.New("the connection actor is gone"))
	default:
		return nil, p.callError(KindInternal, tool, fmt.Errorf("%w: %T", errUnexpectedReply, msg))
	}
}

// callError is the error of a call of tool, failed on this side.
func (p *McpPlugin) callError(kind Kind, tool string, err error) *Error {
	e := &Error{Kind: kind, Server: p.server, Op: fmt.Sprintf("tools/call %q", tool), Err: err}
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
// a registry update per call.)
type callRouter struct {
	system  *actor.ActorSystem
	pid     *actor.PID
	mu      sync.Mutex
	pending map[uint64]chan any
}

func newCallRouter(system *actor.ActorSystem) *callRouter {
	r := &callRouter{system: system, pending: map[uint64]chan any{}}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpcalls$"+system.ProcessRegistry.NextId())
	return r
}

// expect registers call id and returns the channel its reply will arrive on.
func (r *callRouter) expect(id uint64) chan any {
	ch := make(chan any, 1)
	r.mu.Lock()
	r.pending[id] = ch
	r.mu.Unlock()
	return ch
}

// forget drops call id: its reply, if one comes, goes nowhere.
func (r *callRouter) forget(id uint64) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}

// SendUserMessage delivers a reply to its call. A dead letter means the
// connection actor is gone: no call of this plugin will be answered, so
// every pending call gets it.
func (r *callRouter) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	switch m := msg.(type) {
	case *messages.CallToolReply:
		r.mu.Lock()
		ch, ok := r.pending[m.ID]
		delete(r.pending, m.ID)
		r.mu.Unlock()
		if ok {
			ch <- m // buffered, and only one sender: the entry is gone
		}
	case *actor.DeadLetterResponse:
		r.mu.Lock()
		all := r.pending
		r.pending = map[uint64]chan any{}
		r.mu.Unlock()
		for _, ch := range all {
			ch <- m
		}
	}
}

// SendSystemMessage ignores system messages: nothing watches the router.
func (r *callRouter) SendSystemMessage(*actor.PID, any) {}

// Stop unregisters the router.
func (r *callRouter) Stop(*actor.PID) { r.close() }

func (r *callRouter) close() { r.system.ProcessRegistry.Remove(r.pid) }
