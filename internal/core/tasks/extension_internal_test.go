package tasks

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/transport"
)

// Only the module's own transports, or a wrapper of one, declare the
// extension.
func TestTasksAreDeclaredOnOwnTransportsOnly(t *testing.T) {
	e := NewExtension(Settings{})
	declares := func(tr transport.McpTransport) bool {
		return e.Declare(tr, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	}
	assert.True(t, declares(transport.NewStdio("x")))
	assert.True(t, declares(transport.StreamableHTTP{URL: "http://x"}))
	assert.True(t, declares(wrapped{transport.NewStdio("x")}))
	assert.False(t, declares(transport.SSE{URL: "http://x"}))
	assert.False(t, declares(other{}), "a program's own transport")

	base := &mcp.ClientCapabilities{Extensions: map[string]any{"other": map[string]any{}}}
	opts := &mcp.ClientOptions{Capabilities: base}
	assert.True(t, e.Declare(transport.NewStdio("x"), opts))
	assert.Contains(t, opts.Capabilities.Extensions, Extension)
	assert.Contains(t, opts.Capabilities.Extensions, "other")
	assert.NotContains(t, base.Extensions, Extension, "the caller's options stay as they were")
}

type wrapped struct{ transport.McpTransport }

// other is a transport of a program's own, of no kind the module knows.
type other struct{ transport.McpTransport }

func (w wrapped) Unwrap() transport.McpTransport { return w.McpTransport }
