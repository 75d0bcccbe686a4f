package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// FinishCalls asks an [McpSupervisor] (or an [McpConnection]) to answer,
// with [CallsFinished], once the calls it was sent before this message are
// done: the calls in flight have their answers, and the calls a supervisor
// was holding for a reconnection are handed back unsent. A host that is
// about to stop a supervisor asks it first, so that what it started
// finishes and what it never started can go elsewhere; the host bounds the
// wait itself. Calls sent after it are served as usual.
type FinishCalls struct{}

// CallsFinished answers [FinishCalls].
type CallsFinished struct {
	// Unsent are the calls the supervisor held without sending them to its
	// connection (waiting for a reconnection), taken out of its queue: they
	// never reached the server, and no one else answers them.
	Unsent []UnsentCall
}

// UnsentCall is a call that never reached the server, with the sender its
// answer was for.
type UnsentCall struct {
	Sender *actor.PID
	Call   *messages.CallTool
}

// finishing is a FinishCalls sender waiting for the child's answer, with
// the calls taken out of the queue for it.
type finishing struct {
	to     *actor.PID
	unsent []UnsentCall
}

// onFinishCalls takes the queue out and, while a session is up, asks the
// child; otherwise nothing is in flight, and the answer goes now.
func (s *McpSupervisor) onFinishCalls(ctx actor.Context) {
	var unsent []UnsentCall
	for _, w := range s.queue {
		w.timer.Stop()
		unsent = append(unsent, UnsentCall{Sender: w.sender, Call: w.msg})
	}
	s.queue = nil
	if s.phase == phaseReady {
		s.finishing = append(s.finishing, finishing{to: ctx.Sender(), unsent: unsent})
		ctx.Request(s.child, &FinishCalls{})
		return
	}
	s.reply(ctx.Sender(), &CallsFinished{Unsent: unsent})
}

// answerFinished answers the oldest FinishCalls sender: the child answers
// each FinishCalls it was sent, in order, and a later one may still wait
// for calls sent after the earlier.
func (s *McpSupervisor) answerFinished() {
	if len(s.finishing) == 0 {
		return
	}
	f := s.finishing[0]
	s.finishing = s.finishing[1:]
	s.reply(f.to, &CallsFinished{Unsent: f.unsent})
}

// answerFinishing answers every FinishCalls sender: the child has failed
// (and its calls with it), or this supervisor stops.
func (s *McpSupervisor) answerFinishing() {
	for _, f := range s.finishing {
		s.reply(f.to, &CallsFinished{Unsent: f.unsent})
	}
	s.finishing = nil
}
