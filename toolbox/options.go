package toolbox

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/plugin"
)

// Option configures [Open].
type Option func(*options)

type options struct {
	strict         bool
	pluginOpts     []plugin.Option
	system         *actor.ActorSystem
	logger         *zap.Logger
	connectTimeout time.Duration
	cluster        *cluster.Cluster
	search         *ToolSearch
}

// DefaultConnectTimeout bounds each server's connection attempt, and so
// [Open], unless [WithConnectTimeout] says otherwise.
const DefaultConnectTimeout = 30 * time.Second

// WithStrict makes any server that fails to connect at Open (or whose
// transport is not supported) fail Open, which then closes the others.
// Without it such a server is reported by [Toolbox.Status] and keeps being
// retried in the background.
func WithStrict() Option {
	return func(o *options) { o.strict = true }
}

// WithPluginOptions passes opts to every server's [plugin.McpPlugin]:
// timeouts, supervision, client identity, input handlers, the host
// controls (approval, progress, result cap, live tool lists). The toolbox
// sets the actor system, the spawn seam and a status handler of its own
// after them; a server's "timeout", "trust" (which turns approval off) and
// "maxResultBytes" from the file come last and win.
func WithPluginOptions(opts ...plugin.Option) Option {
	return func(o *options) { o.pluginOpts = append(o.pluginOpts, opts...) }
}

// WithActorSystem spawns the toolbox's actors in system, e.g. the host
// agent's; Close then stops them and leaves the system running. Without it
// a toolbox with [WithLogger] has an actor system of its own, shut down by
// Close, and silent toolboxes share one process-wide system.
func WithActorSystem(system *actor.ActorSystem) Option {
	return func(o *options) { o.system = system }
}

// WithLogger sends the toolbox's logs (servers coming up, name collisions),
// every server's, their stdio children's stderr and protoactor's to logger.
// Without it the toolbox is silent.
func WithLogger(logger *zap.Logger) Option {
	return func(o *options) { o.logger = logger }
}

// WithConnectTimeout bounds each connection attempt (spawn, server/discover,
// tools/list) and so how long [Open] waits for a server; zero or negative
// means [DefaultConnectTimeout]. The ctx given to Open bounds Open too.
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithCluster makes every server a grain of the protoactor cluster c
// (package grid): connected once, on the member the cluster chooses, and
// called from this one. Every member must register grid.NewKind with the
// same config. The toolbox's names, routing and status work as without it;
// a server whose grain fails to answer at Open is reported failed and is
// not retried by this toolbox (its grain keeps retrying on its member; open
// the toolbox again to pick it up). The actor system is c's.
func WithCluster(c *cluster.Cluster) Option {
	return func(o *options) { o.cluster = c }
}
