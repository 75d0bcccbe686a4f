package plugin

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// pluginName is the name every [McpPlugin] reports.
const pluginName = "mcp-connector"

// McpPlugin connects to one MCP server, discovers its tools once, and turns
// each [host.ToolCall] that names one of them into that tool's [host.ToolResult].
// It is safe for concurrent use.
type McpPlugin struct {
	host.Base

	system      *actor.ActorSystem
	ownSystem   bool
	conn        link.Link // the way to the connection actor
	server      string
	logger      *zap.Logger
	callTimeout time.Duration // for calls whose ctx has no deadline; 0: none
	toolTimeout time.Duration // for every call; 0: none
	// The limits as a failure names them, written once.
	callTimeoutLimit, toolTimeoutLimit string
	taskTimeout                        time.Duration // WithTasks's, for calls answered with a task; 0: no tasks
	taskStore                          TaskStore     // WithTasks's; nil: none
	label                              string        // the server's label, which names it in task records

	unsupervised bool // WithoutSupervision: nothing reconnects

	tel    *actors.Telemetry // nil unless WithTracerProvider or WithMeterProvider
	router *callRouter       // where every tool call's reply arrives
	notify func(Status)      // the WithStatusHandler handlers
	tools  atomic.Pointer[toolSnapshot]
	status atomic.Pointer[Status]
	nextID atomic.Uint64
	// approving counts the calls WithApproval is deciding on (InFlight).
	approving atomic.Int64
	// approvals are the goroutines deciding on calls, which Close cancels
	// (closing) and waits for; approvalsMu orders their start against
	// Close, so that none starts once Close waits.
	approvalsMu sync.Mutex
	approvals   sync.WaitGroup
	closing     context.Context
	stopClosing context.CancelFunc
	// A change of the tool list seen while not ready (a reconnection),
	// for the status that says ready again.
	pendingChange atomic.Pointer[toolChange]

	controls
	toolRefresh bool // WithToolRefresh

	closeOnce sync.Once
	closed    atomic.Bool
	done      chan struct{} // closed once Close has stopped the actor
}

// toolSnapshot is the read-only tool list the hooks consult without a trip
// to the actor.
type toolSnapshot struct {
	sorted  []*mcp.Tool // by name; tool looks a name up in it
	initial bool        // the empty list before the first connection
	// instructions is what server/discover said of the server.
	instructions string
	// protocolVersion is the revision the session that listed these tools
	// speaks.
	protocolVersion string
	// hint is the list's ttlMs (the smallest positive one of its pages);
	// zero when it gave none.
	hint time.Duration
	// scope is the list's cacheScope: "private", "public" or "" (none said).
	scope string

	// WithToolRefresh and a TTL: when a use lists again (unix nanoseconds;
	// 0: never), and whether it has.
	ttl        time.Duration
	staleAt    atomic.Int64
	refreshing atomic.Bool

	defsOnce sync.Once
	defs     []host.ToolDefinition // built on the first ToolDefinitions call
}

func newToolSnapshot(tools []*mcp.Tool) *toolSnapshot {
	s := &toolSnapshot{sorted: slices.Clone(tools)}
	slices.SortFunc(s.sorted, func(a, b *mcp.Tool) int { return cmp.Compare(a.Name, b.Name) })
	return s
}

// tool returns the tool named name, or nil. A binary search of the sorted
// list rather than a map: an idle connection holds no index of its tools.
func (s *toolSnapshot) tool(name string) *mcp.Tool {
	i, found := slices.BinarySearchFunc(s.sorted, name, func(t *mcp.Tool, name string) int { return cmp.Compare(t.Name, name) })
	if !found {
		return nil
	}
	return s.sorted[i]
}

// definitions marshals every input schema once per snapshot, when first
// asked: a reconnection does not pay for it.
func (s *toolSnapshot) definitions() []host.ToolDefinition {
	s.defsOnce.Do(func() {
		for _, t := range s.sorted {
			schema, err := json.Marshal(t.InputSchema)
			if err != nil || string(schema) == "null" {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			s.defs = append(s.defs, host.ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: schema})
		}
	})
	return s.defs
}

// sharedSystem is the actor system of every plugin connected without
// WithActorSystem or WithLogger. It lives as long as the process; Close
// stops a plugin's actors in it.
var sharedSystem = sync.OnceValue(func() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
})

// ConnectStdio is [Connect] with a stdio transport that runs command with no
// arguments.
func ConnectStdio(ctx context.Context, command string, opts ...Option) (*McpPlugin, error) {
	return Connect(ctx, transport.NewStdio(command), opts...)
}

// Connect spawns the McpConnection actor for t, which connects with
// server/discover (MCP 2026-07-28 only) and lists every tool. It returns once
// the tools are known, or with an [*Error]: [ErrIO] when the child cannot be
// spawned, [ErrNotSupported] for a transport that cannot be used (SSE without
// [WithLegacyFallback]), [ErrInternal] when discovery or
// tools/list fails or ctx ends first. With [WithRetryConnect] it returns at
// once instead, and a first connection that fails is retried.
func Connect(ctx context.Context, t transport.McpTransport, opts ...Option) (*McpPlugin, error) {
	o := applyOptions(opts)
	if t, ok := t.(link.Target); ok {
		// grid.Connect's facade: the connection is its kind's.
		if err := misplaced(opts, pluginopt.Facade, "a facade over a cluster's grain, whose connection its kind configures (grid.WithPluginOptions)"); err != nil {
			return nil, err
		}
		return follow(ctx, t, o)
	}
	if err := misplaced(opts, pluginopt.Local, "a plugin that spawns its connection: it is a facade's"); err != nil {
		return nil, err
	}
	p, err := start(t, o)
	if err != nil || o.Supervisor.RetryConnect {
		return p, err
	}
	if err := p.WaitReady(ctx); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

// WithRetryConnect makes [Connect] return at once, without waiting for the
// server ([McpPlugin.WaitReady] waits for the first outcome), and makes a
// first connection that fails not final: the supervisor keeps trying with
// the backoff of [WithBackoff], within the restart budget and then once per
// cool-down of the breaker ([WithBreakerCoolDown]), and the plugin's tools
// appear when the server comes up. Until then [McpPlugin.Tools] is empty,
// Status is [actors.Connecting] and then [actors.Failed] with the last error,
// and calls fail at once. What no retry mends is not retried until
// [McpPlugin.Reconnect]: a server that does not speak 2026-07-28
// ([ErrProtocolVersion]), a command that cannot start ([ErrIO]), a
// transport that cannot work ([ErrNotSupported]); and nothing is under
// [WithoutSupervision]. Connect's error is then for a nil transport or a
// failed [WithSpawn] only.
func WithRetryConnect() Option {
	return newOption("WithRetryConnect", local, func(o *options) { o.Supervisor.RetryConnect = true })
}

// start spawns the plugin's actors for t as o says, without waiting.
func start(t transport.McpTransport, o *options) (*McpPlugin, error) {
	if t == nil {
		return nil, &Error{Kind: KindInternal, Op: "connect", Err: errors.New("nil transport")}
	}
	p := newFacade(t.String(), named.LabelOf(t), o)
	p.resourceTools.nameServer(t)
	notify := p.notify
	if o.Supervisor.Connection.RetryIdempotent {
		t = retryCutStreams{t, p} // see cutstream.go
	}
	conn := o.connectionConfig(t)
	storeTools := p.storeTools
	l := &localLink{system: p.system}
	var props *actor.Props
	p.unsupervised = o.unsupervised
	if o.unsupervised {
		conn.OnReady = storeTools
		conn.OnStatus = func(st actors.State, f *messages.Failure) {
			var at time.Time
			if f != nil {
				at = time.Now()
			}
			p.setStatus(notify, actors.Status{State: st, LastFailure: f, LastFailureAt: at})
		}
		props = actors.NewConnectionProps(conn)
	} else {
		sup := o.supervisorConfig(conn)
		sup.OnReady = storeTools
		sup.OnStatus = func(st actors.Status) { p.setStatus(notify, st) }
		props = actors.NewSupervisorProps(sup)
	}
	if o.spawn != nil {
		pid, err := o.spawn(props)
		if err != nil {
			if p.ownSystem {
				p.system.Shutdown()
			}
			return nil, &Error{Kind: KindInternal, Server: p.server, Op: "connect", Err: fmt.Errorf("spawning the connection: %w", err)}
		}
		l.pid = pid
	} else {
		l.pid = p.system.Root.Spawn(props)
	}
	if !o.unsupervised {
		// Before any call, so that none sent straight overtakes one queued.
		p.system.Root.Send(l.pid, &hostmsg.WatchDirect{Notify: l.setDirect})
	}
	p.router = newCallRouter(p.system)
	l.router = p.router.pid
	p.conn = l
	return p, nil
}

// newFacade is a plugin with no actor yet: its actor system, logger (its
// lines name the server by label, as "mcp_server"), call bounds, an empty
// tool list, state connecting.
func newFacade(server, label string, o *options) *McpPlugin {
	loggerGiven := o.Supervisor.Connection.Logger != nil
	if !loggerGiven {
		o.Supervisor.Connection.Logger = zap.NewNop()
	}
	logger := o.Supervisor.Connection.Logger
	if loggerGiven {
		logger = logger.With(zap.String("mcp_server", label))
	}
	p := &McpPlugin{server: server, logger: logger, system: o.System, done: make(chan struct{}),
		callTimeout: defaultCallTimeout, toolTimeout: o.toolTimeout, controls: o.controls, taskTimeout: o.taskTimeout,
		label: label, taskStore: o.taskStore,
		toolRefresh: o.Supervisor.Connection.ToolRefresh,
		tel:         o.Supervisor.Connection.Telemetry}
	p.closing, p.stopClosing = context.WithCancel(context.Background())
	if o.callTimeoutSet {
		p.callTimeout = o.callTimeout
	}
	p.callTimeoutLimit = "the call timeout of " + p.callTimeout.String() + " (WithDefaultCallTimeout)"
	p.toolTimeoutLimit = "the tool timeout of " + p.toolTimeout.String() + " (WithCallTimeoutCap)"
	// Call IDs start at a random point: facades on several members may
	// call one connection (a cluster grain), which keys calls by ID.
	p.nextID.Store(rand.Uint64() >> 1)
	switch {
	case p.system != nil:
	case !loggerGiven:
		// Silent plugins share one system: a system costs ~2.8 MiB.
		p.system = sharedSystem()
	default:
		// A system of its own, so that protoactor's logs reach this logger.
		core := o.Supervisor.Connection.Logger.Core()
		p.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(zapslog.NewHandler(core))
		}))
		p.ownSystem = true
	}
	initial := newToolSnapshot(nil)
	initial.initial = true
	p.tools.Store(initial)
	p.status.Store(&Status{State: actors.Connecting})
	handlers := o.onStatus
	p.notify = func(s Status) {
		for _, h := range handlers {
			h(s)
		}
	}
	return p
}

// connectionConfig is what the options say of the connection itself,
// over t.
func (o *options) connectionConfig(t transport.McpTransport) actors.ConnectionConfig {
	conn := o.Supervisor.Connection
	conn.Transport = t
	return conn
}

// supervisorConfig is what the options say of reconnection, over conn.
func (o *options) supervisorConfig(conn actors.ConnectionConfig) actors.SupervisorConfig {
	sup := o.Supervisor
	sup.Connection = conn
	return sup
}

// WaitReady waits for the outcome of the plugin's first connection: nil
// once its tools are known, else the [*Error] of the failed attempt (or of
// ctx). After a [Connect] with [WithRetryConnect] whose first attempt failed, it answers at once with
// that failure while the supervisor goes on retrying; once a session has
// been up, it answers nil at once.
func (p *McpPlugin) WaitReady(ctx context.Context) error {
	if p.closed.Load() {
		return &Error{Kind: KindInternal, Server: p.server, Op: "connect", Err: errors.New("plugin is closed")}
	}
	if _, err := p.conn.AwaitReady(ctx); err != nil {
		return p.linkError("connect", err) // the tools are stored already (OnReady, or the link)
	}
	return nil
}

// Reconnect asks for a new connection now, when the plugin is failed: a
// server that is not retried by itself (it does not speak 2026-07-28,
// [ErrProtocolVersion], or its command could not start, [ErrIO]) is
// started again, and one whose breaker is open ([ErrCircuitOpen]) tries
// without waiting for its cool-down; the restart budget and the cool-down
// start anew. It returns nil once a session is ready (at once when one
// is), else the [*Error] of the try or of ctx. Under [WithoutSupervision]
// nothing reconnects: it fails with [ErrNotSupported].
func (p *McpPlugin) Reconnect(ctx context.Context) error {
	if p.closed.Load() {
		return &Error{Kind: KindInternal, Server: p.server, Op: "reconnect", Err: errors.New("plugin is closed")}
	}
	if p.unsupervised {
		return &Error{Kind: KindNotSupported, Server: p.server, Op: "reconnect", Err: errors.New("the plugin runs without supervision")}
	}
	if _, err := p.conn.Reconnect(ctx); err != nil {
		return p.linkError("reconnect", err)
	}
	return nil
}

// Name returns "mcp-connector".
func (p *McpPlugin) Name() string { return pluginName }

// Server names the server this plugin is connected to, e.g. `stdio "srv"`.
func (p *McpPlugin) Server() string { return p.server }

// Tools returns the discovered tools sorted by name. The slice is the
// caller's; the tools are shared and must not be modified.
func (p *McpPlugin) Tools() []*mcp.Tool { return slices.Clone(p.snapshot().sorted) }

// Instructions returns what the server's server/discover answer said about
// using it, as of its latest connection; "" when it said nothing or has not
// connected yet.
func (p *McpPlugin) Instructions() string { return p.tools.Load().instructions }

// ProtocolVersion returns the MCP revision the server's latest session
// speaks: "2026-07-28", or an older one with [WithLegacyFallback]; "" before
// the first connection.
func (p *McpPlugin) ProtocolVersion() string { return p.tools.Load().protocolVersion }

// ToolDefinitions returns the discovered tools, sorted by name, in the form a
// [host.Request] publishes them to the model.
func (p *McpPlugin) ToolDefinitions() []host.ToolDefinition {
	return p.resourceTools.add(slices.Clone(p.snapshot().definitions()))
}

// ToolsTTL returns the cache hint of the current tool list: the smallest
// positive ttlMs of its tools/list pages (SEP-2549), zero when the server
// gave none. [WithToolRefresh] lists again once it has passed.
func (p *McpPlugin) ToolsTTL() time.Duration { return p.tools.Load().hint }

// ToolsCacheScope returns the cacheScope of the current tool list
// (SEP-2549): "private" when any of its tools/list pages said so (only this
// user's client may cache it), else "public" when one said so, else "" (the
// server gave no hint; the protocol's default is "public").
func (p *McpPlugin) ToolsCacheScope() string { return p.tools.Load().scope }

// ToolSet returns the discovered tools and their definitions, both sorted by
// name, read from one snapshot of the list: while the list changes, the two
// still describe the same tools, which [McpPlugin.Tools] followed by
// [McpPlugin.ToolDefinitions] does not promise. The slices are the
// caller's; the tools are shared and must not be modified.
func (p *McpPlugin) ToolSet() ([]*mcp.Tool, []host.ToolDefinition) {
	s := p.snapshot()
	return slices.Clone(s.sorted), slices.Clone(s.definitions())
}

// HasTool reports whether name is a discovered tool.
func (p *McpPlugin) HasTool(name string) bool {
	return p.snapshot().tool(name) != nil
}

// InFlight reports how many of the plugin's requests (tool calls, those
// waiting for [WithApproval]'s decision included, resource reads, prompt
// gets) are under way now: neither answered nor given up nor failed. A
// program that drains before [McpPlugin.Close] waits for it to be zero.
func (p *McpPlugin) InFlight() int { return p.router.inFlight(&p.approving) }

// Close stops the connection actor, which ends the session (a stdio child
// gets its stdin closed, then SIGTERM, then SIGKILL) and waits for it. Calls
// in flight, and calls still in the actor's mailbox, fail with [ErrInternal];
// the latter never reach the server. Calls that [WithApproval]'s function
// is still deciding on fail the same way: Close cancels the ctx that
// function was given and waits for it to return, so an approval function
// must return once its ctx is done. Close is idempotent.
func (p *McpPlugin) Close() error {
	p.closeOnce.Do(func() {
		p.approvalsMu.Lock()
		p.closed.Store(true)
		p.approvalsMu.Unlock()
		p.stopClosing() // ends the approval functions' ctx
		p.approvals.Wait()
		p.conn.Close()
		p.router.close()
		old := p.Status()
		p.status.Store(&Status{State: actors.Closed, Restarts: old.Restarts, LastError: old.LastError,
			LastFailure: old.LastFailure, LastFailureAt: old.LastFailureAt})
		close(p.done)
		if p.ownSystem {
			p.system.Shutdown()
		}
	})
	return nil
}
