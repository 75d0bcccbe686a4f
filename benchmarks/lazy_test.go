package benchmarks_test

import (
	"context"
	"testing"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// lazyServers is how many servers the lazy-server benchmarks open.
const lazyServers = 20

// lazyConfig is benchmarks.ToolboxConfig of n stdio servers, lazy or not,
// with their manifests written to dir by one eager Open.
func lazyConfig(b *testing.B, n int, lazy bool, dir string) *mcpconfig.Config {
	b.Helper()
	cfg := benchmarks.ToolboxConfig(n, stdioServer(b))
	tb, err := toolbox.Open(context.Background(), cfg, toolbox.WithStrict(), toolbox.WithManifestDir(dir))
	if err != nil {
		b.Fatal(err)
	}
	_ = tb.Close()
	for _, s := range cfg.Servers {
		s.Lazy = lazy
	}
	return cfg
}

// notStarted fails b unless no server of tb has started: no child process.
func notStarted(b *testing.B, tb *toolbox.Toolbox) {
	b.Helper()
	for name, st := range tb.Status() {
		if st.State != actors.NotStarted {
			b.Fatalf("server %s is %s: a child process started", name, st.State)
		}
	}
}

// BenchmarkLazyOpen is Open (and, untimed, Close) of 20 stdio servers with
// manifests on disk: lazy ones start no child, eager ones start 20. Run
// with e.g. -benchtime 5x: an eager Open is ~10^8 ns.
func BenchmarkLazyOpen(b *testing.B) {
	for _, c := range []struct {
		name string
		lazy bool
	}{{"lazy_20", true}, {"eager_20", false}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			cfg := lazyConfig(b, lazyServers, c.lazy, dir)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(dir))
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if c.lazy {
					notStarted(b, tb)
				} else if len(tb.Tools()) == 0 {
					b.Fatal("no tools")
				}
				_ = tb.Close()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkLazyFirstCall is the first call of a tool of a lazy server (its
// start: spawn, server/discover, tools/list, then the call) against a hook
// call to a started server. Run the first with e.g. -benchtime 20x.
func BenchmarkLazyFirstCall(b *testing.B) {
	b.Run("first_call_lazy", func(b *testing.B) {
		dir := b.TempDir()
		cfg := lazyConfig(b, 1, true, dir)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(dir))
			if err != nil {
				b.Fatal(err)
			}
			notStarted(b, tb)
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "s00__add", Arguments: []byte(`{"a":1,"b":2}`)}}}
			b.StartTimer()
			_ = tb.OnStreamChunk(ctx, chunk)
			b.StopTimer()
			if res, ok := chunk.Blocks[0].(host.ToolResult); !ok || res.IsError {
				b.Fatalf("first call: %+v", chunk.Blocks[0])
			}
			_ = tb.Close()
			b.StartTimer()
		}
	})
	b.Run("eager_open_and_call", func(b *testing.B) {
		// The same start paid at Open instead: Open of one eager server
		// and its first call, both timed.
		cfg := benchmarks.ToolboxConfig(1, stdioServer(b))
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			tb, err := toolbox.Open(ctx, cfg, toolbox.WithStrict())
			if err != nil {
				b.Fatal(err)
			}
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "s00__add", Arguments: []byte(`{"a":1,"b":2}`)}}}
			_ = tb.OnStreamChunk(ctx, chunk)
			b.StopTimer()
			if res, ok := chunk.Blocks[0].(host.ToolResult); !ok || res.IsError {
				b.Fatalf("first call: %+v", chunk.Blocks[0])
			}
			_ = tb.Close()
			b.StartTimer()
		}
	})
	b.Run("connect_floor", func(b *testing.B) {
		// What a start costs at least: one plugin connected, no toolbox.
		srv := stdioServer(b)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			p, err := plugin.Connect(ctx, srv)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = p.Close()
			b.StartTimer()
		}
	})
	b.Run("call_started", func(b *testing.B) {
		tb := openToolbox(b, benchmarks.ToolboxConfig(1, stdioServer(b)))
		latency(b, benchmarks.ToolboxHook(tb, "s00__add", benchmarks.InstantCall))
	})
}

// BenchmarkLazyIdle is what a toolbox of 20 lazy servers never called
// holds, against one of 20 started servers (this process's share: the
// children's memory is theirs). Run with e.g. -benchtime 4x.
func BenchmarkLazyIdle(b *testing.B) {
	for _, c := range []struct {
		name string
		lazy bool
	}{{"lazy_20", true}, {"eager_20", false}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			cfg := lazyConfig(b, lazyServers, c.lazy, dir)
			fp, err := benchmarks.Idle(context.Background(), b.N, func(ctx context.Context) (func() error, error) {
				tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(dir))
				if err != nil {
					return nil, err
				}
				return tb.Close, nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(fp.HeapPerConn, "idle-B/toolbox")
			b.ReportMetric(fp.GoroutinesPerConn, "goroutines/toolbox")
			b.ReportMetric(fp.BytesPerConnect, "B/open")
		})
	}
}
