package benchmarks_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// BenchmarkPipeLimit is the hook's direct stdio call against the minimal
// template server, with 1 and 16 callers, beside the one-reader floor
// (mux, on a child of its own): the place to profile the call path, and
// where its allocations per call are read (the goal: at most 12 and 1 KiB;
// see benchmarks.ScenarioPipeLimit). For example
//
//	go test ./benchmarks -run '^$' -bench 'PipeLimit/hook/1$' -benchtime 20000x -memprofile mem.out
func BenchmarkPipeLimit(b *testing.B) {
	t, err := benchmarks.TemplateStdio()
	if err != nil {
		b.Fatal(err)
	}
	p := connectPlugin(b, t)
	mux, err := benchmarks.StartReaderPipe(t)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mux.Close() })
	for _, s := range []*benchmarks.Subject{
		benchmarks.PluginHook(p, benchmarks.InstantCall),
		benchmarks.PluginCallTool(p, benchmarks.InstantCall),
		mux.Subject(benchmarks.SubjectPipeMux, benchmarks.InstantCall),
	} {
		name := map[string]string{"plugin hook": "hook", benchmarks.SubjectPipeCallTool: "calltool", benchmarks.SubjectPipeMux: "mux"}[s.Name]
		for _, n := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				if n == 1 {
					latency(b, s)
					return
				}
				parallel(b, s, n)
			})
		}
	}
}

// BenchmarkPipeLimitHTTP is BenchmarkPipeLimit over loopback Streamable
// HTTP (benchmarks.ScenarioPipeLimitHTTP): the hook's direct HTTP call and
// the raw net/http floor, each against its own template HTTP child, with
// 1 and 16 callers. For example
//
//	go test ./benchmarks -run '^$' -bench 'PipeLimitHTTP/(hook|raw)/1$' -benchtime 20000x -benchmem
func BenchmarkPipeLimitHTTP(b *testing.B) {
	url := func() string { return templateHTTP(b) }
	p := connectPlugin(b, transport.StreamableHTTP{URL: url()})
	raw := benchmarks.NewRawHTTPFloor(url(), 16)
	b.Cleanup(raw.Close)
	for _, s := range []struct {
		name string
		*benchmarks.Subject
	}{
		{"hook", benchmarks.PluginHook(p, benchmarks.InstantCall)},
		{"raw", raw.Subject(benchmarks.InstantCall)},
	} {
		for _, n := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				if n == 1 {
					latency(b, s.Subject)
					return
				}
				parallel(b, s.Subject, n)
			})
		}
	}
}

// TestTemplateServer checks that every client the scenario compares
// connects to the template server and gets the expected result.
func TestTemplateServer(t *testing.T) {
	ts, err := benchmarks.TemplateStdio()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := plugin.Connect(ctx, ts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, s := range []*benchmarks.Subject{benchmarks.PluginHook(p, benchmarks.InstantCall), benchmarks.PluginCallTool(p, benchmarks.InstantCall)} {
		if err := s.New()(ctx); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
}

// TestTemplateHTTPServer checks that every client the HTTP scenario
// compares connects to the template HTTP server and gets the expected
// result, the floor included.
func TestTemplateHTTPServer(t *testing.T) {
	ctx := context.Background()
	url := func() string { return templateHTTP(t) }
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: url()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sdk, err := benchmarks.ConnectGoSDKListed(ctx, &mcp.StreamableClientTransport{Endpoint: url()})
	if err != nil {
		t.Fatal(err)
	}
	defer sdk.Close()
	mg, err := benchmarks.ConnectMCPGoHTTP(ctx, url())
	if err != nil {
		t.Fatal(err)
	}
	defer mg.Close()
	raw := benchmarks.NewRawHTTPFloor(url(), 16)
	defer raw.Close()
	for _, s := range []*benchmarks.Subject{
		benchmarks.PluginHook(p, benchmarks.InstantCall), benchmarks.PluginCallTool(p, benchmarks.InstantCall),
		benchmarks.GoSDKDirect(sdk, benchmarks.InstantCall), benchmarks.MCPGoDirect(mg, benchmarks.InstantCall),
		raw.Subject(benchmarks.InstantCall),
	} {
		op := s.New()
		for range 3 {
			if err := op(ctx); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
		}
	}
}

// templateHTTP starts a template HTTP child for tb, stopped at its end, and
// returns its URL.
func templateHTTP(tb testing.TB) string {
	tb.Helper()
	s, err := benchmarks.StartTemplateHTTP()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s.URL
}
