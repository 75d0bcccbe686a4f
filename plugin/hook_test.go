package plugin_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestOnStreamChunkReplacesKnownToolCallsOnly(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			p := connect(t, tr)
			ctx := context.Background()
			chunk := &host.Chunk{Blocks: []host.Block{
				host.Thinking{Text: "let me add"},
				host.ToolCall{ID: "call-1", Name: "add", Arguments: json.RawMessage(`{"a":21,"b":21}`)},
				host.Text{Text: "between"},
				host.ToolCall{ID: "call-2", Name: "not_a_tool", Arguments: json.RawMessage(`{}`)},
				host.ToolCall{ID: "call-3", Name: "fail"},
				host.ToolCall{ID: "call-4", Name: "add", Arguments: json.RawMessage(`[1,2]`)},
				host.ToolCall{ID: "call-5", Name: "add", Arguments: json.RawMessage(`{"a":`)},
				host.ToolResult{ToolCallID: "older", Content: "kept"},
			}}
			require.NoError(t, p.OnStreamChunk(ctx, chunk))
			require.Len(t, chunk.Blocks, 8)
			assert.Equal(t, host.Thinking{Text: "let me add"}, chunk.Blocks[0])
			assert.Equal(t, host.ToolResult{ToolCallID: "call-1", Name: "add", Content: "42"}, chunk.Blocks[1])
			assert.Equal(t, host.Text{Text: "between"}, chunk.Blocks[2])
			assert.Equal(t, host.ToolCall{ID: "call-2", Name: "not_a_tool", Arguments: json.RawMessage(`{}`)}, chunk.Blocks[3])
			assert.Equal(t, host.ToolResult{ToolCallID: "call-3", Name: "fail", Content: "tool error: boom", IsError: true}, chunk.Blocks[4])
			for i, id := range map[int]string{5: "call-4", 6: "call-5"} {
				res, ok := chunk.Blocks[i].(host.ToolResult)
				require.True(t, ok, "block %d is a result", i)
				assert.Equal(t, id, res.ToolCallID)
				assert.True(t, res.IsError)
				assert.Contains(t, res.Content, "validation (tools/call arguments)")
			}
			assert.Equal(t, host.ToolResult{ToolCallID: "older", Content: "kept"}, chunk.Blocks[7])
		})
	}
}

func TestOtherHooksDoNothing(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx := context.Background()
	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
	require.NoError(t, p.OnRequest(ctx, req))
	assert.Empty(t, req.Tools, "OnRequest publishes nothing: the caller does, from ToolDefinitions")
	resp := &host.Response{Blocks: []host.Block{host.ToolCall{ID: "x", Name: "add"}}}
	require.NoError(t, p.OnResponseComplete(ctx, resp))
	assert.Equal(t, host.ToolCall{ID: "x", Name: "add"}, resp.Blocks[0])
	_, handled, err := p.ExecuteLocalTool(ctx, host.ToolCall{ID: "x", Name: "add"})
	require.NoError(t, err)
	assert.False(t, handled)
	require.NoError(t, p.OnStreamChunk(ctx, nil))
}

func TestPassThroughAllocatesNothing(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx := context.Background()
	chunk := &host.Chunk{Blocks: []host.Block{
		host.Text{Text: "hello"}, host.Thinking{Text: "hm"},
		host.ToolCall{ID: "1", Name: "unknown", Arguments: json.RawMessage(`{}`)},
	}}
	allocs := testing.AllocsPerRun(1000, func() {
		_ = p.OnStreamChunk(ctx, chunk)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, host.ToolCall{ID: "1", Name: "unknown", Arguments: json.RawMessage(`{}`)}, chunk.Blocks[2])
}
