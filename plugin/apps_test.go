package plugin_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

const (
	appURI  = "ui://weather/view.html"
	appMIME = "text/html;profile=mcp-app"
	appHTML = "<!doctype html><div id=weather></div>"
)

// appServer is a go-sdk server with an MCP App: the tool "weather" names
// its view, a ui:// resource; "plain" names none; "elsewhere" names a view
// of another scheme. reads counts the reads of the view.
func appServer(t *testing.T, opts ...plugin.Option) (*plugin.McpPlugin, *atomic.Int32) {
	t.Helper()
	var reads atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "apps", Version: "1.0.0"}, nil)
	text := func(string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
		}
	}
	schema := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "weather", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": appURI}}}, text("weather"))
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, text("plain"))
	s.AddTool(&mcp.Tool{Name: "elsewhere", InputSchema: schema, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "https://example.com/view"}}}, text("elsewhere"))
	s.AddResource(&mcp.Resource{URI: appURI, Name: "weather view", MIMEType: appMIME},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			reads.Add(1)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: appURI, MIMEType: appMIME, Text: appHTML,
				Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}}}}}, nil
		})
	srv := httptest.NewServer(testserver.NewHTTPHandler(s))
	t.Cleanup(srv.Close)
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p, &reads
}

func TestToolUI(t *testing.T) {
	p, reads := appServer(t)
	ui, err := p.ToolUI(t.Context(), "weather")
	require.NoError(t, err)
	require.NotNil(t, ui)
	assert.Equal(t, &plugin.ToolUI{Tool: "weather", URI: appURI, MIMEType: appMIME, HTML: appHTML,
		Meta: map[string]any{"ui": map[string]any{"prefersBorder": true}}}, ui)
	assert.Equal(t, int32(1), reads.Load())

	ui, err = p.ToolUI(t.Context(), "plain")
	require.NoError(t, err)
	assert.Nil(t, ui, "a tool without a view")
	ui, err = p.ToolUI(t.Context(), "elsewhere")
	require.NoError(t, err)
	assert.Nil(t, ui, "a view that is not ui:// is none")

	_, err = p.ToolUI(t.Context(), "nosuch")
	assert.ErrorIs(t, err, plugin.ErrValidation)

	assert.Equal(t, appURI, plugin.ToolUIURI(&mcp.Tool{Meta: mcp.Meta{"ui/resourceUri": appURI}}), "the earlier flat key")
	assert.Empty(t, plugin.ToolUIURI(nil))
}

// The hook hands the view with the result, only for a tool that names one
// and only when the host asks; the result is unchanged.
func TestToolUIHandedWithTheResult(t *testing.T) {
	type handed struct {
		result host.ToolResult
		ui     *plugin.ToolUI
		err    error
	}
	var mu sync.Mutex
	var got []handed
	p, reads := appServer(t, plugin.WithToolUIHandler(func(_ context.Context, r host.ToolResult, ui *plugin.ToolUI, err error) {
		mu.Lock()
		got = append(got, handed{r, ui, err})
		mu.Unlock()
	}))
	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{}`)},
		host.ToolCall{ID: "c2", Name: "plain", Arguments: json.RawMessage(`{}`)},
	}}
	require.NoError(t, p.OnStreamChunk(t.Context(), chunk))
	want := host.ToolResult{ToolCallID: "c1", Name: "weather", Content: "sunny"}
	assert.Equal(t, want, chunk.Blocks[0])
	assert.Equal(t, host.ToolResult{ToolCallID: "c2", Name: "plain", Content: "sunny"}, chunk.Blocks[1])
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1, "only the tool with a view")
	assert.Equal(t, want, got[0].result)
	require.NoError(t, got[0].err)
	require.NotNil(t, got[0].ui)
	assert.Equal(t, appHTML, got[0].ui.HTML)
	assert.Equal(t, int32(1), reads.Load())
}

func TestToolUINotReadUnlessAsked(t *testing.T) {
	p, reads := appServer(t)
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{}`)}}}
	require.NoError(t, p.OnStreamChunk(t.Context(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "weather", Content: "sunny"}, chunk.Blocks[0])
	assert.Zero(t, reads.Load(), "a host that does not ask reads nothing")
}
