package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// A call whose task the connection loses goes back to the supervisor from
// the call's own goroutine (resume), which alone knows the task's latest
// state, and which may be late: the supervisor may have heard of the
// connection's end, and its caller may have given up, before the call is
// back. So the connection, as it ends, announces each such call to the
// supervisor (resumeAhead), before its failure reaches the supervisor; a
// cancel that arrives between the two is kept for the call, whose next
// connection then cancels the task. The goroutine takes the announcement
// back (resumeOff) when the call does not come back after all.

// resumeAhead announces that call id, of sender, comes back to resume its
// task on the next connection.
type resumeAhead struct {
	id     uint64
	sender *actor.PID
}

// resumeOff takes back a resumeAhead: the call ended on its connection.
type resumeOff struct{ id uint64 }

func (*resumeAhead) IgnoreDeadLetterLogging() {}
func (*resumeOff) IgnoreDeadLetterLogging()   {}

// aheadCall is an announced call, not back yet; cancelled when its caller
// gave up meanwhile.
type aheadCall struct {
	sender    *actor.PID
	cancelled bool
}

// announceResume announces cl to the supervisor, if its task goes on from
// the next connection now that this one ends (not closing): it is being
// driven, and has not gone back or ended yet. It runs on the actor, in
// end, before the call's cancellation.
func (c *mcpConnection) announceResume(cl *call, ended *connectionEnded) {
	if ended.closing || !c.resumes() || cl.taskState.Load() == nil {
		return
	}
	c.handMu.Lock()
	defer c.handMu.Unlock()
	if cl.handedBack || cl.settled {
		return
	}
	cl.announced = true
	c.system.Root.Send(c.parent, &resumeAhead{id: cl.msg.ID, sender: cl.sender})
}

// settle notes that cl's task drive has ended, and takes back its
// announcement if it did not go back to the supervisor.
func (c *mcpConnection) settle(cl *call) {
	c.handMu.Lock()
	defer c.handMu.Unlock()
	cl.settled = true
	if cl.announced && !cl.handedBack {
		c.system.Root.Send(c.parent, &resumeOff{id: cl.msg.ID})
	}
}

func (s *mcpSupervisor) onResumeAhead(msg *resumeAhead) {
	if s.ahead == nil {
		s.ahead = map[uint64]aheadCall{}
	}
	s.ahead[msg.id] = aheadCall{sender: msg.sender}
}

// cancelsTaskOf reports whether a cancel from sender cancels the task of
// a call of caller's: a cancel with no sender comes from the connection,
// which hands the call back, and names it for any caller.
func cancelsTaskOf(sender, caller *actor.PID) bool {
	return sender == nil || caller.Equal(sender)
}

// cancelAhead keeps the cancel of an announced call for it: true when msg
// names one.
func (s *mcpSupervisor) cancelAhead(sender *actor.PID, msg *messages.CancelCall) bool {
	a, ok := s.ahead[msg.ID]
	if !ok || !cancelsTaskOf(sender, a.sender) {
		return false
	}
	a.cancelled = true
	s.ahead[msg.ID] = a
	return true
}

// takeAhead is whether the caller of msg, a call back to resume its task,
// gave up while it was announced; the announcement is done with.
func (s *mcpSupervisor) takeAhead(msg *messages.CallTool) (cancelled bool) {
	if msg.Task == nil {
		return false
	}
	a, ok := s.ahead[msg.ID]
	delete(s.ahead, msg.ID)
	return ok && a.cancelled
}
