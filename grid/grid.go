package grid

import (
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// KindName is the cluster kind of MCP connection grains, "mcp-connection".
const KindName = actors.GrainKind

// NewKind returns the cluster kind whose grains are the connections to the
// enabled servers of cfg, the grain identity being the server's name. Every
// member should register it with the same config. opts govern the
// connection on the hosting member: logger, client info, connect timeout,
// backoff, restart budget, plugin.WithRetryIdempotent,
// plugin.WithDrainTimeout (see plugin.GrainProps). A server's "timeout"
// from cfg applies to calls made through [Connect] or a clustered toolbox.
func NewKind(cfg *toolbox.Config, opts ...plugin.Option) *cluster.Kind {
	return cluster.NewKind(KindName, plugin.GrainProps(func(server string) (transport.McpTransport, error) {
		return Transport(cfg, server)
	}, opts...))
}

// Transport is the transport of server in cfg, named for logs and errors,
// or why there is none: no such server, a disabled one, or one whose
// transport is not supported.
func Transport(cfg *toolbox.Config, server string) (transport.McpTransport, error) {
	sc, ok := cfg.Servers[server]
	switch {
	case !ok:
		return nil, fmt.Errorf("grid: no server %q in the config", server)
	case sc.Disabled:
		return nil, fmt.Errorf("grid: server %q is disabled in the config", server)
	}
	t, err := sc.Transport()
	if err != nil {
		return nil, err
	}
	return toolbox.NamedTransport(server, t), nil
}

// Connect returns a facade over the grain of server in c, from whichever
// member calls it: the same API and guarantees as plugin.Connect (Tools,
// ToolDefinitions, CallTool futures, OnStreamChunk, error kinds,
// cancellation reaching the server). It activates the grain if needed and
// returns once it has answered with its tools. Close leaves the grain
// running for the other members. opts are the facade's: timeouts of calls,
// status handlers, logger, plugin.WithLossGrace.
func Connect(ctx context.Context, c *cluster.Cluster, server string, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	return plugin.Attach(ctx, c.ActorSystem, fmt.Sprintf("server %q (%s grain)", server, KindName),
		actors.LocateGrain(c, server), opts...)
}
