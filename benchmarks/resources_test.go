package benchmarks_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/transport"
)

// BenchmarkResourceRead is one resources/read of a 1 KiB text resource over
// loopback Streamable HTTP (a go-sdk server in this process, stateless):
// through the plugin (facade, connection mailbox, worker goroutine) beside
// go-sdk's ClientSession.ReadResource with nothing of ours in between. The
// report's row of the same is benchmarks.ScenarioResourceRead. Each subject
// has a server of its own, which counts the TCP connections it accepts:
// the "new-conns/2000op" metric is how many a client opened per 2,000
// reads (keep-alive kept: close to 0).
func BenchmarkResourceRead(b *testing.B) {
	b.Run("plugin", func(b *testing.B) {
		srv, conns := countingServer(b)
		p := connectPlugin(b, transport.StreamableHTTP{URL: srv.URL})
		before := conns.Load()
		latency(b, benchmarks.PluginReadResource(p))
		reportConns(b, conns.Load()-before)
	})
	b.Run("gosdk", func(b *testing.B) {
		srv, conns := countingServer(b)
		s := connectDirect(b, &mcp.StreamableClientTransport{Endpoint: srv.URL})
		before := conns.Load()
		latency(b, benchmarks.GoSDKReadResource(s))
		reportConns(b, conns.Load()-before)
	})
}

// countingServer serves benchmarks.NewResourceServer on loopback and
// counts the connections it accepts.
func countingServer(b *testing.B) (*httptest.Server, *atomic.Int64) {
	b.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(testserver.NewHTTPHandler(benchmarks.NewResourceServer()))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	b.Cleanup(srv.Close)
	return srv, &conns
}

// reportConns reports n new connections over b.N reads (and the one of
// latency's warm-up) per 2,000 reads.
func reportConns(b *testing.B, n int64) {
	b.ReportMetric(float64(n)*2000/float64(b.N+1), "new-conns/2000op")
}
