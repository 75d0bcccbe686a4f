package agenttools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
)

func TestTheResourceToolsAreToolsLikeAnyOther(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	ts := agenttools.New(box, nil)
	all := names(ts.All())
	assert.Contains(t, all, "list_mcp_resources")
	assert.Contains(t, all, "read_mcp_resource")

	res := ts.Call(ctx(t), call("docs__report", `{}`))
	require.False(t, res.IsError, res.Text)
	tool, args, ok := agenttest.FollowLink(res.Text)
	require.True(t, ok, res.Text)
	got := ts.Call(ctx(t), call(tool, args))
	assert.Equal(t, agenttools.Result{Text: resourceserver.ReportText}, got)
}

func TestTheFixedPairFindsAndCallsTheReadTool(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true, Search: true})
	ts := agenttools.New(box, nil)
	fixed := names(ts.Fixed(ctx(t)))
	assert.NotContains(t, fixed, "read_mcp_resource", "deferred behind the search tool")

	found := ts.CallFixed(ctx(t), call("tool_search", `{"query":"read a resource of an MCP server by its URI"}`))
	require.False(t, found.IsError, found.Text)
	assert.Contains(t, found.Text, "read_mcp_resource")
	assert.Contains(t, found.Text, `"required":["server","uri"]`, "the loaded tool's schema, for the call tool's arguments")

	got := ts.CallFixed(ctx(t), call(agenttools.DefaultCallToolName,
		`{"name":"read_mcp_resource","arguments":{"server":"docs","uri":"`+resourceserver.NotesURI+`"}}`))
	assert.Equal(t, agenttools.Result{Text: resourceserver.NotesText}, got)
}
