package actors

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/transport"
)

// Only the module's own transports, or a wrapper of one, declare the
// extension, and only when asked.
func TestTasksAreDeclaredOnOwnTransportsOnly(t *testing.T) {
	on := &TaskSettings{}
	assert.True(t, declaresTasks(&ConnectionConfig{Tasks: on, Transport: transport.NewStdio("x")}))
	assert.True(t, declaresTasks(&ConnectionConfig{Tasks: on, Transport: transport.StreamableHTTP{URL: "http://x"}}))
	assert.True(t, declaresTasks(&ConnectionConfig{Tasks: on, Transport: wrapped{transport.NewStdio("x")}}))
	assert.False(t, declaresTasks(&ConnectionConfig{Transport: transport.NewStdio("x")}), "not asked")
	assert.False(t, declaresTasks(&ConnectionConfig{Tasks: on, Transport: transport.WebSocket{URL: "ws://x"}}))

	base := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Extensions: map[string]any{"other": map[string]any{}}}}
	opts := clientOptions(&ConnectionConfig{Tasks: on, Transport: transport.NewStdio("x"), ClientOptions: base}, zap.NewNop(), sessionHooks{})
	assert.Contains(t, opts.Capabilities.Extensions, tasks.Extension)
	assert.Contains(t, opts.Capabilities.Extensions, "other")
	assert.NotContains(t, base.Capabilities.Extensions, tasks.Extension, "the caller's options stay as they were")
}

type wrapped struct{ transport.McpTransport }

func (w wrapped) Unwrap() transport.McpTransport { return w.McpTransport }
