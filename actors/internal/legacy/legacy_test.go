package legacy

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// initialize takes out the extensions the connection's extensions
// declared, keeps the host's, and leaves the options' capabilities as
// they were (go-sdk builds each initialize from them).
func TestInitializeTakesOutDeclaredExtensions(t *testing.T) {
	caps := &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}, "host/own": true}}
	p := &mcp.InitializeParams{Capabilities: caps}
	Dialect{}.Initialize(p, []string{"io.modelcontextprotocol/tasks"})
	assert.Equal(t, map[string]any{"host/own": true}, p.Capabilities.Extensions)
	assert.Contains(t, caps.Extensions, "io.modelcontextprotocol/tasks", "the options' copy is untouched")

	only := &mcp.InitializeParams{Capabilities: &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	Dialect{}.Initialize(only, []string{"io.modelcontextprotocol/tasks"})
	assert.Nil(t, only.Capabilities.Extensions, "no extensions member left")

	none := &mcp.InitializeParams{Capabilities: caps}
	Dialect{}.Initialize(none, nil)
	assert.Same(t, caps, none.Capabilities, "nothing declared: nothing changed")
}

type wrapped struct{ transport.McpTransport }

func (w wrapped) Unwrap() transport.McpTransport { return w.McpTransport }

// The direct path stays over stdio, wrapped or not, and not over HTTP.
func TestDirectOverStdioOnly(t *testing.T) {
	stdio := transport.NewStdio("server")
	assert.True(t, Dialect{}.Direct(stdio, "2025-11-25"))
	assert.True(t, Dialect{}.Direct(&stdio, "2025-11-25"))
	assert.True(t, Dialect{}.Direct(wrapped{stdio}, "2025-11-25"))
	assert.False(t, Dialect{}.Direct(transport.StreamableHTTP{URL: "http://127.0.0.1:1/mcp"}, "2025-11-25"))
	assert.False(t, Dialect{}.Direct(wrapped{transport.SSE{URL: "http://127.0.0.1:1/sse"}}, "2024-11-05"))
}
