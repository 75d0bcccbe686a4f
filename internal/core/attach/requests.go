package attach

import (
	"context"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// ServerRequest sends a request of the server's resources or prompts to
// the actor's current home and waits for its answer: the
// *messages.ServerReply (a failure of the actor's, such as a grain
// without a server, is one too), or the error of the wait or of locating
// the actor. These requests only read, so one that comes back as a dead
// letter (its grain moved) goes to the actor's next home, at most
// maxSends times in all. When ctx ends, the request is cancelled where it
// went. The plugin facade asks it of a link that has it.
func (l *Link) ServerRequest(ctx context.Context, msg *messages.ServerRequest) (*messages.ServerReply, error) {
	var old *actor.PID
	for sends := 1; ; sends++ {
		pid, err := l.currentOtherThan(ctx, old)
		if err != nil {
			return nil, err
		}
		answer, err := reply.Ask(ctx, l.system, pid, msg, wire.Codec)
		if err != nil {
			wire.Send(l.system, pid, &messages.CancelCall{ID: msg.ID})
			return nil, err
		}
		switch m := answer.(type) {
		case *messages.ServerReply:
			return m, nil
		case *messages.Failure:
			g := *m
			g.Op = msg.Op()
			return &messages.ServerReply{ID: msg.ID, Failure: &g}, nil
		case *actor.DeadLetterResponse:
			l.forget(pid)
			if sends >= maxSends {
				return nil, fmt.Errorf("the connection actor was gone %d times in a row", sends)
			}
			old = pid
		default:
			return nil, errors.New("unrecognised reply from the connection actor: " + fmt.Sprintf("%T", answer))
		}
	}
}
