package benchmarks_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// The benchmarks here are the go test face of the suite: each sub-benchmark
// times one subject, reports p50/p90/p99 as extra metrics, and is the
// place to take a profile from, e.g.
//
//	go test ./benchmarks -run '^$' -bench 'HookCall/stdio/plugin' -benchtime 2000x -cpuprofile cpu.out
//
// For numbers side by side, run go run ./benchmarks/report instead.

func stdioServer(b *testing.B) transport.Stdio {
	b.Helper()
	t, err := testserver.BenchStdio()
	if err != nil {
		b.Fatal(err)
	}
	return t
}

func connectPlugin(b *testing.B, t transport.McpTransport, opts ...plugin.Option) *plugin.McpPlugin {
	b.Helper()
	p, err := plugin.Connect(context.Background(), t, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	return p
}

func connectDirect(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	b.Helper()
	s, err := benchmarks.ConnectGoSDKListed(context.Background(), t)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// latency runs s's op b.N times from one goroutine and reports percentiles.
func latency(b *testing.B, s *benchmarks.Subject) {
	b.Helper()
	op := s.New()
	ctx := context.Background()
	if err := op(ctx); err != nil {
		b.Fatal(err)
	}
	samples := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		err := op(ctx)
		samples = append(samples, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, benchmarks.Summarize(samples))
}

func report(b *testing.B, st benchmarks.Stats) {
	b.ReportMetric(float64(st.P50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(st.P90.Nanoseconds()), "p90-ns")
	b.ReportMetric(float64(st.P99.Nanoseconds()), "p99-ns")
	b.ReportMetric(float64(st.Max.Nanoseconds()), "max-ns")
}

func BenchmarkPassThrough(b *testing.B) {
	p := connectPlugin(b, stdioServer(b))
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		blocks []host.Block
	}{
		{"text", []host.Block{host.Text{Text: "The sum is"}, host.Thinking{Text: "add them"}}},
		{"unknown_tool", []host.Block{host.Text{Text: "calling"}, host.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			chunk := &host.Chunk{Blocks: c.blocks}
			b.ReportAllocs()
			for b.Loop() {
				_ = p.OnStreamChunk(ctx, chunk)
			}
		})
	}
}

func BenchmarkHookCall(b *testing.B) {
	b.Run("stdio", func(b *testing.B) {
		srv := stdioServer(b)
		// "plugin" keeps go-sdk's ClientSession.CallTool; "plugin_direct"
		// is the default.
		ss := srv
		ss.DisableDirectCalls = true
		p := connectPlugin(b, ss)
		s := connectDirect(b, benchmarks.CommandTransport(srv))
		own, err := srv.Open(nil)
		if err != nil {
			b.Fatal(err)
		}
		onOwn := connectDirect(b, own)
		echo, err := testserver.BenchEcho()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := benchmarks.StartRawPipe(echo)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = raw.Close() })
		reader, err := benchmarks.StartReaderPipe(echo)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = reader.Close() })
		// The same floor against the go-sdk server the plugin calls.
		readerSDK, err := benchmarks.StartReaderPipe(srv)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = readerSDK.Close() })
		b.Run("plugin", func(b *testing.B) { latency(b, benchmarks.PluginHook(p, benchmarks.InstantCall)) })
		// tools/call on the stdio connection's own path.
		b.Run("plugin_direct", func(b *testing.B) {
			latency(b, benchmarks.PluginHook(connectPlugin(b, srv), benchmarks.InstantCall))
		})
		b.Run("mcpgo", func(b *testing.B) {
			mg, err := benchmarks.ConnectMCPGo(context.Background(), srv)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = mg.Close() })
			latency(b, benchmarks.MCPGoDirect(mg, benchmarks.InstantCall))
		})
		b.Run("plugin_traced", func(b *testing.B) {
			tp := benchmarks.TracingProvider()
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			latency(b, benchmarks.TracedPluginHook(connectPlugin(b, srv, plugin.WithTracerProvider(tp)), benchmarks.InstantCall))
		})
		b.Run("gosdk", func(b *testing.B) { latency(b, benchmarks.GoSDKDirect(s, benchmarks.InstantCall)) })
		// go-sdk's session on our stdio connection instead of its own.
		b.Run("gosdk_ourconn", func(b *testing.B) { latency(b, benchmarks.GoSDKDirect(onOwn, benchmarks.InstantCall)) })
		b.Run("raw", func(b *testing.B) { latency(b, raw.Subject(benchmarks.InstantCall)) })
		// One goroutine reads the pipe and hands each answer to its caller.
		b.Run("reader", func(b *testing.B) { latency(b, reader.Subject(benchmarks.SubjectReaderFloor, benchmarks.InstantCall)) })
		b.Run("reader_gosdk", func(b *testing.B) {
			latency(b, readerSDK.Subject(benchmarks.SubjectReaderGoSDK, benchmarks.InstantCall))
			if n := readerSDK.Errors(); n > 0 {
				b.Fatalf("%d answers were errors", n)
			}
		})
	})
	b.Run("http", func(b *testing.B) {
		srv, err := testserver.StartBenchHTTP()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = srv.Close() })
		pc, pdials := countingClient(b)
		p := connectPlugin(b, transport.StreamableHTTP{URL: srv.URL + "/mcp", HTTPClient: pc})
		dc, ddials := countingClient(b)
		s := connectDirect(b, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: dc})
		raw := benchmarks.NewRawHTTP(srv.URL + "/echo")
		b.Cleanup(raw.Close)
		b.Run("plugin", func(b *testing.B) {
			latency(b, benchmarks.PluginHook(p, benchmarks.InstantCall))
			reportDials(b, pdials)
		})
		b.Run("gosdk", func(b *testing.B) {
			latency(b, benchmarks.GoSDKDirect(s, benchmarks.InstantCall))
			reportDials(b, ddials)
		})
		// go-sdk direct with a context cancelled as soon as each call
		// returns, as the connection actor's call goroutine does.
		b.Run("gosdk_cancel", func(b *testing.B) {
			ddials.Store(0)
			latency(b, &benchmarks.Subject{Name: "go-sdk, cancel on return", New: func() benchmarks.Op {
				op := benchmarks.GoSDKDirect(s, benchmarks.InstantCall).New()
				return func(ctx context.Context) error {
					ctx, cancel := context.WithCancel(ctx)
					defer cancel()
					return op(ctx)
				}
			}})
			reportDials(b, ddials)
		})
		b.Run("raw", func(b *testing.B) { latency(b, raw.Subject(benchmarks.InstantCall)) })
	})
}

// countingClient is an HTTP client of its own that counts the TCP
// connections it dials.
func countingClient(b *testing.B) (*http.Client, *atomic.Int64) {
	dials := new(atomic.Int64)
	t := http.DefaultTransport.(*http.Transport).Clone()
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	c := &http.Client{Transport: t}
	b.Cleanup(c.CloseIdleConnections)
	return c, dials
}

// reportDials reports the dials counted, per op: a kept-alive connection
// makes that zero.
func reportDials(b *testing.B, dials *atomic.Int64) {
	b.ReportMetric(float64(dials.Load())/float64(b.N), "dials/op")
}

// BenchmarkThroughput shares b.N calls among the callers; ns/op is wall
// time per completed call, calls/s its inverse.
func BenchmarkThroughput(b *testing.B) {
	srv := stdioServer(b)
	ss := srv
	ss.DisableDirectCalls = true // "plugin" keeps ClientSession.CallTool
	p := connectPlugin(b, ss)
	s := connectDirect(b, benchmarks.CommandTransport(srv))
	w := benchmarks.NewOneWorker(s)
	b.Cleanup(w.Close)
	pd := connectPlugin(b, srv)
	mg, err := benchmarks.ConnectMCPGo(context.Background(), srv)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mg.Close() })
	for _, c := range []struct {
		name string
		call benchmarks.Call
	}{{"instant", benchmarks.InstantCall}, {"wait20ms", benchmarks.WaitCall}} {
		for _, subj := range []struct {
			name string
			s    *benchmarks.Subject
		}{
			{"plugin", benchmarks.PluginHook(p, c.call)},
			{"plugin_direct", benchmarks.PluginHook(pd, c.call)},
			{"mcpgo", benchmarks.MCPGoDirect(mg, c.call)},
			{"oneworker", benchmarks.OneWorkerModel(w, c.call)},
			{"gosdk", benchmarks.GoSDKDirect(s, c.call)},
		} {
			for _, n := range []int{1, 4, 16, 64} {
				b.Run(fmt.Sprintf("%s/%s/callers=%d", c.name, subj.name, n), func(b *testing.B) {
					parallel(b, subj.s, n)
				})
			}
		}
	}
}

func parallel(b *testing.B, s *benchmarks.Subject, callers int) {
	ctx := context.Background()
	ops := make([]benchmarks.Op, callers)
	for i := range ops {
		ops[i] = s.New()
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for _, op := range ops {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := op(ctx); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkConnect times connect (spawn or dial, server/discover, every
// tools/list page) and close, to a stdio server with 14 tools and to one
// with 1,000 tools in 10 pages.
func BenchmarkConnect(b *testing.B) {
	wide, err := testserver.BenchWide()
	if err != nil {
		b.Fatal(err)
	}
	for _, srv := range []struct {
		name string
		t    transport.Stdio
	}{{"stdio", stdioServer(b)}, {"wide", wide}} {
		b.Run(srv.name+"/plugin", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := plugin.Connect(context.Background(), srv.t)
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Close()
			}
		})
		b.Run(srv.name+"/gosdk", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := benchmarks.ConnectGoSDKListed(context.Background(), benchmarks.CommandTransport(srv.t))
				if err != nil {
					b.Fatal(err)
				}
				_ = s.Close()
			}
		})
	}
}

// BenchmarkIdle opens b.N stdio connections of each kind and reports what
// each holds while idle (heap and goroutine stacks, goroutines), as the
// report's "connect + idle" rows do; run it with e.g. -benchtime 16x. The
// kinds run in a fixed order here: the report's rows, which alternate it,
// are the ones to compare.
func BenchmarkIdle(b *testing.B) {
	srv := stdioServer(b)
	for _, c := range []struct {
		name    string
		connect func(context.Context) (func() error, error)
	}{
		{"plugin", func(ctx context.Context) (func() error, error) {
			p, err := plugin.Connect(ctx, srv)
			if err != nil {
				return nil, err
			}
			return p.Close, nil
		}},
		{"gosdk", func(ctx context.Context) (func() error, error) {
			s, err := benchmarks.ConnectGoSDKListed(ctx, benchmarks.CommandTransport(srv))
			if err != nil {
				return nil, err
			}
			return s.Close, nil
		}},
		{"gosdk_ourconn", func(ctx context.Context) (func() error, error) {
			t, err := srv.Open(nil)
			if err != nil {
				return nil, err
			}
			s, err := benchmarks.ConnectGoSDKListed(ctx, t)
			if err != nil {
				return nil, err
			}
			return s.Close, nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			fp, err := benchmarks.Idle(context.Background(), b.N, c.connect)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(fp.HeapPerConn, "idle-B/conn")
			b.ReportMetric(fp.GoroutinesPerConn, "goroutines/conn")
			b.ReportMetric(fp.AllocsPerConnect, "allocs/connect")
		})
	}
}

func openToolbox(b *testing.B, cfg *mcpconfig.Config) *toolbox.Toolbox {
	b.Helper()
	tb, err := toolbox.Open(context.Background(), cfg, toolbox.WithStrict())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tb.Close() })
	return tb
}

// BenchmarkToolbox is the toolbox layer: pass-through with 10 servers of
// 50 tools each, and a hook call routed to one server.
func BenchmarkToolbox(b *testing.B) {
	b.Run("pass_through", func(b *testing.B) {
		srv, err := testserver.BenchTools(benchmarks.ToolboxTools)
		if err != nil {
			b.Fatal(err)
		}
		tb := openToolbox(b, benchmarks.ToolboxConfig(benchmarks.ToolboxServers, srv))
		chunk := &host.Chunk{Blocks: []host.Block{host.Text{Text: "calling"}, host.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}}}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			_ = tb.OnStreamChunk(ctx, chunk)
		}
	})
	b.Run("hook_call", func(b *testing.B) {
		tb := openToolbox(b, benchmarks.ToolboxConfig(1, stdioServer(b)))
		latency(b, benchmarks.ToolboxHook(tb, "s00__add", benchmarks.InstantCall))
	})
}

// BenchmarkGridHook is a hook call through a grain on another member of an
// in-process cluster (loopback gRPC), the place to profile the grid's hop.
func BenchmarkGridHook(b *testing.B) {
	a, stop, err := benchmarks.StartGrid(context.Background(), stdioServer(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	p, err := grid.Connect(context.Background(), a, "s00")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	latency(b, benchmarks.PluginHook(p, benchmarks.InstantCall))
}

// BenchmarkTurn streams one model turn asking for 1, then 4, calls of a
// 100 ms tool through the client with the plugin registered: the calls of
// a turn run together, so calls=4 should take about what calls=1 does.
func BenchmarkTurn(b *testing.B) {
	p := connectPlugin(b, stdioServer(b))
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			srv := benchmarks.NewScriptedTurn(n, benchmarks.TurnCall)
			b.Cleanup(srv.Close)
			s, err := benchmarks.Turn(fmt.Sprintf("%d calls", n), srv, n, p, benchmarks.TurnCall)
			if err != nil {
				b.Fatal(err)
			}
			latency(b, s)
		})
	}
}
