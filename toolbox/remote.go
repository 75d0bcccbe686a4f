package toolbox

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/plugin"
)

// remoteServers is where a toolbox's servers live when their connections
// are not the toolbox's to start: package grid's grains, each connected
// once on one member of a cluster. grid.OpenToolbox gives Open an option
// that also has these two methods (an unexported type of grid's); the
// toolbox then reaches every server of its config through it instead of
// starting it: its names, routing, status, lazy servers (whose connection
// the first call reaches), pinned tools and tool search work as over
// servers it starts. Go's interfaces are met by their methods, so neither
// package names a type of the other's for it.
type remoteServers interface {
	// ActorSystem is the actor system the servers' facades use, and so the
	// toolbox's (plugin.WithActorSystem, if given, must be the same).
	ActorSystem() *actor.ActorSystem
	// Connect returns a facade over server's connection, activating it if
	// needed, configured by opts (the toolbox's plugin options for that
	// server). It returns once the connection has answered with its tools,
	// or with its failure, or when ctx ends.
	Connect(ctx context.Context, server string, opts ...plugin.Option) (*plugin.McpPlugin, error)
}
