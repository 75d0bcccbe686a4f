package toolbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/plugin"
)

// Option configures [Open].
type Option func(*options)

type options struct {
	strict         bool
	pluginOpts     []plugin.ServerOption
	system         *actor.ActorSystem
	logger         *zap.Logger
	connectTimeout time.Duration // of the plugin options: plugin.ConnectTimeoutOf
	remote         Remote        // servers reached through it, not started here
	search         *ToolSearch
	manifestDir    string
	pinned         bool
	policy         *ServerPolicy
	test           *testHooks // the tests' rendezvous points
}

// WithStrict makes any server that fails to connect at Open (or whose
// transport is not supported, or whose entry is one of the config's
// Problems) fail Open, which then closes the others. Without it such a
// server is reported by [Toolbox.Status] and keeps being retried in the
// background (an entry that did not parse is not).
func WithStrict() Option {
	return func(o *options) { o.strict = true }
}

// WithPluginOptions passes opts to every server's [plugin.McpPlugin]:
// timeouts (the connect timeout of plugin.WithConnectTimeout also bounds how
// long [Open] and a lazy server's first call wait for a server), supervision,
// client identity, input handlers, the host controls (approval, progress,
// result cap, live tool lists). They are [plugin.ServerOption]s: where the
// servers' actors live is the toolbox's to say ([WithActorSystem]). They
// come after the toolbox's default ([WithLogger]'s logger), so they win over
// it; a server's "timeout", connect timeout, approval modes and "trust"
// (which decide, per tool, whether the host's plugin.WithApproval function
// is asked; see mcpconfig.ApprovalMode) and "maxResultBytes" from the file
// come last and win. In a toolbox over a cluster's grains each must also be
// a [plugin.FacadeOption] (the options of the connection itself belong to the
// members that host the grains: grid.WithPluginOptions), or [Open] fails
// with [plugin.ErrValidation].
func WithPluginOptions(opts ...plugin.ServerOption) Option {
	return func(o *options) { o.pluginOpts = append(o.pluginOpts, opts...) }
}

// WithActorSystem spawns the toolbox's actors in system, e.g. the host
// agent's; Close then stops them and leaves the system running. A toolbox
// over a cluster's grains uses the cluster's system: there another system
// fails [Open] with [plugin.ErrValidation]. Without it
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

// misplaced fails with [plugin.ErrValidation] for a toolbox option that
// cannot take effect with the others: the facades' plugin.WithLossGrace in a
// toolbox that starts its servers; an actor system of the host's for a
// toolbox over a cluster's grains, whose actor system is the cluster's, or
// a plugin option of the connection itself there.
func (o *options) misplaced() error {
	if o.remote == nil {
		for _, opt := range o.pluginOpts {
			if _, ok := opt.(plugin.Option); !ok {
				return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
					Err: errors.New("option plugin.WithLossGrace of WithPluginOptions has no effect on a toolbox that starts its servers: it bounds the calls of a facade over a cluster's grain")}
			}
		}
		return nil
	}
	if o.system != nil && o.system != o.remote.ActorSystem() {
		return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
			Err: errors.New("option WithActorSystem has no effect on a toolbox over a cluster's grains (its actor system is the cluster's)")}
	}
	for i, opt := range o.pluginOpts {
		if _, ok := opt.(plugin.FacadeOption); !ok {
			return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
				Err: fmt.Errorf("plugin option %d of WithPluginOptions configures the connection, which the members hosting a cluster's grains own: give it to grid.WithPluginOptions there", i+1)}
		}
	}
	return nil
}

// Remote is where a toolbox's servers live when their connections are
// not the toolbox's to start: package grid's grains, each connected once
// on one member of a cluster. See [WithRemote].
type Remote interface {
	// ActorSystem is the actor system the servers' facades use.
	ActorSystem() *actor.ActorSystem
	// Connect returns a facade over server's connection, activating it
	// if needed, configured by opts (the toolbox's plugin options for
	// that server). It returns once the connection has answered with its
	// tools, or with its failure, or when ctx ends.
	Connect(ctx context.Context, server string, opts ...plugin.FacadeOption) (*plugin.McpPlugin, error)
}

// WithRemote makes [Open] reach every server of its config through r
// instead of starting it: the toolbox's names, routing, status, lazy
// servers (whose connection the first call reaches), pinned tools and
// tool search work as over servers it starts. Its actor system is r's
// ([WithActorSystem], if given, must be the same); the plugin options of
// [WithPluginOptions] are r's facades'. grid.OpenToolbox passes one.
func WithRemote(r Remote) Option {
	return func(o *options) { o.remote = r }
}

// WithManifestDir keeps, in dir, one manifest per server: its last tool
// list (the definitions as the server sent them, when they were listed, a
// digest of each tool) and, with [WithPinnedTools], its pins. A file is
// named after a digest of the server's entry (type, command, args, url and
// the names, never the values, of its env variables and headers), so an
// entry that changes its command does not use the old file; files are
// written atomically with mode 0600, and a corrupt or unreadable one is
// ignored with a warning. Without it no file is written, unless a server
// is "lazy" or tools are pinned: then dir is [DefaultManifestDir]. A dir
// that cannot be created fails [Open] with [plugin.ErrIO] naming it.
func WithManifestDir(dir string) Option {
	return func(o *options) { o.manifestDir = dir }
}

// WithPinnedTools pins each server's tools, trusting the first list seen
// (as ssh trusts a host key on first use). From then on, whenever the
// server's tools are listed (start, restart, list_changed, TTL refresh), a
// tool whose description, title, input or output schema or annotations
// differ from its pin, and a tool the pin does not have, is held out: not
// exposed, and a call to it fails with [plugin.ErrDenied] (wrapping
// [ErrToolChanged]) saying it changed since it was pinned. Held tools are
// logged at warn and reported by [Toolbox.Status] and [Toolbox.HeldTools];
// [Toolbox.AcceptTools] pins the current list. Removed tools disappear.
// Pins live in the servers' manifests (see [WithManifestDir]).
func WithPinnedTools() Option {
	return func(o *options) { o.pinned = true }
}
