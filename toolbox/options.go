package toolbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Option configures [Open].
type Option interface {
	apply(*options)
}

// optionFunc is an [Option] that is a func over the options.
type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

type options struct {
	strict     bool
	pluginOpts []plugin.Option
	// What the toolbox reads of pluginOpts itself, read once by
	// newToolbox: the logger and actor system of plugin.WithLogger and
	// plugin.WithActorSystem, the connect timeout, the breaker's
	// cool-downs and the host's approval function.
	system                *actor.ActorSystem
	logger                *zap.Logger
	connectTimeout        time.Duration
	coolDown, maxCoolDown time.Duration
	approve               func(ctx context.Context, req plugin.ApprovalRequest) error
	remote                remoteServers // servers reached through it, not started here
	search                *ToolSearch
	manifestDir           string
	pinned                bool
	policy                *ServerPolicy
	resourceTools         bool // WithResourceTools
	legacy                bool // plugin.WithLegacyFallback among the plugin options
	// The handlers of WithStatusHandler, WithProgressHandler and
	// WithApprovalHandler (events.go).
	onStatus   func(ServerStatus)
	onProgress func(plugin.Progress)
	onApproval func(context.Context, plugin.ApprovalRequest) error
	test       *testHooks // the tests' rendezvous points
}

// WithStrict makes any server that fails to connect at Open (or whose
// transport is not supported, or whose entry is one of the config's
// Problems) fail Open, which then closes the others. Without it such a
// server is reported by [Toolbox.Status] and keeps being retried in the
// background (an entry that did not parse is not).
func WithStrict() Option {
	return optionFunc(func(o *options) { o.strict = true })
}

// WithPluginOptions passes opts to every server's [plugin.McpPlugin]:
// timeouts (the connect timeout of plugin.WithConnectTimeout also bounds how
// long [Open] and a lazy server's first call wait for a server), supervision,
// client identity, input handlers, the host controls (approval, progress,
// result cap, live tool lists). plugin.WithLogger and
// plugin.WithActorSystem among them are the toolbox's own logger (without
// one the toolbox is silent) and actor system (without one a toolbox with
// a logger has a system of its own, shut down by Close, and silent
// toolboxes share one process-wide system). plugin.WithLegacyFallback
// among them is "legacyFallback": true in every entry (Codex:
// legacy_fallback = true): a server that does not speak MCP 2026-07-28
// starts at the newest older revision it speaks, and an entry of "type":
// "sse" (the HTTP+SSE transport of MCP 2024-11-05) is connected; without
// it and without the key, such an entry is refused with an error naming
// the key. They are read once, at Open; a lazy server starts with them. A server's "timeout", connect timeout,
// approval modes and "trust" (which decide, per tool, whether the host's
// plugin.WithApproval function is asked; see mcpconfig.ApprovalMode) and
// "maxResultBytes" from the file come after them and win. An option with
// no effect in a toolbox fails [Open] with [plugin.ErrValidation]:
// plugin.WithSpawn, WithoutSupervision and WithRetryConnect, which the
// toolbox sets for each server itself; plugin.WithLossGrace (a facade's) in
// a toolbox that starts its servers; and, in a toolbox over a cluster's
// grains, the options of the connection itself, which belong to the
// members that host the grains (grid.WithPluginOptions), and an actor
// system other than the cluster's.
func WithPluginOptions(opts ...plugin.Option) Option {
	return optionFunc(func(o *options) { o.pluginOpts = append(o.pluginOpts, opts...) })
}

// readPluginOptions reads, once, what the toolbox reads itself of the
// plugin options it passes on: a lazy start runs with these.
func (o *options) readPluginOptions() {
	v := pluginopt.Of(o.pluginOpts)
	o.logger, o.system = v.Supervisor.Connection.Logger, v.System
	o.connectTimeout = v.ConnectTimeout()
	o.coolDown, o.maxCoolDown = v.Supervisor.CoolDown, v.Supervisor.MaxCoolDown
	o.legacy = v.Supervisor.Connection.LegacyFallback // "type": "sse" entries connect too
	if approve := v.Approve; approve != nil {
		o.approve = func(ctx context.Context, req plugin.ApprovalRequest) error {
			return approve(ctx, req.Server, req.Tool, req.CallID, req.Arguments)
		}
	}
}

// misplaced fails with [plugin.ErrValidation] for a toolbox option that
// cannot take effect with the others: the facades' plugin.WithLossGrace in
// a toolbox that starts its servers; an actor system of the host's for a
// toolbox over a cluster's grains, whose actor system is the cluster's, or
// a plugin option of the connection itself there.
func (o *options) misplaced() error {
	if o.remote == nil {
		if name := pluginopt.Misplaced(o.pluginOpts, pluginopt.Server|pluginopt.Local); name != "" {
			return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
				Err: fmt.Errorf("option %s of WithPluginOptions has no effect on a toolbox that starts its servers (it is a facade's, or the toolbox sets it for each server itself)", name)}
		}
		return nil
	}
	if o.system != nil && o.system != o.remote.ActorSystem() {
		return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
			Err: errors.New("option plugin.WithActorSystem of WithPluginOptions has no effect on a toolbox over a cluster's grains (its actor system is the cluster's)")}
	}
	if name := pluginopt.Misplaced(o.pluginOpts, pluginopt.Server|pluginopt.Facade); name != "" {
		return &plugin.Error{Kind: plugin.KindValidation, Op: "open",
			Err: fmt.Errorf("option %s of WithPluginOptions configures the connection, which the members hosting a cluster's grains own: give it to grid.WithPluginOptions there", name)}
	}
	return nil
}

// WithManifestDir keeps, in dir, one manifest per server: its last tool
// list (the definitions as the server sent them, when they were listed, a
// digest of each tool) and, with [WithPinnedTools], its pins. A file is
// named after a digest of the server's entry (type, command, args, url and
// the names, never the values, of its env variables and headers), so an
// entry that changes its command does not use the old file; files are
// written atomically with mode 0600, and a corrupt or unreadable one is
// ignored with a warning. Without it no file is written, unless a server
// is "lazy" or tools are pinned: then dir is
// os.UserCacheDir()/mcpconnector. A dir that cannot be created fails [Open] with [plugin.ErrIO] naming it.
func WithManifestDir(dir string) Option {
	return optionFunc(func(o *options) { o.manifestDir = dir })
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
	return optionFunc(func(o *options) { o.pinned = true })
}
