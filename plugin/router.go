package plugin

import (
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// callRouter is the one mailbox every tool-call reply of a plugin comes to:
// a process registered with the actor system once, which hands each reply to
// its Future by call ID. (A process per call would cost six allocations and
// a registry update per call.) A facade over an actor elsewhere has its
// replies brought here by its link (package internal/core/attach).
type callRouter struct {
	system  *actor.ActorSystem
	pid     *actor.PID
	mu      sync.Mutex
	pending map[uint64]pendingCall
}

// pendingCall is a call waiting for its reply.
type pendingCall struct {
	ch chan any
	f  *Future // for its progress
}

func newCallRouter(system *actor.ActorSystem) *callRouter {
	r := &callRouter{system: system, pending: map[uint64]pendingCall{}}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpcalls$"+system.ProcessRegistry.NextId())
	return r
}

// replyChans are the channels futures wait on for their reply. A channel
// goes back only once its one reply has been taken (Future.received): the
// router takes a call's entry out before it sends, and sends once. One a
// caller gave up on is left to the collector, as a reply may still come.
var replyChans = sync.Pool{New: func() any { return make(chan any, 1) }}

// expect registers f for its reply, which will arrive on f.ch (taken from
// replyChans here unless f has one). A call that approval let through leaves approving
// (nil for any other) as it is registered, under the router's lock, so
// that inFlight never counts it twice.
func (r *callRouter) expect(f *Future, approving *atomic.Int64) {
	if f.ch == nil {
		f.ch = replyChans.Get().(chan any)
	}
	r.mu.Lock()
	r.pending[f.id] = pendingCall{ch: f.ch, f: f}
	if approving != nil {
		approving.Add(-1)
	}
	r.mu.Unlock()
}

// forget drops call id: its reply, if one comes, goes nowhere.
func (r *callRouter) forget(id uint64) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}

// inFlight is how many calls wait for their reply, and approving's
// count of calls being decided on, read together.
func (r *callRouter) inFlight(approving *atomic.Int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(approving.Load()) + len(r.pending)
}

// resolve answers call id with msg, if it is still waiting.
func (r *callRouter) resolve(id uint64, msg any) {
	r.mu.Lock()
	c, ok := r.pending[id]
	delete(r.pending, id)
	r.mu.Unlock()
	if ok {
		c.ch <- msg // buffered, and only one sender: the entry is gone
	}
}

// SendUserMessage delivers a reply to its call. A dead letter means the
// actor is gone: it will answer no call of this plugin, so every pending
// call gets it.
func (r *callRouter) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	switch m := msg.(type) {
	case *messages.CallToolReply:
		r.resolve(m.ID, m)
	case *messages.ServerReply: // resources and prompts (resources.go)
		r.resolve(m.ID, m)
	case *messages.CallProgress:
		r.progress(m)
	case *messages.CallTask:
		r.task(m) // detach.go
	case *actor.DeadLetterResponse:
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

// SendSystemMessage ignores system messages: the router watches nothing.
func (r *callRouter) SendSystemMessage(*actor.PID, any) {}

// Stop unregisters the router.
func (r *callRouter) Stop(*actor.PID) { r.close() }

func (r *callRouter) close() { r.system.ProcessRegistry.Remove(r.pid) }
