package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

func TestInstructionsAreWhatServerDiscoverSaid(t *testing.T) {
	for name, want := range map[string]string{"with": "Use add for sums.\nNever divide by zero.", "without": ""} {
		t.Run(name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "i", Version: "1"}, &mcp.ServerOptions{Instructions: want})
			s.AddTool(&mcp.Tool{Name: "add", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			srv := testserver.NewHTTPServer(s)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
			require.NoError(t, err)
			defer func() { _ = p.Close() }()
			assert.Equal(t, want, p.Instructions())
		})
	}
}
