package grid

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// KindName is the cluster kind of MCP connection grains, "mcp-connection".
const KindName = "mcp-connection"

// defaultDrainTimeout is how long a stopping grain lets its calls in flight
// finish unless [WithDrainTimeout] says otherwise. It is below a facade's
// default loss grace (plugin.WithLossGrace, 4 s), so that a member leaving gracefully answers its
// calls before callers give up.
const defaultDrainTimeout = 2 * time.Second

// KindOption configures the grains of [NewKind], on the member that hosts
// them.
type KindOption interface {
	apply(*kindOptions)
}

// kindOptionFunc is a [KindOption] that is a func over the options.
type kindOptionFunc func(*kindOptions)

func (f kindOptionFunc) apply(o *kindOptions) { f(o) }

type kindOptions struct {
	plugin       []plugin.Option
	drainTimeout time.Duration
	// legacy says whether a server's entry has "legacyFallback": true
	// (set by NewKind from its config); nil means none has.
	legacy func(server string) bool
}

// WithDrainTimeout sets how long a grain that is being stopped (its member
// leaving, or it moving to another member) lets its calls in flight finish
// before its connection closes; default 2 seconds. Zero or
// negative means the default.
func WithDrainTimeout(d time.Duration) KindOption {
	return kindOptionFunc(func(o *kindOptions) { o.drainTimeout = d })
}

// WithPluginOptions gives every grain's connection the plugin options of
// the hosting member, those of the connection: logger, client info,
// connect timeout, client options and input handlers, backoff, restart
// budget, breaker, reconnect wait, plugin.WithRetryIdempotent,
// plugin.WithToolRefresh (the list_changed subscription), telemetry. The
// options of calls (timeouts, status handlers, approval, progress, idle
// timeout, result cap) are the facades' ([Connect]): given here, they make
// every grain answer with a validation error naming the option. The
// grains' actor system is the cluster's (plugin.WithActorSystem has no
// effect here).
func WithPluginOptions(opts ...plugin.Option) KindOption {
	return kindOptionFunc(func(o *kindOptions) { o.plugin = append(o.plugin, opts...) })
}

// NewKind returns the cluster kind whose grains are the connections to the
// enabled servers of cfg, the grain identity being the server's name. Every
// member should register it with the same config. A server's "timeout"
// from cfg applies to calls made through [Connect] or a clustered toolbox.
// A first connection that fails is retried; an identity the config does
// not name makes the grain answer every call with that error. An entry's
// "legacyFallback": true gives its grain plugin.WithLegacyFallback; for
// every server, give the kind [WithPluginOptions](plugin.WithLegacyFallback()).
func NewKind(cfg *mcpconfig.Config, opts ...KindOption) *cluster.Kind {
	legacy := kindOptionFunc(func(o *kindOptions) {
		o.legacy = func(server string) bool { sc := cfg.Servers[server]; return sc != nil && sc.LegacyFallback }
	})
	return cluster.NewKind(KindName, grainProps(func(server string) (transport.McpTransport, error) {
		return serverTransport(cfg, server)
	}, append(opts[:len(opts):len(opts)], legacy)...))
}

// grainProps are the Props of a grain, whose supervisor connects to the
// server transportFor(identity) names.
func grainProps(transportFor func(identity string) (transport.McpTransport, error), opts ...KindOption) *actor.Props {
	var o kindOptions
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	if o.drainTimeout <= 0 {
		o.drainTimeout = defaultDrainTimeout
	}
	// The connection and supervision the options set; a grain's first
	// connection that fails is retried.
	sup := pluginopt.Of(o.plugin).Supervisor
	sup.RetryConnect = true
	var misplaced error
	if name := pluginopt.Misplaced(o.plugin, pluginopt.Host); name != "" {
		misplaced = fmt.Errorf("grid: option %s of WithPluginOptions has no effect on a kind's grains: it is a facade's (Connect's) or a plugin's that spawns its connection", name)
	}
	forServer := func(server string) (actors.SupervisorConfig, error) {
		if misplaced != nil {
			return actors.SupervisorConfig{}, misplaced
		}
		t, err := transportFor(server)
		if err != nil {
			return actors.SupervisorConfig{}, err
		}
		cfg := sup
		cfg.Connection.Transport = t
		if o.legacy != nil && o.legacy(server) {
			cfg.Connection.LegacyFallback = true // the entry's "legacyFallback": true
		}
		return cfg, nil
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &grain{supervisor: forServer, drainTimeout: o.drainTimeout, logger: zap.NewNop()}
	}, actor.WithReceiverMiddleware(drainOnPoison))
}

// serverTransport is the transport of server in cfg, named for logs and
// errors, or why there is none: no such server, a disabled one, or one
// whose transport is not supported.
func serverTransport(cfg *mcpconfig.Config, server string) (transport.McpTransport, error) {
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
	return named.Transport(server, t), nil
}

// Connect returns a facade over the grain of server in c, from whichever
// member calls it: the same API and guarantees as plugin.Connect (Tools,
// ToolDefinitions, CallTool futures, OnStreamChunk, error kinds,
// cancellation reaching the server). It activates the grain if needed and
// returns once it has answered with its tools. Close leaves the grain
// running for the other members. opts are the facade's: timeouts of
// calls, status handlers, the host controls, logger, plugin.WithLossGrace;
// those of the connection itself belong to the hosting members
// ([WithPluginOptions]), and Connect fails with plugin.ErrValidation for
// one.
func Connect(ctx context.Context, c *cluster.Cluster, server string, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	loc := newGrainLocator(c, server)
	newLink := func(s link.Setup) link.Link {
		return attach.New(attach.Config{System: c.ActorSystem, Locate: loc.locate, Release: loc.close,
			Grace: s.LossGrace, Logger: s.Logger, WatchTools: s.WatchTools, Owner: s.Events})
	}
	target := link.Target{System: c.ActorSystem, Server: fmt.Sprintf("server %q (%s grain)", server, KindName), NewLink: newLink}
	return plugin.Connect(ctx, target, opts...)
}

// OpenToolbox is toolbox.Open over the grains of c: every server of cfg is
// a grain of the kind [NewKind] registers (every member must register it
// with the same config), connected once, on the member the cluster
// chooses, and called from this one. The toolbox's names, routing, status,
// lazy servers (whose grain the first call activates), pinned tools and
// tool search work as in a local toolbox. A server whose grain fails to
// answer at Open is reported failed and is not retried by this toolbox
// (its grain keeps retrying on its member; open the toolbox again to pick
// it up). The actor system is c's. opts are toolbox.Open's; the plugin
// options given through toolbox.WithPluginOptions are the facades' (as for
// [Connect]): one of the connection itself fails OpenToolbox with
// plugin.ErrValidation, as plugin.WithLegacyFallback does: the legacy
// fallback is the grains' ([NewKind]).
func OpenToolbox(ctx context.Context, c *cluster.Cluster, cfg *mcpconfig.Config, opts ...toolbox.Option) (*toolbox.Toolbox, error) {
	if c == nil {
		return nil, errors.New("grid: nil cluster")
	}
	servers := grains{Option: toolbox.WithPluginOptions(), c: c}
	return toolbox.Open(ctx, cfg, append(opts[:len(opts):len(opts)], servers)...)
}

// grains are the servers of a toolbox over c: each a grain, reached
// through [Connect]. They are a toolbox.Option (applying the embedded
// empty WithPluginOptions changes nothing) whose two methods below,
// ActorSystem and Connect, are what toolbox.Open looks for in an option
// to reach every server through it instead of starting it (package
// toolbox's remoteServers). TestOpenToolboxReachesItsServersAsGrains
// fails if they stop matching.
type grains struct {
	toolbox.Option
	c *cluster.Cluster
}

func (g grains) ActorSystem() *actor.ActorSystem { return g.c.ActorSystem }

func (g grains) Connect(ctx context.Context, server string, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	return Connect(ctx, g.c, server, opts...)
}

// grainLocator finds the grain of a server for one facade: its PID on
// whichever member the identity lookup chooses, activated there if needed.
// The lookup takes no context (protoactor's own timeout bounds it, five
// seconds for disthash), so it runs on a goroutine of the locator's: ctx
// ends a caller's wait, not the lookup; a caller that comes while one runs
// waits for that one; and close, which the facade's link runs on Close,
// waits for the one running.
type grainLocator struct {
	server string
	get    func() *actor.PID // the lookup: c.Get of the server's identity

	mu      sync.Mutex
	running *lookup // the lookup in flight, if any
	closed  bool
	wg      sync.WaitGroup
}

// lookup is one run of a grainLocator's get; pid is set when done closes.
type lookup struct {
	done chan struct{}
	pid  *actor.PID
}

func newGrainLocator(c *cluster.Cluster, server string) *grainLocator {
	return &grainLocator{server: server, get: func() *actor.PID { return c.Get(server, KindName) }}
}

// locate is the facade link's [attach.Locator].
func (g *grainLocator) locate(ctx context.Context) (*actor.PID, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, fmt.Errorf("locating the %s grain %q: the facade is closed", KindName, g.server)
	}
	run := g.running
	if run == nil {
		run = &lookup{done: make(chan struct{})}
		g.running = run
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			pid := g.get()
			g.mu.Lock()
			run.pid, g.running = pid, nil
			g.mu.Unlock()
			close(run.done)
		}()
	}
	g.mu.Unlock()
	select {
	case <-run.done:
		if run.pid == nil {
			return nil, fmt.Errorf("no member could activate the %s grain %q", KindName, g.server)
		}
		return run.pid, nil
	case <-ctx.Done():
		return nil, errors.Join(fmt.Errorf("locating the %s grain %q", KindName, g.server), ctx.Err())
	}
}

// close waits for the lookup in flight, if any; no lookup starts after it.
func (g *grainLocator) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}
