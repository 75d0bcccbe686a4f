package benchmarks

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// Scenarios and subjects of lazy servers (a toolbox's "lazy": true with
// manifests on disk), each beside the same servers started eagerly.
const (
	ScenarioLazyOpen  = "toolbox open, 20 stdio servers with manifests"
	ScenarioLazyFirst = "first call, stdio toolbox of 1 server (Open included)"
	ScenarioLazyIdle  = "idle, toolbox of 20 stdio servers never called"

	SubjectLazy       = "lazy"
	SubjectEagerOpen  = "eager"
	SubjectConnect    = "plugin.Connect alone (a connect)"
	LazyServers       = 20
	lazyFirstCallTool = "s00__add"
)

// lazyConfig is [ToolboxConfig] of n servers of the runner's stdio server,
// marked lazy or not, with their manifests written to dir by one eager
// Open: what a second session of an agent finds.
func (r *runner) lazyConfig(ctx context.Context, n int, lazy bool, dir string) (*mcpconfig.Config, error) {
	cfg := ToolboxConfig(n, r.stdio)
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithStrict(), toolbox.WithManifestDir(dir))
	if err != nil {
		return nil, err
	}
	if err := tb.Close(); err != nil {
		return nil, err
	}
	for _, s := range cfg.Servers {
		s.Lazy = lazy
	}
	return cfg, nil
}

// openChecked opens cfg and fails unless a lazy toolbox started no server.
func openChecked(cfg *mcpconfig.Config, lazy bool, dir string) func(context.Context) (*toolbox.Toolbox, error) {
	return func(ctx context.Context) (*toolbox.Toolbox, error) {
		tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(dir), toolbox.WithStrict())
		if err != nil {
			return nil, err
		}
		for name, st := range tb.Status() {
			if lazy && st.State != actors.NotStarted {
				return tb, fmt.Errorf("lazy server %s is %s: a child process started", name, st.State)
			}
		}
		return tb, nil
	}
}

// lazy measures Open of 20 lazy servers against 20 eager ones, the first
// call of a lazy server against an eager toolbox's and a connect, and what
// 20 lazy servers never called hold.
func (r *runner) lazy(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "mcpconnector-bench-manifests-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var cfgs [2]*mcpconfig.Config
	for i, lazy := range []bool{true, false} {
		if cfgs[i], err = r.lazyConfig(ctx, LazyServers, lazy, dir); err != nil {
			return err
		}
	}
	closeOf := func(open func(context.Context) (*toolbox.Toolbox, error)) func(context.Context) (func() error, error) {
		return func(ctx context.Context) (func() error, error) {
			tb, err := open(ctx)
			if tb == nil {
				return nil, err
			}
			return tb.Close, err
		}
	}
	res, err := Connects(ctx, r.cfg.ToolboxOpenRounds, []Connector{
		{Name: SubjectLazy, Connect: closeOf(openChecked(cfgs[0], true, dir))},
		{Name: SubjectEagerOpen, Connect: closeOf(openChecked(cfgs[1], false, dir))},
	})
	if err != nil {
		return err
	}
	r.add(ScenarioLazyOpen, res...)

	var one [2]*mcpconfig.Config
	for i, lazy := range []bool{true, false} {
		if one[i], err = r.lazyConfig(ctx, 1, lazy, dir); err != nil {
			return err
		}
	}
	firstCall := func(i int) func(context.Context) (func() error, error) {
		open := openChecked(one[i], i == 0, dir)
		return func(ctx context.Context) (func() error, error) {
			tb, err := open(ctx)
			if tb == nil {
				return nil, err
			}
			if err != nil {
				return tb.Close, err
			}
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: lazyFirstCallTool, Arguments: InstantCall.Args}}}
			if err := tb.OnStreamChunk(ctx, chunk); err != nil {
				return tb.Close, err
			}
			if got, ok := chunk.Blocks[0].(host.ToolResult); !ok || got.IsError || got.Content != InstantCall.Want {
				return tb.Close, fmt.Errorf("first call: %#v", chunk.Blocks[0])
			}
			return tb.Close, nil
		}
	}
	res, err = Connects(ctx, r.cfg.ToolboxOpenRounds, []Connector{
		{Name: SubjectLazy, Connect: firstCall(0)},
		{Name: SubjectEagerOpen, Connect: firstCall(1)},
		{Name: SubjectConnect, Connect: func(ctx context.Context) (func() error, error) {
			p, err := plugin.Connect(ctx, r.stdio)
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		}},
	})
	if err != nil {
		return err
	}
	r.add(ScenarioLazyFirst, res...)

	for i, name := range []string{SubjectLazy, SubjectEagerOpen} {
		open := openChecked(cfgs[i], i == 0, dir)
		fp, err := Idle(ctx, max(1, r.cfg.ToolboxOpenRounds/2), closeOf(open))
		if err != nil {
			return err
		}
		r.rows = append(r.rows, Row{Scenario: ScenarioLazyIdle, Idle: &fp, Result: Result{
			Subject: name, Latency: fp.Connect, AllocsPerOp: fp.AllocsPerConnect, BytesPerOp: fp.BytesPerConnect, CPUPerOp: fp.CPUPerConnect,
		}})
	}
	return nil
}

// lazyTargets are the goals of lazy servers: an Open that starts nothing
// and costs little, and a first call that costs at most a connect more than
// a call to a started server.
func (r *Report) lazyTargets() []Target {
	var out []Target
	if lazy := r.find(ScenarioLazyOpen, SubjectLazy, 0); lazy != nil {
		got := fmt.Sprintf("%s, %s, no child process", Dur(lazy.Latency.P50), bytesStr(lazy.BytesPerOp))
		if eager := r.find(ScenarioLazyOpen, SubjectEagerOpen, 0); eager != nil {
			got += fmt.Sprintf(" (eager: %s, %s)", Dur(eager.Latency.P50), bytesStr(eager.BytesPerOp))
		}
		out = append(out, Target{
			Goal: "Open of 20 lazy stdio servers with manifests: no child process, under 5 ms and 2 MiB",
			Got:  got,
			Met:  lazy.Latency.P50 < 5*time.Millisecond && lazy.BytesPerOp < 2<<20,
		})
	}
	first := r.find(ScenarioLazyFirst, SubjectLazy, 0)
	conn, call := r.find(ScenarioLazyFirst, SubjectConnect, 0), r.find(ScenarioToolboxHook, SubjectToolboxHook, 0)
	if first != nil && conn != nil && call != nil {
		// The first call's row includes the Open of its toolbox, so the
		// extra time is counted generously.
		extra := first.Latency.P50 - call.Latency.P50
		out = append(out, Target{
			Goal: "first call of a lazy server (its Open included): at most a connect's time (plugin.Connect) more than a call to a started one",
			Got: fmt.Sprintf("%s more (first call %s with its Open, started call %s, connect %s)",
				Dur(extra), Dur(first.Latency.P50), Dur(call.Latency.P50), Dur(conn.Latency.P50)),
			Met: extra <= conn.Latency.P50,
		})
	}
	if lazy := r.find(ScenarioLazyIdle, SubjectLazy, 0); lazy != nil && lazy.Idle != nil {
		got := fmt.Sprintf("%s and %.1f goroutines per toolbox", bytesStr(lazy.Idle.HeapPerConn), lazy.Idle.GoroutinesPerConn)
		if eager := r.find(ScenarioLazyIdle, SubjectEagerOpen, 0); eager != nil && eager.Idle != nil {
			got += fmt.Sprintf(" (eager: %s, %.1f, and 20 child processes)", bytesStr(eager.Idle.HeapPerConn), eager.Idle.GoroutinesPerConn)
		}
		out = append(out, Target{Goal: "idle toolbox of 20 lazy servers never called", Got: got, Reported: true})
	}
	return out
}
