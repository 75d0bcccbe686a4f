package host_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
)

// A plugin that embeds Base is a Plugin whose every hook does nothing.
func TestBaseIsANoOpPlugin(t *testing.T) {
	var p host.Plugin = host.Base{}
	ctx := context.Background()

	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
	require.NoError(t, p.OnRequest(ctx, req))
	assert.Equal(t, []host.Message{{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "hi"}}}}, req.Messages)

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "add"}}}
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	assert.Equal(t, host.ToolCall{ID: "c1", Name: "add"}, chunk.Blocks[0])

	require.NoError(t, p.OnResponseComplete(ctx, &host.Response{}))
	res, handled, err := p.ExecuteLocalTool(ctx, host.ToolCall{Name: "add"})
	require.NoError(t, err)
	assert.False(t, handled)
	assert.Equal(t, host.ToolResult{}, res)
	assert.Equal(t, "base", p.Name())
}

func TestRequestChains(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	req := host.NewRequest("model").
		AddMessage(host.RoleSystem, host.Text{Text: "be brief"}).
		AddMessage(host.RoleUser, host.Text{Text: "21 + 21?"}).
		AddTool(host.ToolDefinition{Name: "add", Description: "adds", InputSchema: schema})

	assert.Equal(t, "model", req.Model)
	require.Len(t, req.Messages, 2)
	assert.Equal(t, host.RoleSystem, req.Messages[0].Role)
	assert.Equal(t, host.RoleUser, req.Messages[1].Role)
	assert.Equal(t, []host.ToolDefinition{{Name: "add", Description: "adds", InputSchema: schema}}, req.Tools)
}

func TestFirstToolCall(t *testing.T) {
	known := map[string]struct{}{"add": {}, "mul": {}}
	tests := []struct {
		name   string
		blocks []host.Block
		want   int
	}{
		{"no blocks", nil, -1},
		{"text and thinking pass through", []host.Block{host.Thinking{Text: "add"}, host.Text{Text: "add"}}, -1},
		{"unknown tool passes through", []host.Block{host.ToolCall{Name: "sub"}}, -1},
		{"a result is not a call", []host.Block{host.ToolResult{Name: "add"}}, -1},
		{"first known call wins", []host.Block{
			host.Text{Text: "x"}, host.ToolCall{Name: "sub"}, host.ToolCall{Name: "mul"}, host.ToolCall{Name: "add"},
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, host.FirstToolCall(tt.blocks, known))
		})
	}
}

// The pass-through test costs a map lookup per tool call and no allocation.
func TestFirstToolCallAllocatesNothing(t *testing.T) {
	known := map[string]int{"add": 1}
	blocks := []host.Block{host.Text{Text: "x"}, host.ToolCall{Name: "sub"}, host.Thinking{Text: "y"}}
	allocs := testing.AllocsPerRun(100, func() {
		if host.FirstToolCall(blocks, known) != -1 {
			t.Fatal("matched an unknown tool")
		}
	})
	assert.Zero(t, allocs)
}
