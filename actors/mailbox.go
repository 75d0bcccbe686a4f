package actors

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// callerRuns is a supervised connection's mailbox: protoactor's unbounded
// one, whose run starts on the goroutine of the tool call that finds it
// idle, instead of on a new goroutine. A lone call then costs one hand-off
// between goroutines, as it does in a client with one reader goroutine:
// its caller processes the message and writes the line (the flusher, on
// the same goroutine), and the reader hands the answer back. Every other
// message (the actor's own, the supervisor's, protoactor's system
// messages) starts a run as protoactor does, on a goroutine of its own.
//
// The actor still processes one message at a time, in order: whichever
// goroutine runs the mailbox, it runs it alone (protoactor's scheduling
// flag). A call finds the mailbox idle only when nothing is queued before
// it; a message that arrives while the caller's run lasts (a few
// microseconds) is processed in that run, as protoactor's run would (no
// handler waits, but for a stop's drain, which is bounded as for Close).
// An unsupervised connection keeps protoactor's goroutines: its OnStatus
// and OnReady, a program's functions, must not run on a caller's
// goroutine.
type callerRuns struct {
	actor.Mailbox
	next actor.Dispatcher // protoactor's: a goroutine per run

	mu  sync.Mutex // held by a post
	run func()     // the run the post under way scheduled; nil when none
}

// mailboxFor is the mailbox of a connection with cfg, with fl: callerRuns
// unless the connection has OnStatus or OnReady.
func mailboxFor(cfg *ConnectionConfig, fl *flusher) actor.MailboxProducer {
	if cfg.OnStatus != nil || cfg.OnReady != nil {
		return actor.Unbounded(fl)
	}
	return callerMailbox(fl)
}

// callerMailbox returns the producer of callerRuns mailboxes with mw.
func callerMailbox(mw ...actor.MailboxMiddleware) actor.MailboxProducer {
	unbounded := actor.Unbounded(mw...)
	return func() actor.Mailbox { return &callerRuns{Mailbox: unbounded()} }
}

// RegisterHandlers gives the mailbox inv and d, protoactor's dispatcher,
// behind a dispatcher that only keeps the run it is asked to schedule.
func (m *callerRuns) RegisterHandlers(inv actor.MessageInvoker, d actor.Dispatcher) {
	m.next = d
	m.Mailbox.RegisterHandlers(inv, keepRun{m})
}

// PostUserMessage posts msg, and starts the run it scheduled, if any: on
// this goroutine for a tool call, else as protoactor does.
func (m *callerRuns) PostUserMessage(msg any) {
	_, call := actor.UnwrapEnvelopeMessage(msg).(*messages.CallTool)
	m.start(m.post(msg, m.Mailbox.PostUserMessage), call)
}

// PostSystemMessage posts msg, and starts the run it scheduled, if any,
// as protoactor does.
func (m *callerRuns) PostSystemMessage(msg any) {
	m.start(m.post(msg, m.Mailbox.PostSystemMessage), false)
}

// post posts msg with post, and returns the run that posting scheduled
// (nil when the mailbox was running): posts take turns, so that a run is
// started by the post that scheduled it, and a call never starts the run
// of a system message posted just before it (a stop's drain).
func (m *callerRuns) post(msg any, post func(any)) func() {
	m.mu.Lock()
	post(msg) // keepRun.Schedule, if it schedules, under m.mu
	run := m.run
	m.run = nil
	m.mu.Unlock()
	return run
}

// start starts run, if any: here, or on a goroutine of its own.
func (m *callerRuns) start(run func(), here bool) {
	switch {
	case run == nil:
	case here:
		run()
	default:
		m.next.Schedule(run)
	}
}

// keepRun is callerRuns' dispatcher: Schedule keeps the run for the post
// that scheduled it, whose goroutine holds m.mu.
type keepRun struct{ m *callerRuns }

func (k keepRun) Schedule(run func()) { k.m.run = run }

func (k keepRun) Throughput() int { return k.m.next.Throughput() }
