package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// connectResourceTools connects a plugin to resourceserver over loopback
// HTTP.
func connectResourceTools(t *testing.T, opts ...plugin.Option) *plugin.McpPlugin {
	t.Helper()
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: resourceserver.HTTP(t)}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// hook runs calls through the plugin's hook, one chunk, and returns the
// results in order.
func hook(t *testing.T, p *plugin.McpPlugin, calls ...host.ToolCall) []host.ToolResult {
	t.Helper()
	chunk := &host.Chunk{}
	for _, c := range calls {
		chunk.Blocks = append(chunk.Blocks, c)
	}
	require.NoError(t, p.OnStreamChunk(t.Context(), chunk))
	out := make([]host.ToolResult, len(calls))
	for i, b := range chunk.Blocks {
		res, ok := b.(host.ToolResult)
		require.True(t, ok, "block %d answered: %#v", i, b)
		out[i] = res
	}
	return out
}

func readCall(id, uri string) host.ToolCall {
	args, _ := json.Marshal(map[string]string{"uri": uri})
	return host.ToolCall{ID: id, Name: plugin.ReadResourceTool, Arguments: args}
}

func TestResourceToolsListReadAndFollowALink(t *testing.T) {
	p := connectResourceTools(t, plugin.WithResourceTools())
	var names []string
	for _, d := range p.ToolDefinitions() {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"list_mcp_resources", "read_mcp_resource", "report"}, names, "sorted, beside the server's tools")
	assert.False(t, p.HasTool(plugin.ReadResourceTool), "HasTool knows the server's tools only")

	// One chunk: a listing, a read, a blob and the server's tool, at once.
	got := hook(t, p,
		host.ToolCall{ID: "l", Name: plugin.ListResourcesTool},
		readCall("r", resourceserver.NotesURI),
		readCall("b", resourceserver.BlobURI),
		host.ToolCall{ID: "t", Name: resourceserver.ReportTool, Arguments: json.RawMessage(`{}`)})
	for i, id := range []string{"l", "r", "b", "t"} {
		assert.Equal(t, id, got[i].ToolCallID)
		assert.False(t, got[i].IsError, got[i].Content)
	}
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got[0].Content), &listed), got[0].Content)
	assert.Len(t, listed, 5, "four resources over two pages, and the template")
	assert.Contains(t, got[0].Content, `{"uri":"file:///notes.txt","name":"notes","mimeType":"text/plain","description":"The team's notes"}`)
	assert.Contains(t, got[0].Content, `{"uriTemplate":"file:///users/{id}.json","name":"user","mimeType":"application/json"}`)
	assert.Equal(t, resourceserver.NotesText, got[1].Content)
	assert.Equal(t, "[resource: file:///bytes.bin (application/octet-stream, 256 B): binary, not shown]", got[2].Content)
	assert.Equal(t, "The report is ready.\n[resource link: file:///reports/q3.txt (q3, text/plain); read it with read_mcp_resource]", got[3].Content)

	// The model follows the link.
	follow := hook(t, p, readCall("f", resourceserver.ReportURI))[0]
	assert.Equal(t, resourceserver.ReportText, follow.Content)
	assert.Equal(t, plugin.ReadResourceTool, follow.Name)

	// A template filled in.
	assert.Equal(t, `{"from":"file:///users/7.json"}`, hook(t, p, readCall("u", "file:///users/7.json"))[0].Content)
}

func TestResourceToolsBadCalls(t *testing.T) {
	p := connectResourceTools(t, plugin.WithResourceTools())
	got := hook(t, p,
		host.ToolCall{ID: "a", Name: plugin.ReadResourceTool},
		host.ToolCall{ID: "b", Name: plugin.ReadResourceTool, Arguments: json.RawMessage(`{"uri":7}`)},
		readCall("c", "file:///nope.txt"))
	for _, r := range got {
		assert.True(t, r.IsError, r.Content)
	}
	assert.Equal(t, `read_mcp_resource needs {"uri": "<uri>"}, as list_mcp_resources gives it. Here "uri" is missing.`, got[0].Content)
	assert.Contains(t, got[1].Content, `"uri" must be a string`)
	assert.Contains(t, got[2].Content, `resources/read "file:///nope.txt"`)
}

func TestResourceToolsReadPassesApproval(t *testing.T) {
	var mu sync.Mutex
	var asked []plugin.ApprovalRequest
	p := connectResourceTools(t, plugin.WithResourceTools(), plugin.WithApproval(func(_ context.Context, req plugin.ApprovalRequest) error {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		if strings.Contains(string(req.Arguments), "notes") {
			return errors.New("not the notes")
		}
		return nil
	}))
	got := hook(t, p, readCall("n", resourceserver.NotesURI), readCall("r", resourceserver.ReportURI),
		host.ToolCall{ID: "l", Name: plugin.ListResourcesTool})
	assert.True(t, got[0].IsError)
	assert.Contains(t, got[0].Content, "denied")
	assert.Contains(t, got[0].Content, "not the notes")
	assert.NotContains(t, got[0].Content, resourceserver.NotesText)
	assert.False(t, got[1].IsError, got[1].Content)
	assert.Equal(t, resourceserver.ReportText, got[1].Content)
	assert.False(t, got[2].IsError, "a listing asks no approval")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, asked, 2, "each read asked once, the listing not")
	for _, req := range asked {
		assert.Equal(t, plugin.ReadResourceTool, req.Tool)
		assert.Equal(t, p.Server(), req.Server)
		assert.Contains(t, []string{"n", "r"}, req.CallID)
	}
}

func TestResourceToolsReadOverTheCap(t *testing.T) {
	p := connectResourceTools(t, plugin.WithResourceTools(), plugin.WithMaxResultBytes(1024))
	got := hook(t, p, readCall("big", resourceserver.BigURI), readCall("n", resourceserver.NotesURI))
	assert.True(t, got[0].IsError)
	assert.Contains(t, got[0].Content, "result over the cap")
	assert.Contains(t, got[0].Content, "4.0 KiB of contents, the cap is 1.0 KiB")
	assert.Equal(t, resourceserver.NotesText, got[1].Content, "a read under the cap is whole")
}

func TestWithoutResourceToolsNothingChanges(t *testing.T) {
	p := connectResourceTools(t)
	for _, d := range p.ToolDefinitions() {
		assert.NotContains(t, []string{plugin.ListResourcesTool, plugin.ReadResourceTool}, d.Name)
	}
	chunk := &host.Chunk{Blocks: []host.Block{readCall("r", resourceserver.NotesURI),
		host.ToolCall{ID: "t", Name: resourceserver.ReportTool, Arguments: json.RawMessage(`{}`)}}}
	require.NoError(t, p.OnStreamChunk(t.Context(), chunk))
	assert.IsType(t, host.ToolCall{}, chunk.Blocks[0], "not the plugin's tool: left for another plugin")
	assert.Equal(t, "The report is ready.\n[resource link: file:///reports/q3.txt (q3, text/plain)]", chunk.Blocks[1].(host.ToolResult).Content)

	// The seam answers anyway.
	res := p.ResourceToolResult(t.Context(), readCall("s", resourceserver.NotesURI))
	assert.Equal(t, host.ToolResult{ToolCallID: "s", Name: plugin.ReadResourceTool, Content: resourceserver.NotesText}, res)
	assert.True(t, p.ResourceToolResult(t.Context(), host.ToolCall{Name: "other"}).IsError)
}

func TestResourceToolNamesAreTheToolsOnes(t *testing.T) {
	p := connectResourceTools(t, plugin.WithResourceTools())
	defs := p.ToolDefinitions()
	assert.Equal(t, plugin.ListResourcesTool, defs[0].Name)
	assert.Equal(t, plugin.ReadResourceTool, defs[1].Name)
}
