package benchmarks_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/transport"
)

// resourceText is the benchmark resource's contents: 1 KiB of text.
var resourceText = strings.Repeat("0123456789abcdef", 64)

const benchURI = "file:///bench.txt"

// BenchmarkResourceRead is one resources/read of a 1 KiB text resource over
// loopback Streamable HTTP (a go-sdk server in this process, stateless):
// through the plugin (facade, supervisor hop, connection goroutine) beside
// go-sdk's ClientSession.ReadResource with nothing of ours in between.
func BenchmarkResourceRead(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-resources", Version: "0"}, nil)
	s.AddResource(&mcp.Resource{URI: benchURI, Name: "bench", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: benchURI, MIMEType: "text/plain", Text: resourceText}}}, nil
		})
	srv := httptest.NewServer(testserver.NewHTTPHandler(s))
	b.Cleanup(srv.Close)
	check := func(res *mcp.ReadResourceResult, err error) error {
		if err != nil {
			return err
		}
		if len(res.Contents) != 1 || res.Contents[0].Text != resourceText {
			return fmt.Errorf("unexpected contents %#v", res.Contents)
		}
		return nil
	}
	b.Run("plugin", func(b *testing.B) {
		p := connectPlugin(b, transport.StreamableHTTP{URL: srv.URL})
		latency(b, &benchmarks.Subject{Name: "plugin ReadResource", New: func() benchmarks.Op {
			return func(ctx context.Context) error { return check(p.ReadResource(ctx, benchURI)) }
		}})
	})
	b.Run("gosdk", func(b *testing.B) {
		cs := connectDirect(b, &mcp.StreamableClientTransport{Endpoint: srv.URL})
		latency(b, &benchmarks.Subject{Name: "go-sdk ReadResource", New: func() benchmarks.Op {
			return func(ctx context.Context) error {
				return check(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: benchURI}))
			}
		}})
	})
}
