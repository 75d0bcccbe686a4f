package attach

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// A link's own process is the sender of every call and the watcher of the
// actor: replies and progress go on to the Owner; a dead letter, a
// hand-over or the actor's loss decide what becomes of the calls sent.
// The work they start (a hand-over, a resend, a loss's grace) runs on the
// link's own goroutines, which Close ends and waits for.

// SendUserMessage hands a reply, as its plain message, to the Owner. A
// dead letter sends the bounced call (which never reached the actor) to
// wherever the actor lives now.
func (l *Link) SendUserMessage(pid *actor.PID, message any) {
	_, msg, sender := actor.UnwrapEnvelope(message)
	switch m := wire.Plain(msg).(type) {
	case *messages.HandedOver:
		if sender != nil {
			l.goOwned(func() { l.handedOver(sender) })
		}
	case *messages.CallToolReply:
		l.calls.Lock()
		c, ok := l.pending[m.ID]
		if ok && pid.RequestId != 0 && pid.RequestId != c.req && lostConnection(m) {
			// The loss of a send the call was resent from: the resent
			// call answers.
			l.calls.Unlock()
			return
		}
		if ok && c.resumable(m) {
			l.calls.Unlock()
			l.goOwned(func() { l.resumeTask(m.ID, c.to, true) })
			return
		}
		l.take(m.ID)
		l.calls.Unlock()
		l.owner.Resolve(m)
	case *messages.CallTask:
		l.calls.Lock()
		if c, ok := l.pending[m.ID]; ok {
			c.task = m.TaskID
			l.pending[m.ID] = c
		}
		l.calls.Unlock()
		l.owner.Task(m) // a detachable call's task (plugin's detach.go)
	case *messages.CallProgress:
		l.owner.Progress(m)
	case *messages.Ready:
		l.owner.StoreTools(m) // a watched list
	case *actor.DeadLetterResponse:
		l.calls.Lock()
		id, ok := l.byReq[pid.RequestId]
		l.calls.Unlock()
		if ok {
			l.goOwned(func() { l.resend(id, "") })
		}
	}
}

// SendSystemMessage hears of the loss of the watched actor; other system
// messages are ignored.
func (l *Link) SendSystemMessage(_ *actor.PID, message any) {
	if t, ok := message.(*actor.Terminated); ok {
		l.lost(t.Who)
	}
}

// Stop unregisters the link's process.
func (l *Link) Stop(*actor.PID) { l.system.ProcessRegistry.Remove(l.pid) }

// newReq is a fresh RequestId, not 0; called with l.calls held.
func (l *Link) newReq() uint32 {
	l.nextReq++
	if l.nextReq == 0 {
		l.nextReq = 1 // 0 means "no request" to protoactor
	}
	return l.nextReq
}

func (l *Link) sender(req uint32) *actor.PID {
	return &actor.PID{Address: l.pid.Address, Id: l.pid.Id, RequestId: req}
}

// take removes call id and returns it; called with l.calls held.
func (l *Link) take(id uint64) (sentCall, bool) {
	c, ok := l.pending[id]
	if ok {
		delete(l.pending, id)
		delete(l.byReq, c.req)
	}
	return c, ok
}

// fail answers call id with a failure of this side, if it still waits.
func (l *Link) fail(id uint64, f *messages.Failure) {
	l.calls.Lock()
	_, ok := l.take(id)
	l.calls.Unlock()
	if ok {
		l.owner.Resolve(&messages.CallToolReply{ID: id, Failure: f})
	}
}

// lost runs when the watched actor is reported gone: the next call locates
// it again, and the calls that went to it get the grace to be answered.
func (l *Link) lost(who *actor.PID) {
	if l.closed.Load() || !l.forget(who) {
		return
	}
	l.markGone(who.Address)
	l.cfg.Logger.Warn("mcp connection lost; calls in flight get a grace period",
		zap.String("address", who.Address), zap.Duration("grace", l.cfg.Grace))
	l.owner.Lost(errors.New("the member hosting the connection is gone: " + who.Address))
	l.calls.Lock()
	var ids []uint64
	for id, c := range l.pending {
		if c.to.Equal(who) {
			ids = append(ids, id)
		}
	}
	l.calls.Unlock()
	if len(ids) == 0 {
		return
	}
	l.goOwned(func() {
		grace := time.NewTimer(l.cfg.Grace)
		defer grace.Stop()
		select {
		case <-grace.C:
		case <-l.ctx.Done():
			return // closed: the facade has given up its calls
		}
		for _, id := range ids {
			l.calls.Lock()
			c, ok := l.pending[id]
			if ok && c.to.Equal(who) && c.task != "" && !resumes(c.msg) {
				l.calls.Unlock()
				l.goOwned(func() { l.resumeTask(id, who, false) }) // the task runs on without the member
				continue
			}
			if ok && c.to.Equal(who) {
				l.take(id)
			}
			l.calls.Unlock()
			if ok && c.to.Equal(who) {
				l.owner.Resolve(&messages.CallToolReply{ID: id, Failure: &messages.Failure{
					Kind: messages.FailureInternal, Op: messages.CallOp(c.msg.Name), Cause: messages.CauseConnectionLost,
					Message: fmt.Sprintf("call in flight when the member hosting the connection (%s) was lost; no answer within %s", who.Address, l.cfg.Grace),
				}})
			}
		}
	})
}

// handedOver runs when the actor at from's address says it has stopped and
// answered all it received: the calls still waiting for it never reached
// its connection, so they go to the actor's next home, and no call goes to
// that address while the lookup still names it.
func (l *Link) handedOver(from *actor.PID) {
	if l.closed.Load() {
		return
	}
	l.markGone(from.Address)
	l.mu.Lock()
	if l.target != nil && l.target.Address == from.Address {
		l.target = nil
	}
	l.mu.Unlock()
	l.calls.Lock()
	var ids []uint64
	for id, c := range l.pending {
		if c.to.Address == from.Address {
			ids = append(ids, id)
		}
	}
	l.calls.Unlock()
	for _, id := range ids {
		l.goOwned(func() { l.resend(id, from.Address) })
	}
}

// resend sends call id, which came back as a dead letter (or was left
// unanswered by an actor that handed over) and so never reached the
// actor's connection, to the actor's current home, under a new RequestId:
// a late bounce of the old send is then no reason to send it again. Close
// ends its search for the actor's next home. With from set (a hand-over's
// address), a call that is no longer at from (sent elsewhere meanwhile)
// stays where it is.
func (l *Link) resend(id uint64, from string) {
	l.calls.Lock()
	c, ok := l.pending[id]
	if ok && (c.resending || (from != "" && c.to.Address != from)) {
		ok = false // being sent already, or sent elsewhere since
	} else if ok && from != "" && c.task != "" && !resumes(c.msg) {
		// A hand-over left a call whose task runs: resumed, never sent as
		// a new tools/call (the connection's loss reply may come first or
		// later; resumeTask and the stale-reply check make it one resend).
		l.calls.Unlock()
		l.resumeTask(id, c.to, false)
		return
	} else if ok {
		c.resending = true
		l.pending[id] = c
	}
	l.calls.Unlock()
	if !ok || l.closed.Load() {
		return
	}
	l.forget(c.to)
	fail := func(why string) {
		l.fail(id, &messages.Failure{Kind: messages.FailureInternal, Op: messages.CallOp(c.msg.Name), Message: why})
	}
	if c.sends >= maxSends {
		fail(fmt.Sprintf("the connection actor was gone %d times in a row", c.sends))
		return
	}
	deadline := time.Now().Add(relocateTimeout)
	if !c.msg.Deadline.IsZero() {
		deadline = c.msg.Deadline
	}
	ctx, cancel := context.WithDeadline(l.ctx, deadline)
	defer cancel()
	// The home the call bounced off is gone: the next one.
	old := c.to
	if c.anyHome {
		old = nil
	}
	pid, err := l.currentOtherThan(ctx, old)
	if err != nil {
		fail(err.Error())
		return
	}
	l.calls.Lock()
	c, ok = l.pending[id]
	if ok {
		delete(l.byReq, c.req)
		c.req = l.newReq()
		l.byReq[c.req] = id
		c.to, c.sends, c.resending, c.anyHome = pid, c.sends+1, false, false
		l.pending[id] = c
	}
	l.calls.Unlock()
	if ok {
		wire.Request(l.system, pid, c.msg, l.sender(c.req))
	}
}

// resumable reports whether reply r, to call c, is the loss of the
// connection under the call's task: the task runs on on the server (or was
// given up by a connection that had no store to leave it to), and the
// actor's next home may resume it.
func (c sentCall) resumable(r *messages.CallToolReply) bool {
	return c.task != "" && !resumes(c.msg) && lostConnection(r)
}

// lostConnection reports whether r is the loss of its call's connection.
func lostConnection(r *messages.CallToolReply) bool {
	return r.Failure != nil && r.Failure.Cause == messages.CauseConnectionLost
}

// resumeTask sends call id, whose connection at from was lost while its
// task ran, to the actor's next home, to resume the task without calling
// the tool again: the call carries the task's id (tasks.Call.Resume
// with no status), and the grain there takes the task's latest state from
// the task store the members share. The call is then bounded by its task's
// deadline. Resumed once: a resumed call that loses its connection again
// fails. anyHome lets the call go back to from, when the lookup still
// names it: a connection that ended under its task without its actor
// (a stdio child that died) is answered there, as a task it cannot resume;
// an actor that is stopping bounces the call to its next home.
func (l *Link) resumeTask(id uint64, from *actor.PID, anyHome bool) {
	l.calls.Lock()
	c, ok := l.pending[id]
	if ok && !resumes(c.msg) && c.task != "" {
		m := tasks.Resuming(c.msg, &messages.TaskState{ID: c.task})
		if x := tasks.CallOf(m); !x.Deadline.IsZero() {
			m.Deadline, m.Limit = x.Deadline, x.Limit
		}
		c.msg, c.to, c.anyHome = m, from, anyHome
		l.pending[id] = c
	} else {
		ok = false
	}
	l.calls.Unlock()
	if ok {
		l.cfg.Logger.Info("mcp task's connection lost; resuming the task at the connection's next home",
			zap.String("task", c.task), zap.String("address", from.Address))
		l.resend(id, "")
	}
}

// resumes reports whether msg resumes a task.
func resumes(msg *messages.CallTool) bool { return msg.Ext != nil && msg.Ext.Resumes() }
