package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/transport"
)

// A task's input requests go to the handler of their method, as go-sdk's
// multi-round-trip middleware would send them; one no handler answers is
// tasks.ErrNoInput, naming its method.
func TestTaskInputRequestsReachTheirHandlers(t *testing.T) {
	c := &mcpConnection{cfg: ConnectionConfig{
		ClientOptions: &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"asked": req.Params.Message}}, nil
			},
			CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
				return &mcp.CreateMessageWithToolsResult{Model: "m", Role: "assistant",
					Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("max ", req.Params.MaxTokens)}}}, nil
			},
		},
		Roots: []*mcp.Root{{URI: "file:///work"}},
	}}
	answer := c.answerer()
	ctx := t.Context()

	raw, err := answer(ctx, "e", json.RawMessage(`{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"action":"accept","content":{"asked":"name?"}}`, string(raw))

	raw, err = answer(ctx, "s", json.RawMessage(`{"method":"sampling/createMessage","params":{"maxTokens":7,"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`))
	require.NoError(t, err)
	var sampled mcp.CreateMessageWithToolsResult
	require.NoError(t, json.Unmarshal(raw, &sampled))
	assert.Equal(t, "m", sampled.Model)
	require.Len(t, sampled.Content, 1)
	assert.Equal(t, "max 7", sampled.Content[0].(*mcp.TextContent).Text)

	raw, err = answer(ctx, "r", json.RawMessage(`{"method":"roots/list","params":{}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"roots":[{"uri":"file:///work"}]}`, string(raw))

	bare := (&mcpConnection{}).answerer()
	_, err = bare(ctx, "e", json.RawMessage(`{"method":"elicitation/create","params":{"message":"x"}}`))
	require.ErrorIs(t, err, tasks.ErrNoInput)
	assert.Contains(t, err.Error(), "elicitation/create")
	_, err = answer(ctx, "x", json.RawMessage(`{"method":"something/else"}`))
	require.ErrorIs(t, err, tasks.ErrNoInput)
}

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
