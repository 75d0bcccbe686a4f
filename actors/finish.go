package actors

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
)

// finishing is a FinishCalls sender waiting for the child's answer, with
// the calls taken out of the queue for it.
type finishing struct {
	to     *actor.PID
	unsent []hostmsg.UnsentCall
}

// onFinishCalls takes the queue out and, while a session is up, asks the
// child; otherwise nothing is in flight, and the answer goes now.
func (s *mcpSupervisor) onFinishCalls(ctx actor.Context) {
	var unsent []hostmsg.UnsentCall
	for _, w := range s.queue {
		w.timer.Stop()
		unsent = append(unsent, hostmsg.UnsentCall{Sender: w.sender, Call: w.msg})
	}
	s.queue = nil
	if s.phase == phaseReady {
		s.finishing = append(s.finishing, finishing{to: ctx.Sender(), unsent: unsent})
		ctx.Request(s.child, &hostmsg.FinishCalls{})
		return
	}
	s.reply(ctx.Sender(), &hostmsg.CallsFinished{Unsent: unsent})
}

// answerFinished answers the oldest FinishCalls sender: the child answers
// each FinishCalls it was sent, in order, and a later one may still wait
// for calls sent after the earlier.
func (s *mcpSupervisor) answerFinished() {
	if len(s.finishing) == 0 {
		return
	}
	f := s.finishing[0]
	s.finishing = s.finishing[1:]
	s.reply(f.to, &hostmsg.CallsFinished{Unsent: f.unsent})
}

// answerFinishing answers every FinishCalls sender: the child has failed
// (and its calls with it), or this supervisor stops.
func (s *mcpSupervisor) answerFinishing() {
	for _, f := range s.finishing {
		s.reply(f.to, &hostmsg.CallsFinished{Unsent: f.unsent})
	}
	s.finishing = nil
}
