package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// Scenarios of the toolbox layer, each beside the layer below.
const (
	ScenarioToolboxPass = "pass-through, toolbox of 10 servers × 50 tools"
	ScenarioToolboxHook = "hook call, stdio, toolbox"
	ScenarioToolboxOpen = "toolbox open, stdio servers"
)

// Subject names of the toolbox scenarios.
const (
	SubjectToolboxHook    = "toolbox hook"
	SubjectToolboxOpen1   = "toolbox, 1 server"
	SubjectToolboxOpen10  = "toolbox, 10 servers"
	SubjectPluginConnect1 = "plugin, 1 server"
	// SubjectPluginsConnect10 is the floor of opening 10 servers at once on
	// this machine: 10 plugins connected from 10 goroutines, no toolbox.
	SubjectPluginsConnect10 = "10 plugins in parallel (floor)"
)

// ToolboxServers is how many servers the toolbox scenarios open, and
// ToolboxTools how many tools each has in the pass-through scenario.
const (
	ToolboxServers = 10
	ToolboxTools   = 50
)

// ToolboxConfig is a config of n stdio servers named s00, s01, ..., all
// running t.
func ToolboxConfig(n int, t transport.Stdio) *mcpconfig.Config {
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{}}
	for i := range n {
		name := fmt.Sprintf("s%02d", i)
		cfg.Servers[name] = &mcpconfig.Server{Name: name, Type: mcpconfig.TypeStdio, Command: t.Command, Args: t.Args}
	}
	return cfg
}

// ToolboxHook is [PluginHook] through a toolbox: the chunk's call names the
// exposed tool, and the toolbox routes it to its server's plugin.
func ToolboxHook(tb *toolbox.Toolbox, exposed string, c Call) *Subject {
	s := hook(tb, exposed, c)
	s.Name = SubjectToolboxHook
	return s
}

// ToolboxPassThrough is [PassThrough] on a toolbox.
func ToolboxPassThrough(name string, tb *toolbox.Toolbox, blocks ...host.Block) *Subject {
	return &Subject{Name: name, New: func() Op {
		chunk := &host.Chunk{Blocks: append([]host.Block(nil), blocks...)}
		return func(ctx context.Context) error { return tb.OnStreamChunk(ctx, chunk) }
	}}
}

// toolboxPass times pass-through on a toolbox of 10 servers with 50 tools
// each, interleaved with the same chunks on one plugin.
func (r *runner) toolboxPass(ctx context.Context) error {
	srv, err := testserver.BenchTools(ToolboxTools)
	if err != nil {
		return err
	}
	tb, err := toolbox.Open(ctx, ToolboxConfig(ToolboxServers, srv), toolbox.WithStrict())
	if err != nil {
		return err
	}
	defer tb.Close()
	if n := len(tb.Tools()); n != ToolboxServers*ToolboxTools {
		return fmt.Errorf("toolbox exposes %d tools, want %d", n, ToolboxServers*ToolboxTools)
	}
	text := []host.Block{host.Text{Text: "The sum is"}, host.Thinking{Text: "add them"}}
	unknown := []host.Block{host.Text{Text: "calling"}, host.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}}
	res, err := Batched(ctx, []*Subject{
		ToolboxPassThrough("toolbox: text + thinking chunk", tb, text...),
		ToolboxPassThrough("toolbox: unknown tool name", tb, unknown...),
		PassThrough("plugin: text + thinking chunk", r.plugin, text...),
		PassThrough("plugin: unknown tool name", r.plugin, unknown...),
	}, r.cfg.PassBatches, r.cfg.PassBatchSize)
	if err != nil {
		return err
	}
	r.add(ScenarioToolboxPass, res...)
	return nil
}

// toolboxHook times a hook call through a toolbox of one server against
// the same call through a plugin, each on a server of its own.
func (r *runner) toolboxHook(ctx context.Context) error {
	tb, err := toolbox.Open(ctx, ToolboxConfig(1, r.stdio), toolbox.WithStrict())
	if err != nil {
		return err
	}
	defer tb.Close()
	res, err := Interleave(ctx, []*Subject{ToolboxHook(tb, "s00__add", InstantCall), PluginHook(r.plugin, InstantCall)},
		r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioToolboxHook, res...)
	return nil
}

// toolboxOpen opens, alternately, a toolbox of one stdio server, one of 10,
// and a plugin: each open spawns its servers, discovers them and lists
// their tools, and closes them again.
func (r *runner) toolboxOpen(ctx context.Context) error {
	open := func(n int) func(context.Context) (func() error, error) {
		return func(ctx context.Context) (func() error, error) {
			tb, err := toolbox.Open(ctx, ToolboxConfig(n, r.stdio), toolbox.WithStrict())
			if err != nil {
				return nil, err
			}
			if got := len(tb.Servers()); got != n {
				return tb.Close, fmt.Errorf("toolbox has %d servers, want %d", got, n)
			}
			return tb.Close, nil
		}
	}
	res, err := Connects(ctx, r.cfg.ToolboxOpenRounds, []Connector{
		{Name: SubjectToolboxOpen1, Connect: open(1)},
		{Name: SubjectToolboxOpen10, Connect: open(ToolboxServers)},
		{Name: SubjectPluginConnect1, Connect: func(ctx context.Context) (func() error, error) {
			p, err := plugin.Connect(ctx, r.stdio)
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		}},
		{Name: SubjectPluginsConnect10, Connect: func(ctx context.Context) (func() error, error) {
			ps := make([]*plugin.McpPlugin, ToolboxServers)
			errs := make([]error, ToolboxServers)
			var wg sync.WaitGroup
			for i := range ps {
				wg.Go(func() { ps[i], errs[i] = plugin.Connect(ctx, r.stdio) })
			}
			wg.Wait()
			return func() error {
				for _, p := range ps {
					if p != nil {
						wg.Go(func() { _ = p.Close() })
					}
				}
				wg.Wait()
				return nil
			}, errors.Join(errs...)
		}},
	})
	if err != nil {
		return err
	}
	r.add(ScenarioToolboxOpen, res...)
	return nil
}
