package actors

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"
)

// ToolboxActor is the parent of the actors of many servers (one
// [McpSupervisor] each, for a toolbox built from an mcp.json). Its children
// are spawned on request, named by server, so that they live and stop with
// it: stopping the ToolboxActor stops every server at once, in parallel, and
// completes when all have stopped. Each supervisor handles its connection's
// failures itself; a supervisor that panics is restarted by protoactor's
// default strategy.
type ToolboxActor struct {
	logger *zap.Logger
}

// SpawnServer asks a [ToolboxActor] to spawn Props as its child named Name.
// Reply: [*ServerSpawned]. It carries Props, so it is for the local actor
// system only.
type SpawnServer struct {
	Name  string
	Props *actor.Props
}

// ServerSpawned answers [SpawnServer]: the child's PID, or why it could not
// be spawned (e.g. the name is taken).
type ServerSpawned struct {
	PID *actor.PID
	Err error
}

// NewToolboxProps returns the Props of a [ToolboxActor]; logger may be nil.
func NewToolboxProps(logger *zap.Logger) *actor.Props {
	if logger == nil {
		logger = zap.NewNop()
	}
	return actor.PropsFromProducer(func() actor.Actor { return &ToolboxActor{logger: logger} })
}

// Receive reads as a table of the protocol.
func (t *ToolboxActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *SpawnServer:
		ctx.Respond(t.spawn(ctx, msg))
	case *actor.Terminated:
		// A child that stopped on its own (its plugin was closed).
		t.logger.Debug("mcp toolbox: server actor stopped", zap.String("pid", msg.Who.Id))
	}
}

func (t *ToolboxActor) spawn(ctx actor.Context, msg *SpawnServer) *ServerSpawned {
	if msg.Name == "" || msg.Props == nil {
		return &ServerSpawned{Err: errors.New("actors: SpawnServer needs a name and props")}
	}
	pid, err := ctx.SpawnNamed(msg.Props, msg.Name)
	if err != nil {
		return &ServerSpawned{Err: err}
	}
	return &ServerSpawned{PID: pid}
}
