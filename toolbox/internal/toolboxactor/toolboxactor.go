package toolboxactor

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
)

// Actor is the parent of the actors of many servers (one
// supervisor of package actors each, for a toolbox built from an mcp.json). Its children
// are spawned on request, named by server, so that they live and stop with
// it: stopping the Actor stops every server at once, in parallel, and
// completes when all have stopped. Each supervisor handles its connection's
// failures itself; a supervisor that panics is restarted by protoactor's
// default strategy.
type Actor struct {
	logger *zap.Logger
}

// Spawn asks an [Actor] to spawn Props as its child named Name.
// Reply: [*Spawned]. It carries Props, so it is for the local actor
// system only.
type Spawn struct {
	Name  string
	Props *actor.Props
}

// Spawned answers [Spawn]: the child's PID, or why it could not
// be spawned (e.g. the name is taken).
type Spawned struct {
	PID *actor.PID
	Err error
}

// Props returns the Props of an [Actor]; logger may be nil.
func Props(logger *zap.Logger) *actor.Props {
	if logger == nil {
		logger = zap.NewNop()
	}
	return actor.PropsFromProducer(func() actor.Actor { return &Actor{logger: logger} })
}

// Receive reads as a table of the protocol.
func (t *Actor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *Spawn:
		ctx.Respond(t.spawn(ctx, msg))
	case *actor.Terminated:
		// A child that stopped on its own (its plugin was closed).
		t.logger.Debug("mcp toolbox: server actor stopped", zap.String("pid", msg.Who.Id))
	}
}

func (t *Actor) spawn(ctx actor.Context, msg *Spawn) *Spawned {
	if msg.Name == "" || msg.Props == nil {
		return &Spawned{Err: errors.New("toolboxactor: Spawn needs a name and props")}
	}
	pid, err := ctx.SpawnNamed(msg.Props, msg.Name)
	if err != nil {
		return &Spawned{Err: err}
	}
	return &Spawned{PID: pid}
}
