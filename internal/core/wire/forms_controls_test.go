package wire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/messages"
)

// The messages of the host controls (progress, idle timeout, live tool
// lists) cross the wire whole.
func TestWireFormsOfTheControlsRoundTrip(t *testing.T) {
	call := &messages.CallTool{ID: 1<<62 + 7, Name: "add", Arguments: json.RawMessage(`{"a":1}`),
		Progress: true, IdleTimeout: 1500 * time.Millisecond}
	assert.Equal(t, call, roundTrip(t, call))
	plain := &messages.CallTool{ID: 3, Name: "add"}
	assert.Equal(t, plain, roundTrip(t, plain), "no progress and no idle timeout stay none")

	for _, p := range []*messages.CallProgress{
		{ID: 9, Progress: 2.5, Total: 10, Message: "step 2 — über"},
		{ID: 9, Progress: 1},
	} {
		assert.Equal(t, p, roundTrip(t, p))
	}

	ready := &messages.Ready{Tools: []*mcp.Tool{{Name: "add", InputSchema: map[string]any{"type": "object"}}},
		ProtocolVersion: "2026-07-28", ToolsTTL: 250 * time.Millisecond, ToolsCacheScope: "private"}
	got := roundTrip(t, ready).(*messages.Ready)
	assert.Equal(t, ready.ToolsTTL, got.ToolsTTL)
	assert.Equal(t, "private", got.ToolsCacheScope)
	require.Len(t, got.Tools, 1)
	assert.Equal(t, "add", got.Tools[0].Name)

	assert.Equal(t, &messages.RefreshTools{}, roundTrip(t, &messages.RefreshTools{}))
	assert.Equal(t, &messages.WatchTools{}, roundTrip(t, &messages.WatchTools{}))
	assert.Equal(t, &messages.UnwatchTools{}, roundTrip(t, &messages.UnwatchTools{}))
}
