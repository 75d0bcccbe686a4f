package toolbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/manifest"
	"github.com/cuca-go/mcpconnector/toolbox/internal/toolboxactor"
	"github.com/cuca-go/mcpconnector/transport"
)

// sharedSystem is the actor system of every toolbox opened without
// WithActorSystem, WithLogger or grid.OpenToolbox. It lives as long as the
// process; Close stops a toolbox's actors in it.
var sharedSystem = sync.OnceValue(func() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
})

// pluginName is the name a [Toolbox] reports as a [host.Plugin].
const pluginName = "mcp-toolbox"

// Toolbox is many MCP servers as one [host.Plugin]: every server's tools
// under their exposed names (see the package doc), each tool call routed to
// its server. It is safe for concurrent use.
type Toolbox struct {
	host.Base

	system    *actor.ActorSystem
	ownSystem bool
	pid       *actor.PID // the toolbox actor
	logger    *zap.Logger

	servers map[string]*server // the enabled servers, by name
	names   []string           // their names, sorted
	routes  atomic.Pointer[routeTable]
	search  *ToolSearch // nil without WithToolSearch
	searchCaches

	// opts are Open's options, kept to start lazy servers later.
	opts options
	// store keeps the servers' manifests; nil when none are kept.
	store *manifest.Store
	// pinned is WithPinnedTools.
	pinned bool

	// mu guards the admissions and each server's startErr and heldOut;
	// a rebuild holds it only to swap its table in, never while it reads
	// a server's list (see Toolbox.rebuild).
	mu       sync.Mutex
	admitted int // how many servers have been admitted so far
	// opened: Open is building, or has built, the first table; from then
	// on a change of a server's status rebuilds it.
	opened atomic.Bool

	// A status change rebuilds the table on a goroutine of its own, never
	// on the server's actor goroutine; at most one waits to run, and it
	// reads every server's list when it runs. rebuildMu guards starting
	// one against Close, which waits for them.
	rebuildMu     sync.Mutex
	rebuildQueued atomic.Bool
	rebuilds      sync.WaitGroup

	// test are the tests' rendezvous points; nil outside tests.
	test *testHooks

	closeOnce sync.Once
	closed    atomic.Bool
}

// server is one enabled server of the toolbox.
type server struct {
	cfg *mcpconfig.Server
	// opts are its plugin's options, made once when Open admits it: every
	// start (a lazy one too) runs with them.
	opts []plugin.Option
	// p is the server's plugin: nil when the server could not be started,
	// and for a lazy server until it starts (and again once it stopped
	// when idle).
	p atomic.Pointer[plugin.McpPlugin]
	// lazy: started on first call, its tools exposed from its manifest
	// until then.
	lazy bool
	// expired: a lazy server whose manifest had outlived its ttl at Open,
	// which Open started to list again.
	expired bool
	lazyState

	// Under Toolbox.mu:
	// startErr is why the server was never started (its transport is not
	// supported); such a server stays failed.
	startErr   error
	admittedAt int   // 0 until its tools first entered the table; then its turn
	heldOut    error // a name collision that keeps its tools out, or nil

	// listMu guards pinState: one rebuild at a time reads the server's
	// list, and no other server waits for it.
	listMu sync.Mutex
	pinState
	// last is the list the latest read under listMu produced (nil before
	// the first); a rebuild that finds listMu taken uses it, and readAgain
	// tells the reader to read once more before it lets go.
	last      atomic.Pointer[serverTools]
	readAgain atomic.Bool
}

// plugin returns the server's plugin, nil if it has none (yet).
func (s *server) plugin() *plugin.McpPlugin { return s.p.Load() }

// Open starts one supervised connection per enabled server of cfg, in
// parallel, under one toolbox actor, and returns when each has connected or
// failed (each attempt is bounded by the connect timeout; ctx bounds the
// wait). When ctx ends first, Open does not fail for it: it returns the
// toolbox (nil error) with each server whose first connection had not
// concluded still connecting, [actors.Connecting] in
// [Toolbox.Status], its tools absent (a call to one fails with
// [ErrServerDown]) until it comes up; [Toolbox.WaitReady] waits for them.
// ctx ends only the wait, never a connection. The exceptions are those of
// any server not ready: a required server still connecting fails Open,
// and so does any with [WithStrict], both with ctx's error in the server's.
// A server that fails does not fail Open unless [WithStrict] is
// given: [Toolbox.Status] reports it, its tools are absent, and its
// supervisor keeps trying with backoff (within its restart budget, then
// once per breaker cool-down); when it comes up its tools appear. A server
// that does not speak 2026-07-28, or whose command cannot start, is not
// tried again until its plugin's Reconnect.
// Two tools with the same exposed name fail Open, naming both servers.
// A server marked required ([mcpconfig.Server.Required]) that is not ready
// once its first connection has been tried (or was not started) fails
// Open, one error per such server wrapping [ErrRequiredServer] and naming
// it and why; every server Open started is closed first. A server that
// [WithServerPolicy]'s policy does not allow is not started: its status is
// failed with an error wrapping [plugin.ErrDenied] and [ErrDeniedByPolicy]
// that names the rule. A server entry of cfg.Problems is reported failed with
// its problem and the others start (an error of [WithStrict]); a server of
// cfg.Untrusted starts nothing and is failed with [ErrUntrusted]. A
// server's headersHelper (mcpconfig.Server.HeadersHelper) runs before its
// first request. The error is an [*plugin.Error] (or several,
// joined), a collision error wrapping [ErrNameCollision], or required
// servers' errors.
func Open(ctx context.Context, cfg *mcpconfig.Config, opts ...Option) (*Toolbox, error) {
	if cfg == nil {
		return nil, errors.New("toolbox: nil config")
	}
	t, err := newToolbox(cfg, opts)
	if err != nil {
		return nil, err
	}
	failures, err := t.startServers(cfg)
	if err != nil {
		_ = t.Close()
		return nil, err
	}
	t.reportNotStarted() // events.go
	errs := t.waitFirstOutcomes(ctx)
	if err := t.openOutcome(errs, failures); err != nil {
		_ = t.Close()
		return nil, err
	}
	return t, nil
}

// newToolbox checks the options and makes the toolbox, with its manifest
// store, its actor system and its toolbox actor, before any server starts.
func newToolbox(cfg *mcpconfig.Config, opts []Option) (*Toolbox, error) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
			if r, ok := opt.(remoteServers); ok {
				// grid.OpenToolbox's: every server is reached through r.
				o.remote = r
			}
		}
	}
	o.readPluginOptions()
	if err := o.search.validate(); err != nil {
		return nil, err
	}
	if err := o.misplaced(); err != nil {
		return nil, err
	}
	t := &Toolbox{system: o.system, logger: o.logger, servers: map[string]*server{}, search: o.search, opts: o, pinned: o.pinned,
		test: o.test}
	if t.logger == nil {
		t.logger = zap.NewNop()
	}
	if err := t.openStore(cfg, &o); err != nil {
		return nil, err
	}
	t.useSystem()
	t.routes.Store(&routeTable{})
	t.pid = t.system.Root.Spawn(toolboxactor.Props(t.logger))
	return t, nil
}

// useSystem picks the actor system: the remote's, the one given, the
// silent toolboxes' shared one, or one of its own logging to the logger.
func (t *Toolbox) useSystem() {
	if t.opts.remote != nil {
		t.system = t.opts.remote.ActorSystem()
	}
	switch {
	case t.system != nil:
	case t.opts.logger == nil:
		// Silent toolboxes share one system, as silent plugins do: a
		// system costs ~2.8 MiB and most of a one-server Open.
		t.system = sharedSystem()
	default:
		core := t.logger.Core()
		t.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(zapslog.NewHandler(core))
		}))
		t.ownSystem = true
	}
}

// startServers admits every enabled server of cfg and starts those Open
// starts (neither lazy, nor denied, nor over a remote, which are attached
// by waitFirstOutcomes). failures are the servers that could not
// start; err is an option with no effect, which fails Open whatever
// [WithStrict] says.
func (t *Toolbox) startServers(cfg *mcpconfig.Config) (failures []error, err error) {
	failures = t.admitProblems(cfg)
	for _, name := range cfg.Enabled() {
		if cfg.Untrusted[name] {
			sc := cfg.Servers[name]
			err := fmt.Errorf("%w: server %q would %s", ErrUntrusted, name, sc.ApprovalText())
			t.servers[name] = &server{cfg: sc, startErr: err}
			t.names = append(t.names, name)
			t.logger.Warn("mcp server not started: from an untrusted config file, not approved", zap.String("mcp_server", name))
			continue
		}
		s := t.admit(name, cfg.Servers[name])
		switch {
		case s.startErr != nil, s.lazy: // denied by policy, or started by its first call
			continue
		case t.opts.remote != nil:
			continue // attached by waitFirstOutcomes, all at once
		}
		p, err := t.startLocal(name, s, name)
		if p != nil {
			s.p.Store(p)
		}
		if err != nil {
			s.startErr = err
			failures = append(failures, err)
		}
	}
	slices.Sort(t.names)
	return failures, nil
}

// ErrUntrusted is wrapped by the status error of a server from an
// untrusted layer (mcpconfig.Layer) that the caller has not approved
// (mcpconfig.Config.Approve): the toolbox starts no command and runs no
// helper of it. The error says what approving it would run.
var ErrUntrusted = errors.New("toolbox: not started: from an untrusted config file, and not approved")

// admitProblems admits each server of cfg that did not parse, or whose
// variables stay unresolved (cfg.Problems), as a failed server whose
// status error wraps its *mcpconfig.Error; a problem without a server
// name is logged. They are Open's failures, which [WithStrict] makes fatal.
func (t *Toolbox) admitProblems(cfg *mcpconfig.Config) []error {
	var failures []error
	for _, p := range cfg.Problems {
		err := fmt.Errorf("toolbox: server %q not started: %w", p.Server, p)
		failures = append(failures, err)
		if _, seen := t.servers[p.Server]; p.Server == "" || seen || cfg.Servers[p.Server] != nil {
			t.logger.Warn("mcp config entry skipped", zap.String("mcp_server", p.Server), zap.Error(p))
			continue
		}
		t.servers[p.Server] = &server{cfg: &mcpconfig.Server{Name: p.Server, Line: p.Line, Column: p.Column}, startErr: err}
		t.names = append(t.names, p.Server)
	}
	return failures
}

// admit adds the server name to the toolbox and decides how it starts: a
// server the policy denies gets its startErr, and a lazy one with a fresh
// manifest is marked lazy.
func (t *Toolbox) admit(name string, sc *mcpconfig.Server) *server {
	s := &server{cfg: sc, opts: t.pluginOptions(sc, &t.opts)}
	t.servers[name] = s
	t.names = append(t.names, name)
	if t.opts.policy != nil {
		if d := t.opts.policy.Decide(sc); !d.Allowed {
			// Not started: its status says which rule denied it.
			s.startErr = &plugin.Error{Kind: plugin.KindDenied, Server: fmt.Sprintf("server %q", name), Op: "open",
				Err: fmt.Errorf("%w: %s", ErrDeniedByPolicy, d)}
			t.logger.Warn("mcp server not started: denied by policy", zap.String("mcp_server", name), zap.Stringer("decision", d))
			return s
		}
	}
	t.loadManifest(s)
	// A required server starts at Open, lazy or not: Open says whether it is up.
	if sc.Lazy && s.mf != nil && s.mf.Expired(time.Now()) {
		// Older than its ttl: started now, to list again, before its tools are trusted.
		t.logger.Info("mcp server manifest expired by its ttl; starting the lazy server to list again",
			zap.String("mcp_server", name), zap.Int64("ttlMs", s.mf.TTLMs), zap.Time("listedAt", s.mf.ListedAt))
		s.expired = true
	}
	s.lazy = sc.Lazy && !sc.Required && s.mf != nil && !s.expired
	return s
}

// waitFirstOutcomes waits, for every server started at Open, for its first
// connection's outcome, all at once; over a remote it attaches each server
// here. The errors are by t.names.
func (t *Toolbox) waitFirstOutcomes(ctx context.Context) []error {
	errs := make([]error, len(t.names))
	var wg sync.WaitGroup
	for i, name := range t.names {
		s := t.servers[name]
		switch {
		case s.lazy, s.startErr != nil: // started later, or never (denied by policy)
		case t.opts.remote != nil:
			wg.Go(func() {
				// The facade waits for the grain's answer: as long as a
				// local server's first connection may take.
				ctx, cancel := context.WithTimeout(ctx, t.connectTimeout(s.cfg))
				defer cancel()
				var p *plugin.McpPlugin
				p, errs[i] = t.attach(ctx, name, s)
				if p != nil {
					s.p.Store(p)
				}
				if errs[i] != nil {
					s.startErr = errs[i]
				}
			})
		case s.plugin() != nil:
			wg.Go(func() { errs[i] = s.plugin().WaitReady(ctx) })
		}
	}
	wg.Wait()
	return errs
}

// openOutcome decides Open's result from the first outcomes errs and the
// start failures: a required server not ready, an option with no effect,
// or (with [WithStrict]) any failure fails it; else the first table is
// built.
func (t *Toolbox) openOutcome(errs, failures []error) error {
	if err := t.requiredReady(errs); err != nil {
		return err
	}
	for _, err := range errs {
		if errors.Is(err, plugin.ErrValidation) {
			return err
		}
	}
	for i, err := range errs {
		if err != nil {
			t.logger.Warn("mcp server did not connect",
				zap.String("mcp_server", t.names[i]), zap.Error(err))
			failures = append(failures, err)
		}
	}
	if t.opts.strict && len(failures) > 0 {
		return errors.Join(failures...)
	}
	return t.openTable()
}

// WaitReady waits until every server that [Open] started has concluded
// its first connection (ready, or failed; one that was never started is
// failed already), or ctx ends: after an Open whose ctx ended first, it
// is how to wait for the servers still connecting. It returns nil when
// each such server is ready; else an error joining, for each server not
// ready, one that names it and wraps why (its connection's failure, why
// it was not started, or ctx's error for one still connecting when ctx
// ended). A lazy server that has not started is not waited for (see
// [Toolbox.Start]). A server that was ready once and has failed since is
// reported by [Toolbox.Status], not here.
func (t *Toolbox) WaitReady(ctx context.Context) error {
	errs := make([]error, len(t.names))
	var wg sync.WaitGroup
	for i, name := range t.names {
		s := t.servers[name]
		t.mu.Lock()
		startErr := s.startErr
		t.mu.Unlock()
		switch p := s.plugin(); {
		case startErr != nil:
			errs[i] = startErr
		case p != nil:
			wg.Go(func() { errs[i] = p.WaitReady(ctx) })
		}
	}
	wg.Wait()
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Errorf("toolbox: server %q is not ready: %w", t.names[i], err))
		}
	}
	return errors.Join(failed...)
}

// ErrDeniedByPolicy is wrapped by the status error of a server that
// [WithServerPolicy]'s policy does not allow (a [plugin.ErrDenied] naming
// the rule), and by Open's error when such a server is required.
var ErrDeniedByPolicy = errors.New("toolbox: denied by policy")

// ErrRequiredServer is wrapped by Open's error for each required server
// ("required": true) that is not ready: it names the server and why.
var ErrRequiredServer = errors.New("toolbox: a required server is not ready")

// requiredReady fails, naming each, when a required server is not ready
// after Open's wait (errs are its outcomes, by t.names), was not started
// (its transport is not supported, or the policy denies it).
func (t *Toolbox) requiredReady(errs []error) error {
	var failed []error
	for i, name := range t.names {
		s := t.servers[name]
		if !s.cfg.Required {
			continue
		}
		why := errs[i]
		if s.startErr != nil {
			why = s.startErr
		}
		if why == nil && s.plugin() == nil {
			why = errors.New("toolbox: not started")
		}
		if why != nil {
			failed = append(failed, fmt.Errorf("%w: server %q: %w", ErrRequiredServer, name, why))
		}
	}
	return errors.Join(failed...)
}

// startLocal starts the server name of s under the toolbox actor, its
// actor named actorName, and returns at once (the connection comes up in
// the background).
func (t *Toolbox) startLocal(name string, s *server, actorName string) (*plugin.McpPlugin, error) {
	sc := s.cfg
	if t.opts.legacy && !sc.LegacyFallback {
		c := *sc // plugin.WithLegacyFallback: a "type": "sse" entry is connectable
		c.LegacyFallback = true
		sc = &c
	}
	tr, err := sc.Transport()
	if err != nil {
		kind := plugin.KindNotSupported
		if !errors.Is(err, transport.ErrNotSupported) {
			kind = plugin.KindIO // an envFile that cannot be read
		}
		return nil, &plugin.Error{Kind: kind, Server: fmt.Sprintf("server %q", name), Op: "connect", Err: err}
	}
	if h, ok := tr.(transport.StreamableHTTP); ok && sc.HeadersHelper != "" {
		h.HTTPClient = newHeadersClient(sc, h.HTTPClient)
		tr = h
	}
	if h, ok := tr.(transport.SSE); ok && sc.HeadersHelper != "" {
		h.HTTPClient = newHeadersClient(sc, h.HTTPClient)
		tr = h
	}
	opts := append(s.opts[:len(s.opts):len(s.opts)], plugin.WithRetryConnect(), plugin.WithActorSystem(t.system),
		plugin.WithSpawn(func(props *actor.Props) (*actor.PID, error) { return t.spawn(actorName, props) }))
	return plugin.Connect(context.Background(), named.Transport(name, tr), opts...)
}

// attach reaches the server's actor where it lives (a
// remoteServers), activating it if needed.
func (t *Toolbox) attach(ctx context.Context, name string, s *server) (*plugin.McpPlugin, error) {
	return t.opts.remote.Connect(ctx, name, s.opts...)
}

// pluginOptions are the options of one server's plugin, made once when
// Open admits it: the host's, then the toolbox's own status handler and
// those reporting its events (WithStatusHandler, WithProgressHandler,
// WithApprovalHandler), then the server's entry in the file. Over a remote each
// is a [plugin.Option]: newToolbox refuses the host's that are not,
// and the toolbox adds none.
func (t *Toolbox) pluginOptions(sc *mcpconfig.Server, o *options) []plugin.Option {
	opts := make([]plugin.Option, 0, len(o.pluginOpts)+6)
	opts = append(opts, o.pluginOpts...)
	opts = append(opts, plugin.WithStatusHandler(func(plugin.Status) { t.statusChanged() }))
	opts = append(opts, t.eventOptions(sc, o)...) // events.go
	approve := o.approve
	if o.onApproval != nil {
		approve = approvalHandler(sc, o.onApproval)
	}
	if sc.Timeout > 0 {
		opts = append(opts, plugin.WithCallTimeoutCap(sc.Timeout))
	}
	if sc.ConnectTimeout > 0 {
		opts = append(opts, plugin.WithConnectTimeout(sc.ConnectTimeout))
	}
	if hasApprovalModes(sc) || o.onApproval != nil {
		opts = append(opts, plugin.WithApproval(t.approval(sc, approve)))
	}
	if sc.MaxResultBytes > 0 {
		opts = append(opts, entryCap{plugin.WithMaxResultBytes(sc.MaxResultBytes), fmt.Sprintf(`"maxResultBytes" of server %q`, sc.Name)})
	}
	if o.resourceTools {
		opts = append(opts, plugin.WithResourceTools()) // resource links name the read tool
	}
	if sc.Tasks != nil {
		opts = append(opts, taskOption(sc.Tasks)) // tasks.go
	}
	if (sc.LegacyFallback || o.legacy) && o.remote == nil {
		// An older revision when the server refuses 2026-07-28. Over a
		// remote the connection is the grain's: its kind reads the entry.
		opts = append(opts, plugin.WithLegacyFallback())
	}
	return opts
}

// spawn asks the toolbox actor to spawn a server's actor as its child.
func (t *Toolbox) spawn(name string, props *actor.Props) (*actor.PID, error) {
	res, err := t.system.Root.RequestFuture(t.pid, &toolboxactor.Spawn{Name: name, Props: props}, actors.DefaultConnectTimeout).Result()
	if err != nil {
		return nil, err
	}
	sp, ok := res.(*toolboxactor.Spawned)
	if !ok {
		return nil, fmt.Errorf("toolbox: unexpected reply %T", res)
	}
	return sp.PID, sp.Err
}

// statusChanged is a server's status handler (its tools may have come,
// gone or changed): it runs on the server's actor goroutine, so it only
// queues a rebuild (one at most; a queued one covers every change before
// it runs), which does not wait for a server whose list another rebuild
// is reading.
func (t *Toolbox) statusChanged() {
	if t.rebuildQueued.Swap(true) {
		return
	}
	t.rebuildMu.Lock()
	defer t.rebuildMu.Unlock()
	if t.closed.Load() {
		return
	}
	t.rebuilds.Go(func() {
		t.rebuildQueued.Store(false)
		if !t.closed.Load() && t.opened.Load() {
			t.rebuild(false, false)
		}
	})
}

// serverChanged rebuilds the table now, on the caller's goroutine, with
// every server's list as it is now.
func (t *Toolbox) serverChanged() {
	if !t.closed.Load() && t.opened.Load() {
		t.rebuild(false, true)
	}
}

// Name returns "mcp-toolbox".
func (t *Toolbox) Name() string { return pluginName }

// Servers returns the names of the enabled servers, sorted, with those of
// the config's entries that did not parse (mcpconfig.Config.Problems), which
// are failed. Disabled servers of the config are not part of the toolbox.
func (t *Toolbox) Servers() []string { return append([]string(nil), t.names...) }

// Plugin returns the plugin of server, or nil when the toolbox has no such
// server, could not start it (see [Toolbox.Status]), or it is a lazy
// server that has not started (see [Toolbox.Start]).
func (t *Toolbox) Plugin(server string) *plugin.McpPlugin {
	if s := t.servers[server]; s != nil {
		return s.plugin()
	}
	return nil
}

// Status reports each enabled server's health. A lazy server that has not
// started (or stopped when idle) is [actors.NotStarted]. With
// [WithPinnedTools], a server some of whose tools are held out has an
// error wrapping [ErrToolChanged] as LastError, naming them and what
// changed, while its State stays as it is. A server whose tools are
// held out by a name collision is reported failed with that collision
// (wrapping [ErrNameCollision]) even while its connection is up; one whose
// transport is not supported is failed with [plugin.ErrNotSupported], one
// the server policy denies with [ErrDeniedByPolicy], one whose config entry
// is a problem (mcpconfig.Config.Problems) with an error wrapping its
// *mcpconfig.Error, and one of an untrusted layer not approved with
// [ErrUntrusted].
func (t *Toolbox) Status() map[string]plugin.Status {
	out := make(map[string]plugin.Status, len(t.servers))
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, s := range t.servers {
		out[name] = t.statusOf(s)
	}
	return out
}

// ProtocolVersion returns the MCP revision that server's latest session
// speaks: "2026-07-28", or an older one for a server started with the
// legacy fallback (plugin.WithLegacyFallback in [WithPluginOptions], or
// "legacyFallback": true in its entry); "" when the toolbox has no such
// server or it has not been ready yet (a lazy server before its first
// start among them).
func (t *Toolbox) ProtocolVersion(server string) string {
	if p := t.Plugin(server); p != nil {
		return p.ProtocolVersion()
	}
	return ""
}

// statusOf is s's status as [Toolbox.Status] reports it. Under t.mu.
func (t *Toolbox) statusOf(s *server) plugin.Status {
	p := s.plugin()
	switch {
	case s.startErr != nil:
		return plugin.Status{State: actors.Failed, LastError: s.startErr}
	case p == nil && t.closed.Load():
		return plugin.Status{State: actors.Closed}
	case p == nil:
		return plugin.Status{State: actors.NotStarted, LastError: s.heldTools()}
	case s.heldOut != nil && !t.closed.Load():
		st := p.Status()
		st.State, st.LastError = actors.Failed, s.heldOut
		return st
	default:
		st := p.Status()
		if held := s.heldTools(); held != nil && st.State == actors.Ready {
			st.LastError = held
		}
		return st
	}
}

// Close closes every server in parallel (each stdio child gets its stdin
// closed, then SIGTERM, then SIGKILL), stops the toolbox actor and waits for
// all of it. Calls in flight fail with [plugin.ErrInternal]. Close is
// idempotent.
func (t *Toolbox) Close() error {
	t.closeOnce.Do(func() {
		t.rebuildMu.Lock()
		t.closed.Store(true)
		t.rebuildMu.Unlock()
		var wg sync.WaitGroup
		for _, s := range t.servers {
			s.stopIdleTimer()
			// A lazy start under way sees closed and closes its plugin.
			if p := s.plugin(); p != nil {
				wg.Go(func() { _ = p.Close() })
			}
		}
		wg.Wait()
		t.rebuilds.Wait()
		for _, s := range t.servers {
			if done := s.startUnderWay(); done != nil {
				<-done // it closes what it started
			}
		}
		_ = t.system.Root.StopFuture(t.pid).Wait()
		t.routes.Store(&routeTable{})
		if t.ownSystem {
			t.system.Shutdown()
		}
	})
	return nil
}

// Tools returns every exposed tool, sorted by exposed name.
func (t *Toolbox) Tools() []Tool {
	t.touch()
	return append([]Tool(nil), t.routes.Load().tools...)
}

// touch uses every server's plugin, which starts a new listing of those
// whose list has outlived its TTL (plugin.WithToolRefresh): the lists a
// host publishes stay live even for servers the model has not called.
func (t *Toolbox) touch() {
	for _, s := range t.servers {
		if p := s.plugin(); p != nil {
			p.HasTool("")
		}
	}
}

// Tool is one tool as the toolbox exposes it.
type Tool struct {
	// Name is the exposed name, the one the model calls.
	Name string
	// Server is the name of the server that has it.
	Server string
	// Tool is the server's tool, under its own name; shared, read-only.
	Tool *mcp.Tool
}

// HasTool reports whether name is an exposed tool.
func (t *Toolbox) HasTool(name string) bool {
	_, ok := t.routes.Load().byName[name]
	return ok
}

// ToolDefinitions returns every exposed tool, sorted by exposed name, in
// the form a [host.Request] publishes them to the model.
func (t *Toolbox) ToolDefinitions() []host.ToolDefinition {
	t.touch()
	return append([]host.ToolDefinition(nil), t.routes.Load().definitions()...)
}

// entryCap is plugin.WithMaxResultBytes for an entry's "maxResultBytes",
// naming the entry in the errors the cap causes
// (internal/core/pluginopt.ResultCapSource).
type entryCap struct {
	plugin.Option
	source string
}

var _ pluginopt.ResultCapSource = entryCap{}

func (c entryCap) MaxResultSource() string { return c.source }
