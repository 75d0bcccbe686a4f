package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	mcpgoclient "github.com/mark3labs/mcp-go/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/httppool"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Config sizes a [Run]. Zero fields are not defaulted: start from
// [FullConfig] or [QuickConfig].
type Config struct {
	// PassBatches batches of PassBatchSize pass-through chunks.
	PassBatches, PassBatchSize int
	// HookRounds rounds of HookPerRound calls per subject, after
	// HookWarmup calls, for the stdio and HTTP hook call scenarios.
	HookRounds, HookPerRound, HookWarmup int
	// Callers are the numbers of concurrent callers of the throughput
	// scenarios; InstantFor and WaitFor how long each subject runs with the
	// instant and the 20 ms tool, in ThroughputRounds interleaved slices.
	Callers             []int
	InstantFor, WaitFor time.Duration
	ThroughputRounds    int
	// IdleStdio and IdleHTTP connections are opened for connect time and
	// idle footprint.
	IdleStdio, IdleHTTP int
	// WideRounds connects, per subject, to the server with 1,000 tools.
	WideRounds int
	// ToolboxOpenRounds opens, per subject, a toolbox of 1 and of 10 stdio
	// servers, and a plugin.
	ToolboxOpenRounds int
	// TurnRounds streams, per subject, one model turn of 1 and of 4 calls
	// of a 100 ms tool.
	TurnRounds int
	// SearchRounds rounds of SearchPerRound searches and OnRequests, for
	// [MeasureToolSearch].
	SearchRounds, SearchPerRound int
	// TaskRounds tasks are timed from their completion to their result,
	// and TaskPollTasks tasks of TaskPollsPerTask polls measure a poll
	// ([ScenarioTask]).
	TaskRounds, TaskPollTasks int
	// Outages are the lengths of the outage scenarios (each for dbhub over
	// HTTP and for a failing stdio command); none runs when empty.
	Outages []time.Duration
	// Progress, if not nil, receives a line per step.
	Progress io.Writer
	// Only, if not empty, names the scenarios (the steps of [Run]) to
	// run; the others are skipped.
	Only []string
}

// FullConfig is the measurement the benchmarks page of the docs reports;
// it runs in about 4 minutes on two cores, and the outages 2 more.
func FullConfig() Config {
	return Config{
		PassBatches: 200, PassBatchSize: 10000,
		HookRounds: 60, HookPerRound: 50, HookWarmup: 200,
		Callers:    []int{1, 4, 16, 64},
		InstantFor: 1500 * time.Millisecond, WaitFor: 2 * time.Second, ThroughputRounds: 4,
		IdleStdio: 16, IdleHTTP: 32,
		WideRounds: 6, ToolboxOpenRounds: 8,
		TurnRounds:   20,
		SearchRounds: 10, SearchPerRound: 300,
		TaskRounds: 100, TaskPollTasks: 10,
		Outages: []time.Duration{10 * time.Second, 60 * time.Second},
	}
}

// QuickConfig runs every scenario briefly: a smoke test, not a measurement.
func QuickConfig() Config {
	return Config{
		PassBatches: 5, PassBatchSize: 100,
		HookRounds: 2, HookPerRound: 5, HookWarmup: 2,
		Callers:    []int{1, 16},
		InstantFor: 50 * time.Millisecond, WaitFor: 50 * time.Millisecond, ThroughputRounds: 1,
		IdleStdio: 2, IdleHTTP: 2,
		WideRounds: 1, ToolboxOpenRounds: 1,
		TurnRounds:   1,
		SearchRounds: 1, SearchPerRound: 5,
		TaskRounds: 2, TaskPollTasks: 1,
		Outages: []time.Duration{time.Second},
	}
}

// Scenario names, as they appear in the table.
const (
	ScenarioPassThrough = "pass-through"
	ScenarioHookStdio   = "hook call, stdio"
	ScenarioHookHTTP    = "hook call, HTTP"
	ScenarioInstant     = "throughput, instant tool, stdio"
	ScenarioWait        = "throughput, 20 ms tool, stdio"
	ScenarioIdleStdio   = "connect + idle, stdio"
	ScenarioIdleHTTP    = "connect + idle, HTTP"
	ScenarioWide        = "connect + tools/list, 1,000 tools"
)

// Subject names that are not a [Subject]'s.
const (
	SubjectPluginOwnSystem    = "plugin (own actor system)"
	SubjectPluginSharedSystem = "plugin (shared actor system)"
	SubjectPluginUnsupervised = "plugin hook, unsupervised"
	// SubjectStdioConn is a go-sdk ClientSession on this module's stdio
	// connection (transport.Stdio) instead of go-sdk's CommandTransport:
	// what the connection alone changes.
	SubjectStdioConn = "go-sdk on our stdio connection"
	// SubjectPluginDirect is the plugin hook with tools/call on the stdio
	// connection's own path (the default) instead of go-sdk's
	// ClientSession.CallTool, which the stdio rows of SubjectPlugin keep
	// (transport.Stdio.DisableDirectCalls).
	SubjectPluginDirect = "plugin hook, direct tools/call"
)

// Row is one line of the table.
type Row struct {
	// Scenario is one of the Scenario constants.
	Scenario string
	// Result is what the row's subject measured.
	Result
	// Idle, for connect scenarios, is what each idle connection holds.
	Idle *Footprint
	// Outage, for outage scenarios, is what the outage measured.
	Outage *Outage
}

// Run measures every scenario, one after another in this process, with the
// servers in child processes of this executable: the caller's main (or
// TestMain) must call [testserver.RunBenchIfChild] first.
func Run(ctx context.Context, cfg Config) ([]Row, error) {
	r := &runner{cfg: cfg}
	defer r.close()
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"servers", r.start},
		{ScenarioPassThrough, r.passThrough},
		{ScenarioHookStdio, r.hookStdio},
		{ScenarioHookHTTP, r.hookHTTP},
		{ScenarioResourceRead, r.resourceRead},   // resources.go
		{ScenarioHookLegacy, r.hookLegacy},       // legacy.go
		{ScenarioPipeLimit, r.pipeLimit},         // pipe.go
		{ScenarioPipeLimitHTTP, r.pipeLimitHTTP}, // pipe_http.go
		{ScenarioInstant, func(ctx context.Context) error {
			return r.throughput(ctx, ScenarioInstant, InstantCall, cfg.InstantFor)
		}},
		{ScenarioWait, func(ctx context.Context) error { return r.throughput(ctx, ScenarioWait, WaitCall, cfg.WaitFor) }},
		{ScenarioIdleStdio, r.idleStdio},
		{ScenarioIdleHTTP, r.idleHTTP},
		{ScenarioWide, r.wide},
		{ScenarioToolboxPass, r.toolboxPass},
		{ScenarioToolboxHook, r.toolboxHook},
		{ScenarioToolboxOpen, r.toolboxOpen},
		{ScenarioGridHook, r.gridHook},
		{ScenarioTurn, r.turn},
		{ScenarioLazyOpen, r.lazy},
		{ScenarioTask, r.tasks},
		{ScenarioOutageHTTP, r.outageHTTP},
		{ScenarioOutageStdio, r.outageStdio},
	}
	for _, s := range steps {
		if len(cfg.Only) > 0 && s.name != "servers" && !slices.Contains(cfg.Only, s.name) {
			continue
		}
		r.progress("%s", s.name)
		t0 := time.Now()
		if err := s.fn(ctx); err != nil {
			return r.rows, fmt.Errorf("%s: %w", s.name, err)
		}
		r.progress("%s: %.1fs", s.name, time.Since(t0).Seconds())
	}
	return r.rows, nil
}

// runner holds the connections the scenarios share.
type runner struct {
	cfg     Config
	rows    []Row
	closers []func() error

	stdio, echo, wideSrv transport.Stdio
	httpSrv              *testserver.BenchHTTP
	plugin               *plugin.McpPlugin  // stdio
	direct               *mcp.ClientSession // stdio
	directCalls          *plugin.McpPlugin  // stdio, tools/call on the module's own path
	mcpgo                *mcpgoclient.Client
}

func (r *runner) progress(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "bench: "+format+"\n", args...)
	}
}

func (r *runner) onClose(fn func() error) { r.closers = append(r.closers, fn) }

func (r *runner) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		_ = r.closers[i]()
	}
}

func (r *runner) add(scenario string, results ...Result) {
	for _, res := range results {
		r.rows = append(r.rows, Row{Scenario: scenario, Result: res})
	}
}

func (r *runner) start(ctx context.Context) error {
	var err error
	if r.stdio, err = testserver.BenchStdio(); err != nil {
		return err
	}
	if r.echo, err = testserver.BenchEcho(); err != nil {
		return err
	}
	if r.wideSrv, err = testserver.BenchWide(); err != nil {
		return err
	}
	if r.httpSrv, err = testserver.StartBenchHTTP(); err != nil {
		return err
	}
	r.onClose(r.httpSrv.Close)
	// The plugin hook row keeps go-sdk's ClientSession.CallTool, beside
	// the direct tools/call row, which is the default.
	session := r.stdio
	session.DisableDirectCalls = true
	if r.plugin, err = plugin.Connect(ctx, session); err != nil {
		return err
	}
	r.onClose(r.plugin.Close)
	if r.direct, err = ConnectGoSDKListed(ctx, CommandTransport(r.stdio)); err != nil {
		return err
	}
	r.onClose(r.direct.Close)
	// The same plugin with tools/call on its own path (the default), and
	// mcp-go's client: the peers of the stdio hook call and throughput.
	if r.directCalls, err = plugin.Connect(ctx, r.stdio); err != nil {
		return err
	}
	r.onClose(r.directCalls.Close)
	if r.mcpgo, err = ConnectMCPGo(ctx, r.stdio); err != nil {
		return err
	}
	r.onClose(r.mcpgo.Close)
	return nil
}

// directHook is the hook call subject of r.directCalls.
func (r *runner) directHook(c Call) *Subject {
	s := PluginHook(r.directCalls, c)
	s.Name = SubjectPluginDirect
	return s
}

func (r *runner) passThrough(ctx context.Context) error {
	res, err := Batched(ctx, []*Subject{
		PassThrough("text + thinking chunk", r.plugin, host.Text{Text: "The sum is"}, host.Thinking{Text: "add them"}),
		PassThrough("unknown tool name", r.plugin, host.Text{Text: "calling"}, host.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}),
	}, r.cfg.PassBatches, r.cfg.PassBatchSize)
	if err != nil {
		return err
	}
	r.add(ScenarioPassThrough, res...)
	return nil
}

func (r *runner) hookStdio(ctx context.Context) error {
	raw, err := StartRawPipe(r.echo)
	if err != nil {
		return err
	}
	defer raw.Close()
	reader, err := StartReaderPipe(r.echo)
	if err != nil {
		return err
	}
	defer reader.Close()
	readerSDK, err := StartReaderPipe(r.stdio)
	if err != nil {
		return err
	}
	defer readerSDK.Close()
	// The same plugin without its supervising parent: what that hop costs.
	bare, err := plugin.Connect(ctx, r.stdio, plugin.WithoutSupervision())
	if err != nil {
		return err
	}
	defer bare.Close()
	unsupervised := PluginHook(bare, InstantCall)
	unsupervised.Name = SubjectPluginUnsupervised
	own, err := r.stdio.Open(nil)
	if err != nil {
		return err
	}
	onOwn, err := ConnectGoSDKListed(ctx, own)
	if err != nil {
		return err
	}
	defer onOwn.Close()
	ownConn := GoSDKDirect(onOwn, InstantCall)
	ownConn.Name = SubjectStdioConn
	// The same plugin with tracing on: a span per call, exported nowhere.
	tp := TracingProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	traced, err := plugin.Connect(ctx, r.stdio, plugin.WithTracerProvider(tp))
	if err != nil {
		return err
	}
	defer traced.Close()
	res, err := Interleave(ctx, []*Subject{PluginHook(r.plugin, InstantCall), r.directHook(InstantCall), unsupervised, TracedPluginHook(traced, InstantCall),
		GoSDKDirect(r.direct, InstantCall), MCPGoDirect(r.mcpgo, InstantCall), ownConn, readerSDK.Subject(SubjectReaderGoSDK, InstantCall), reader.Subject(SubjectReaderFloor, InstantCall), raw.Subject(InstantCall)},
		r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioHookStdio, res...)
	return nil
}

// httpTransport is a StreamableHTTP transport with a client of its own, whose
// idle connections close drops.
func (r *runner) httpTransport() (t transport.StreamableHTTP, client *http.Client) {
	client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	return transport.StreamableHTTP{URL: r.httpSrv.URL + "/mcp", HTTPClient: client}, client
}

func (r *runner) hookHTTP(ctx context.Context) error {
	t, pc := r.httpTransport()
	p, err := plugin.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer pc.CloseIdleConnections()
	defer p.Close()
	_, dc := r.httpTransport()
	defer dc.CloseIdleConnections()
	s, err := ConnectGoSDKListed(ctx, &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: dc})
	if err != nil {
		return err
	}
	defer s.Close()
	raw := NewRawHTTP(r.httpSrv.URL + "/echo")
	defer raw.Close()
	res, err := Interleave(ctx, []*Subject{PluginHook(p, InstantCall), GoSDKDirect(s, InstantCall), raw.Subject(InstantCall)},
		r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioHookHTTP, res...)
	return nil
}

func (r *runner) throughput(ctx context.Context, scenario string, c Call, d time.Duration) error {
	w := NewOneWorker(r.direct)
	defer w.Close()
	subjects := []*Subject{PluginHook(r.plugin, c), r.directHook(c), GoSDKDirect(r.direct, c), MCPGoDirect(r.mcpgo, c), OneWorkerModel(w, c)}
	rounds := max(1, r.cfg.ThroughputRounds)
	for _, n := range r.cfg.Callers {
		res, err := ThroughputInterleaved(ctx, subjects, n, d/time.Duration(rounds), rounds)
		if err != nil {
			return err
		}
		r.add(scenario, res...)
	}
	return nil
}

// idle opens k connections of each kind in turn, after the last kind's have
// closed and after settle has run, twice (see below), and reports each
// kind's mean.
func (r *runner) idle(ctx context.Context, scenario string, k int, t transport.McpTransport, direct func() mcp.Transport, settle func()) error {
	connectPlugin := func(opts ...plugin.Option) func(context.Context) (func() error, error) {
		return func(ctx context.Context) (func() error, error) {
			p, err := plugin.Connect(ctx, t, opts...)
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		}
	}
	kinds := []struct {
		name string
		// measure is one measurement of k connections of the kind.
		measure func() (Footprint, error)
	}{
		{SubjectPluginOwnSystem, func() (Footprint, error) { return Idle(ctx, k, connectPlugin()) }},
		{SubjectPluginSharedSystem, func() (Footprint, error) {
			system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
				return slog.New(slog.DiscardHandler)
			}))
			defer system.Shutdown()
			return Idle(ctx, k, connectPlugin(plugin.WithActorSystem(system)))
		}},
		{"go-sdk direct", func() (Footprint, error) {
			return Idle(ctx, k, func(ctx context.Context) (func() error, error) {
				s, err := ConnectGoSDKListed(ctx, direct())
				if err != nil {
					return nil, err
				}
				return s.Close, nil
			})
		}},
	}
	// Each kind is measured twice, the kinds in one order and then in the
	// other, and the two are averaged: goroutine stacks count as the stack
	// spans in use, and a kind measured after another reuses what spans the
	// other's closed goroutines left partly free, so a fixed order favours
	// whichever kind comes last.
	fps := make([][]Footprint, len(kinds))
	for round := range 2 {
		for j := range kinds {
			i := j
			if round == 1 {
				i = len(kinds) - 1 - j
			}
			fp, err := kinds[i].measure()
			settle()
			if err != nil {
				return err
			}
			fps[i] = append(fps[i], fp)
		}
	}
	for i, kind := range kinds {
		fp := meanFootprint(fps[i]...)
		r.rows = append(r.rows, Row{Scenario: scenario, Idle: &fp, Result: Result{
			Subject: kind.name, Latency: fp.Connect, AllocsPerOp: fp.AllocsPerConnect, BytesPerOp: fp.BytesPerConnect,
			CPUPerOp: fp.CPUPerConnect,
		}})
	}
	return nil
}

func (r *runner) idleStdio(ctx context.Context) error {
	return r.idle(ctx, ScenarioIdleStdio, r.cfg.IdleStdio, r.stdio, func() mcp.Transport { return CommandTransport(r.stdio) }, func() {})
}

// idleHTTP connects as a program would by default: the plugin with the
// module's pool of connections, go-sdk with http.DefaultTransport, whose
// idle connections are both dropped between the kinds.
func (r *runner) idleHTTP(ctx context.Context) error {
	url := r.httpSrv.URL + "/mcp"
	dropIdle := httppool.CloseIdle
	return r.idle(ctx, ScenarioIdleHTTP, r.cfg.IdleHTTP, transport.StreamableHTTP{URL: url},
		func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: url} }, dropIdle)
}

// wide connects, alternately, the plugin and a bare go-sdk client to the
// server with 1,000 tools; each connect spawns the server, discovers it and
// lists every page.
func (r *runner) wide(ctx context.Context) error {
	check := func(who string, n int) error {
		if n != testserver.WideTools {
			return fmt.Errorf("%s found %d tools, want %d", who, n, testserver.WideTools)
		}
		return nil
	}
	res, err := Connects(ctx, r.cfg.WideRounds, []Connector{
		{Name: "plugin", Connect: func(ctx context.Context) (func() error, error) {
			p, err := plugin.Connect(ctx, r.wideSrv)
			if err != nil {
				return nil, err
			}
			return p.Close, check("plugin", len(p.Tools()))
		}},
		{Name: "go-sdk direct", Connect: func(ctx context.Context) (func() error, error) {
			s, err := ConnectGoSDK(ctx, CommandTransport(r.wideSrv))
			if err != nil {
				return nil, err
			}
			n, err := ListAllTools(ctx, s)
			if err != nil {
				return nil, errors.Join(err, s.Close())
			}
			return s.Close, check("go-sdk", n)
		}},
	})
	if err != nil {
		return err
	}
	r.add(ScenarioWide, res...)
	return nil
}
