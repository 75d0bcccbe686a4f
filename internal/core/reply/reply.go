package reply

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// ErrGone is the error of [AskReady] when its answer is a dead letter:
// no connection actor is there any more.
var ErrGone = errors.New("the connection actor is gone")

// AskReady asks to, a connection actor or its supervisor, for msg
// (messages.AwaitReady or messages.Reconnect) and reads the answer as
// theirs: the *messages.Ready, a *messages.Failure as the error, [ErrGone]
// for a dead letter, and an error naming any other answer's type.
func AskReady(ctx context.Context, system *actor.ActorSystem, to *actor.PID, msg any) (*messages.Ready, error) {
	answer, err := Ask(ctx, system, to, msg)
	if err != nil {
		return nil, err
	}
	switch m := answer.(type) {
	case *messages.Ready:
		return m, nil
	case *messages.Failure:
		return nil, m
	case *actor.DeadLetterResponse:
		return nil, ErrGone
	default:
		return nil, fmt.Errorf("unrecognised reply from the connection actor: %T", answer)
	}
}

// Ask sends msg to to, with a one-shot mailbox as its sender, and returns
// the first message that mailbox receives (a dead letter answer included),
// or ctx's error. To an actor on another member msg goes in its wire form,
// and the answer comes back as its plain message.
func Ask(ctx context.Context, system *actor.ActorSystem, to *actor.PID, msg any) (any, error) {
	r := &process{system: system, ch: make(chan any, 1)}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpreply$"+system.ProcessRegistry.NextId())
	wire.Request(system, to, msg, r.pid)
	select {
	case m := <-r.ch:
		return m, nil
	case <-ctx.Done():
		r.stop()
		return nil, ctx.Err()
	}
}

// process is the one-shot mailbox.
type process struct {
	system *actor.ActorSystem
	pid    *actor.PID
	ch     chan any
}

// SendUserMessage keeps the first reply, as its plain message, and
// unregisters the process.
func (r *process) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	select {
	case r.ch <- wire.Plain(msg):
	default:
	}
	r.stop()
}

// SendSystemMessage ignores system messages: nothing watches a reply.
func (r *process) SendSystemMessage(*actor.PID, any) {}

// Stop unregisters the process.
func (r *process) Stop(*actor.PID) { r.stop() }

func (r *process) stop() { r.system.ProcessRegistry.Remove(r.pid) }
