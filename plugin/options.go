package plugin

import (
	"context"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
)

type options struct {
	// Values is what the options set that the module's other packages
	// read too (internal/core/pluginopt): the connection and its
	// supervision, in their actors.SupervisorConfig.
	pluginopt.Values
	spawn func(*actor.Props) (*actor.PID, error)

	supervision
	controls
	// taskTimeout is WithTasks's task timeout; zero without WithTasks.
	taskTimeout time.Duration
	// taskStore is WithTasks's store; nil without one.
	taskStore TaskStore
}

// WithLogger sends the plugin's logs, the stdio child's stderr and
// protoactor's own logs to logger. Without it the plugin is silent. Tool
// arguments and results are never logged above debug level.
func WithLogger(logger *zap.Logger) Option {
	return newOption("WithLogger", common, func(o *options) {
		o.Supervisor.Connection.Logger = logger
	})
}

// WithActorSystem spawns the connection in an existing actor system, e.g. the
// host agent's. [McpPlugin.Close] then stops the plugin's actors but leaves
// the system running. Without it, plugins without [WithLogger] share one
// process-wide system, and a plugin with a logger gets a system of its own
// (about 2.8 MiB) whose protoactor logs go to that logger. Given to a
// toolbox (toolbox.WithPluginOptions) it is the toolbox's system, as
// WithLogger's logger is its logger. A facade over a cluster's grain and
// the grain itself live in the cluster's system: grid.Connect fails with
// [ErrValidation] for another one, and grid.WithPluginOptions ignores it.
func WithActorSystem(system *actor.ActorSystem) Option {
	return newOption("WithActorSystem", common, func(o *options) {
		o.System = system
	})
}

// WithSpawn has spawn put the plugin's top actor (the supervisor, or the
// connection under [WithoutSupervision]) where the host wants it, e.g. as a
// child of one of its own actors, instead of at the root of the actor
// system. spawn receives the actor's Props and returns its PID; it must
// spawn in the plugin's actor system ([WithActorSystem]). The plugin then
// speaks [messages] to that PID as to one it spawned itself, and
// [McpPlugin.Close] stops it. This is the seam for facades over actors that
// live elsewhere (a toolbox's servers are children of its own parent actor).
func WithSpawn(spawn func(props *actor.Props) (*actor.PID, error)) Option {
	return newOption("WithSpawn", local, func(o *options) {
		o.spawn = spawn
	})
}

// WithClientInfo sets the client identity sent in every request's _meta.
// The default is {Name: "mcpconnector", Version: "0.1.0"}, the module's version.
func WithClientInfo(info *mcp.Implementation) Option {
	return newOption("WithClientInfo", connection, func(o *options) {
		o.Supervisor.Connection.ClientInfo = info
	})
}

// WithConnectTimeout bounds each connection attempt: spawning,
// server/discover and tools/list. Zero or negative means
// actors.DefaultConnectTimeout, 30s. The ctx given to [Connect] bounds the first one
// too. On a facade over a connection that lives elsewhere (grid.Connect)
// it bounds how long the facade waits for that connection's
// first answer, which otherwise only the ctx bounds; a toolbox bounds its
// waits for a server with it.
func WithConnectTimeout(d time.Duration) Option {
	return newOption("WithConnectTimeout", common, func(o *options) {
		o.Supervisor.Connection.ConnectTimeout = d
	})
}

// WithClientOptions sets the base of go-sdk's client options, for handlers a
// server may use (elicitation, sampling). Unless set there, the client
// declares no capabilities and go-sdk's multi-round-trip middleware stays
// disabled, so input_required results are [ErrNotSupported]; see
// [WithInputRequired] for the supported way to drive them.
func WithClientOptions(opts *mcp.ClientOptions) Option {
	return newOption("WithClientOptions", connection, func(o *options) {

		o.BaseClientOptions = opts
	})
}

// InputHandlers answer the requests that a server embeds in an
// input_required result (SEP-2322). A nil handler means the client offers
// no such input and does not declare the capability; a server that asks for
// it anyway fails the call with [ErrInternal]. Handlers may be called from
// several goroutines at once, one per request in flight.
type InputHandlers struct {
	// Elicit answers elicitation/create: it asks the user and returns
	// their answer (accept with content, decline, or cancel).
	Elicit func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	// Sample answers sampling/createMessage: it asks the host's model.
	Sample func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error)
	// Roots answers roots/list: the roots (e.g. file:// directories) the
	// client offers the server. Empty means no roots capability.
	Roots []*mcp.Root
}

// WithInputRequired opts in to driving input_required results (SEP-2322),
// which are otherwise [ErrNotSupported] as the plugin's contract says. With
// it, a tools/call answered input_required is fulfilled with h (each
// embedded request in its own goroutine) and retried with the answers and
// the server's requestState echoed unchanged, as a new JSON-RPC request,
// until the server answers complete; go-sdk's multi-round-trip middleware
// does the rounds, at most 10 per call. The client declares the elicitation,
// sampling and roots capabilities of the handlers that are set. Results of type
// "task" stay [ErrNotSupported] unless [WithTasks] drives them; then these
// handlers answer a task's input requests too.
func WithInputRequired(h InputHandlers) Option {
	return newOption("WithInputRequired", connection, func(o *options) {

		ih := pluginopt.InputHandlers(h)
		o.Input = &ih
	})
}
