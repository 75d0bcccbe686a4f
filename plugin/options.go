package plugin

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Option configures [Connect].
type Option func(*options)

type options struct {
	logger         *zap.Logger
	system         *actor.ActorSystem
	clientInfo     *mcp.Implementation
	connectTimeout time.Duration
	clientOptions  *mcp.ClientOptions
}

// WithLogger sends the plugin's logs, the stdio child's stderr and
// protoactor's own logs to logger. Without it the plugin is silent. Tool
// arguments and results are never logged above debug level.
func WithLogger(logger *zap.Logger) Option {
	return func(o *options) { o.logger = logger }
}

// WithActorSystem spawns the connection in an existing actor system, e.g. the
// host agent's. [McpPlugin.Close] then stops the plugin's actors but leaves
// the system running. Without it the plugin creates a system of its own.
func WithActorSystem(system *actor.ActorSystem) Option {
	return func(o *options) { o.system = system }
}

// WithClientInfo sets the client identity sent in every request's _meta.
// The default is {Name: "mcpconnector", Version: actors.Version}.
func WithClientInfo(info *mcp.Implementation) Option {
	return func(o *options) { o.clientInfo = info }
}

// WithConnectTimeout bounds spawning, server/discover and tools/list. Zero
// or negative means 30s. The ctx given to [Connect] bounds it too.
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithClientOptions sets the base of go-sdk's client options, for handlers a
// server may use (elicitation, sampling). Unless set there, the client
// declares no capabilities and go-sdk's multi-round-trip middleware stays
// disabled, so input_required results are [ErrNotSupported].
func WithClientOptions(opts *mcp.ClientOptions) Option {
	return func(o *options) { o.clientOptions = opts }
}
