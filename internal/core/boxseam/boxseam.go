package boxseam

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/plugin"
)

// Remote says where a toolbox's servers live: the actor system its
// facades use, and how to reach one server's actor, activating it if
// needed, as a facade with the given plugin options.
type Remote struct {
	System *actor.ActorSystem
	Attach func(ctx context.Context, server string, opts ...plugin.Option) (*plugin.McpPlugin, error)
}

// WithRemote returns a toolbox.Option (as any: package toolbox imports this
// one) that makes the toolbox's servers r's. Package toolbox sets it in its
// init.
var WithRemote func(r *Remote) any
