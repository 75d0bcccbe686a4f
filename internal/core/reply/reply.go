package reply

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// ErrGone is the error of [AskReady] when its answer is a dead letter:
// no connection actor is there any more.
var ErrGone = errors.New("the connection actor is gone")

// Codec is how a question leaves and its answer is read. The zero Codec
// sends the message as it is and reads the answer as it arrives, as
// between actors of one process; grid's link passes one that sends an
// actor on another member the wire form and reads wire forms back.
type Codec struct {
	// Request sends msg to to with sender as its sender; nil means
	// system.Root.RequestWithCustomSender.
	Request func(system *actor.ActorSystem, to *actor.PID, msg any, sender *actor.PID)
	// Read is the answer as its reader takes it; nil keeps it as it is.
	Read func(msg any) any
}

// AskReady asks to, a connection actor or its supervisor, for msg
// (messages.AwaitReady or messages.Reconnect) and reads the answer as
// theirs: the *messages.Ready, a *messages.Failure as the error, [ErrGone]
// for a dead letter, and an error naming any other answer's type.
func AskReady(ctx context.Context, system *actor.ActorSystem, to *actor.PID, msg any, c Codec) (*messages.Ready, error) {
	answer, err := Ask(ctx, system, to, msg, c)
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
// or ctx's error, msg leaving and the answer read by c.
func Ask(ctx context.Context, system *actor.ActorSystem, to *actor.PID, msg any, c Codec) (any, error) {
	r := &process{system: system, read: c.Read, ch: make(chan any, 1)}
	r.pid, _ = system.ProcessRegistry.Add(r, "mcpreply$"+system.ProcessRegistry.NextId())
	if c.Request != nil {
		c.Request(system, to, msg, r.pid)
	} else {
		system.Root.RequestWithCustomSender(to, msg, r.pid)
	}
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
	read   func(any) any
	ch     chan any
}

// SendUserMessage keeps the first reply, as read, and unregisters the
// process.
func (r *process) SendUserMessage(_ *actor.PID, message any) {
	_, msg, _ := actor.UnwrapEnvelope(message)
	if r.read != nil {
		msg = r.read(msg)
	}
	select {
	case r.ch <- msg:
	default:
	}
	r.stop()
}

// SendSystemMessage ignores system messages: nothing watches a reply.
func (r *process) SendSystemMessage(*actor.PID, any) {}

// Stop unregisters the process.
func (r *process) Stop(*actor.PID) { r.stop() }

func (r *process) stop() { r.system.ProcessRegistry.Remove(r.pid) }
