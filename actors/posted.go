package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/messages"
)

// Posted calls: a direct call over stdio needs no goroutine of its own.
// The mailbox posts the call's line (directcall.Poster): it is queued, and
// the lines posted during one run of the mailbox go out together, in one
// write, when the mailbox is empty (flusher; the run is often the caller's
// own, see mailbox.go); the mailbox never waits on the pipe (what the pipe
// does not take at once goes on a goroutine that waits for it). The answer
// comes on the goroutine that reads the server's stdout, which decodes it
// and answers the caller at once, as a call's worker did.
//
// Who decides a call's fate: whoever takes it out of its connection's
// table of direct calls, where each posted call waits: the reader as an
// answer comes (Answer); the goroutine whose write of its line failed
// (Unsent: never sent, it waits for the next session); the mailbox when
// the caller gives up, or the deadline or the idle timeout passes (a
// settle message: the timers send it); and, when the connection ends,
// whoever finishes the last write under way (endPosted): only then is a
// call still waiting known to have left. That table is the one the
// workers' calls settled the same race in (with the call's context), and
// its lock the one place where it is settled: what one of them takes, only
// it answers (or hands back, or drops).
//
// Calls that need a goroutine keep the worker (run): an extension's
// (tasks), a resumed task's, a traced one's (its span wraps the request),
// and every call on go-sdk's session (HTTP, a dialect without the direct
// path, MCPCONNECTOR_DIRECT_CALLS=0).

// posts reports whether msg is posted (postCall) rather than run on a
// worker.
func (c *mcpConnection) posts(msg *messages.CallTool) bool {
	return c.post != nil && c.cfg.Telemetry == nil && (c.conn == nil || len(c.conn.parts) == 0) &&
		!resumes(msg) && c.callsDirect(c.direct)
}

// postCall posts msg's line, to be written once the mailbox is empty.
func (c *mcpConnection) postCall(sender *actor.PID, msg *messages.CallTool) {
	cl := &call{msg: msg, sender: sender, retry: c.retryable(msg.Name), c: c}
	c.admit(cl, nil) // its deadline settles it (expire)
	pc := directcall.Call{Name: msg.Name, Arguments: msg.Arguments}
	if cl.prog != nil {
		pc.ProgressToken = cl.prog.token
	}
	// Attempted before the line can leave: a write under way on another
	// goroutine may take it, and fail it (Unsent), before Post returns.
	cl.sent.store(sendAttempted)
	n, err := c.post.Post(pc, cl)
	if err != nil {
		cl.sent.store(sendNotAttempted)
		// Never sent: a connection that ended (the call waits for the
		// next session, as callFailed decides), or arguments that do not
		// marshal.
		c.stopTimers(cl)
		c.conclude(cl, c.callFailed(context.Background(), nil, c.tail, cl, err))
		return
	}
	cl.n = n
	c.flushLater()
}

// flushLater has the lines posted written once the mailbox is empty (at
// once without the flusher: a connection built outside
// NewConnectionProps).
func (c *mcpConnection) flushLater() {
	if c.flush == nil {
		c.post.Flush()
		return
	}
	c.flush.hold(c.post)
}

// settle: a posted call's timer fired (its deadline, its idle timeout),
// with cause.
type settle struct {
	cl    *call
	cause error
}

func (*settle) IgnoreDeadLetterLogging() {}

// expire is a timer's cancel of cl with cause: a worker's call is
// cancelled (its goroutine answers), a posted call's mailbox is told.
func (cl *call) expire(cause error) {
	if cl.cancel != nil { // set before the timers, never on a posted call
		cl.cancel(cause)
		return
	}
	cl.c.system.Root.Send(cl.c.self, &settle{cl: cl, cause: cause})
}

// cancelCall cancels cl with cause, on the mailbox: a posted call is
// settled at once, a worker's call is cancelled (its goroutine answers).
func (c *mcpConnection) cancelCall(cl *call, cause error) {
	if cl.n != 0 {
		c.settle(cl, cause)
		return
	}
	cl.cancel(cause)
}

// endPosted decides the posted calls of a connection that ended: ended
// says why. A call's line may still be queued, or in a write under way on
// another goroutine, and only that write knows whether it left: so they
// are decided once post's writes are done (AfterWrites), on the goroutine
// of the last (or at once). A call whose write failed has been told
// Unsent by then, and waits for the next session; one still waiting for
// its answer was sent: in flight when the connection ended (run again on
// the next session when its tool may repeat, else lost), as a worker's
// call is. The connection counts the wait among its goroutines (wg): it is
// not drained before these calls are decided. A connection has one
// session, so its Poster and stderr tail are those of every call posted.
func (c *mcpConnection) endPosted(calls []*call, ended *connectionEnded) {
	post, tail := c.post, c.tail
	for _, cl := range calls {
		c.stopTimers(cl)
	}
	c.wg.Add(1) // a retiring connection waits for these decisions, as for a worker's
	post.AfterWrites(func() {
		defer c.wg.Done()
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(ended)
		for _, cl := range calls {
			if !cl.finished.Load() && post.Withdraw(cl.n) {
				c.conclude(cl, c.callFailed(ctx, nil, tail, cl, ended))
			}
		}
	})
}

// settle decides the fate of posted call cl with cause, unless its answer
// took it first: its caller gave up (nobody to answer), or its deadline or
// idle timeout passed (a deadline failure). The server is told, unless the
// connection has ended (the Poster then sends nothing).
func (c *mcpConnection) settle(cl *call, cause error) {
	if cl.n == 0 || cl.finished.Load() || !c.post.Withdraw(cl.n) {
		return // answered, or being answered, by the reader
	}
	c.stopTimers(cl)
	c.post.Cancel(cl.n, context.Canceled.Error())
	c.flushLater()
	var reply *messages.CallToolReply
	var idle *idleTimeout
	switch {
	case errors.Is(cause, errCallerGaveUp):
	case errors.As(cause, &idle):
		reply = failCall(cl.msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline, Message: idle.Error()})
	default:
		reply = failCall(cl.msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: "deadline exceeded: " + limitOf(cl.msg) + " passed"})
	}
	c.conclude(cl, reply)
}

// Answer takes a posted call's answer, on the goroutine that reads the
// server's stdout ([directcall.Answerer]): the call is the reader's now.
// result may be the line's own bytes: it is decoded before Answer returns.
func (cl *call) Answer(result json.RawMessage, werr error) { cl.c.answered(cl, result, werr) }

// Unsent: posted call cl's line was never written (the pipe closed at the
// server's end), and the call is this goroutine's now: it waits for the
// next session, as a call the session ended before it was sent.
func (cl *call) Unsent(err error) {
	c := cl.c
	cl.sent.store(sendFailed)
	c.stopTimers(cl)
	c.conclude(cl, c.callFailed(context.Background(), nil, c.tail, cl, err))
}

// answered decodes the answer of posted call cl (result, or werr, the
// server's error), and answers its caller.
func (c *mcpConnection) answered(cl *call, result json.RawMessage, werr error) {
	var reply *messages.CallToolReply
	func() {
		defer func() {
			if v := recover(); v != nil {
				reply = callFailure(cl.msg, messages.FailureInternal, fmt.Sprintf("panic: %v", v))
			}
		}()
		c.stopTimers(cl)
		if werr != nil {
			reply = c.callFailed(context.Background(), nil, c.tail, cl, fmt.Errorf("calling %q: %w", methodCallTool, werr))
			return
		}
		res, err := directcall.DecodeCallToolResult(result)
		if err != nil {
			reply = c.callFailed(context.Background(), nil, c.tail, cl, err)
			return
		}
		reply = classify(cl.msg, res)
	}()
	c.conclude(cl, reply)
}

// stopTimers stops cl's deadline and idle timer, and its progress.
func (c *mcpConnection) stopTimers(cl *call) {
	if cl.timer != nil {
		cl.timer.Stop()
	}
	c.untrack(cl)
}

// conclude sends reply (if any) to cl's caller and marks cl finished,
// unless it went back to the actor (handBack).
func (c *mcpConnection) conclude(cl *call, reply *messages.CallToolReply) {
	if reply != nil {
		c.cfg.deliver(c.system, cl.sender, reply)
	}
	if cl.back {
		return
	}
	cl.finished.Store(true)
	if c.awaitFinish.Load() {
		c.system.Root.Send(c.self, &callFinished{})
	}
}

// flusher is the connection's mailbox middleware: once the mailbox is
// empty it flushes the direct calls' lines the mailbox posted, so that the
// calls of one run of the mailbox leave in one write, and a lone call
// leaves as its message is done. It belongs to the Props
// (NewConnectionProps), and flushes whatever its connections posted.
type flusher struct {
	mu   sync.Mutex
	held []directcall.Poster
}

// hold has p flushed when the mailbox is empty.
func (f *flusher) hold(p directcall.Poster) {
	f.mu.Lock()
	for _, h := range f.held {
		if h == p {
			f.mu.Unlock()
			return
		}
	}
	f.held = append(f.held, p)
	f.mu.Unlock()
}

// MailboxEmpty flushes what was held, at once: Flush never waits on the
// pipe, and the lines posted while a write is under way leave together
// after it (the transport's writer queues them). It does not yield first
// to gather more lines: measured, that lost calls per second at every
// number of callers (docs/benchmarks.md).
func (f *flusher) MailboxEmpty() {
	f.mu.Lock()
	for i, p := range f.held {
		p.Flush()
		f.held[i] = nil
	}
	f.held = f.held[:0]
	f.mu.Unlock()
}

func (*flusher) MailboxStarted()     {}
func (*flusher) MessagePosted(any)   {}
func (*flusher) MessageReceived(any) {}
