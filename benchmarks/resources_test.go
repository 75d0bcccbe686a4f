package benchmarks_test

import (
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/transport"
)

// BenchmarkResourceRead is one resources/read of a 1 KiB text resource over
// loopback Streamable HTTP (a go-sdk server in this process, stateless):
// through the plugin (facade, supervisor hop, connection goroutine) beside
// go-sdk's ClientSession.ReadResource with nothing of ours in between. The
// report's row of the same is benchmarks.ScenarioResourceRead.
func BenchmarkResourceRead(b *testing.B) {
	srv := httptest.NewServer(testserver.NewHTTPHandler(benchmarks.NewResourceServer()))
	b.Cleanup(srv.Close)
	b.Run("plugin", func(b *testing.B) {
		latency(b, benchmarks.PluginReadResource(connectPlugin(b, transport.StreamableHTTP{URL: srv.URL})))
	})
	b.Run("gosdk", func(b *testing.B) {
		latency(b, benchmarks.GoSDKReadResource(connectDirect(b, &mcp.StreamableClientTransport{Endpoint: srv.URL})))
	})
}
