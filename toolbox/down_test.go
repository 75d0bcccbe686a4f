package toolbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A call to a tool of a configured server that failed to start tells the
// model that the server is down, and why; a name of no server, or of a
// server that is up, is still no tool.
func TestFailedServersToolSaysTheServerIsDownAndWhy(t *testing.T) {
	tb := open(t, config(t, map[string]entry{
		"alpha":  stdioEntry(t),
		"travel": {"command": "/nonexistent/mcp-server"},
	}), fast)
	require.Equal(t, actors.Failed, tb.Status()["travel"].State)
	why := tb.Status()["travel"].LastError.Error()

	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "1", Name: "travel__plan_trip", Arguments: []byte(`{}`)},
		host.ToolCall{ID: "2", Name: "alpha__nope", Arguments: []byte(`{}`)},
		host.ToolCall{ID: "3", Name: "zeta__x", Arguments: []byte(`{}`)},
		host.ToolCall{ID: "4", Name: "alpha__add", Arguments: []byte(`{"a":1,"b":2}`)},
	}}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	res, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok, "the toolbox answers the down server's call: %#v", chunk.Blocks[0])
	assert.True(t, res.IsError)
	assert.Equal(t, "1", res.ToolCallID)
	assert.Equal(t, "travel__plan_trip", res.Name)
	assert.Contains(t, res.Content, `server "travel" is down (failed), so its tool "travel__plan_trip" cannot be called now: `)
	assert.Contains(t, res.Content, why)
	assert.NotContains(t, res.Content, "mcp-connector: internal")
	assert.IsType(t, host.ToolCall{}, chunk.Blocks[1], "a server that is up has no such tool")
	assert.IsType(t, host.ToolCall{}, chunk.Blocks[2], "no server has this name")
	assert.Equal(t, "3", chunk.Blocks[3].(host.ToolResult).Content)

	_, err := tb.CallTool(t.Context(), "travel__plan_trip", nil).Await(context.Background())
	require.ErrorIs(t, err, toolbox.ErrServerDown)
	require.ErrorIs(t, err, plugin.ErrIO, "the server's last error is reached")
	assert.ErrorIs(t, err, toolbox.ErrUnknownTool, "no server exposes the name")
	assert.Contains(t, err.Error(), `server "travel" is down (failed)`)
	_, err = tb.CallTool(t.Context(), "alpha__nope", nil).Await(context.Background())
	require.ErrorIs(t, err, toolbox.ErrUnknownTool)
}
