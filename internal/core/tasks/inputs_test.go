package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
)

// A task's input requests go to the handler of their method, as go-sdk's
// multi-round-trip middleware would send them; one no handler answers is
// tasks.ErrNoInput, naming its method.
func TestTaskInputRequestsReachTheirHandlers(t *testing.T) {
	answer := tasks.Inputs(&mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"asked": req.Params.Message}}, nil
		},
		CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			return &mcp.CreateMessageWithToolsResult{Model: "m", Role: "assistant",
				Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("max ", req.Params.MaxTokens)}}}, nil
		},
	}, []*mcp.Root{{URI: "file:///work"}})
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

	bare := tasks.Inputs(nil, nil)
	_, err = bare(ctx, "e", json.RawMessage(`{"method":"elicitation/create","params":{"message":"x"}}`))
	require.ErrorIs(t, err, tasks.ErrNoInput)
	assert.Contains(t, err.Error(), "elicitation/create")
	_, err = answer(ctx, "x", json.RawMessage(`{"method":"something/else"}`))
	require.ErrorIs(t, err, tasks.ErrNoInput)
}
