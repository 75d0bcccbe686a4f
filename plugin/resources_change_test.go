package plugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// A server whose resources and prompts change while the program runs: the
// handler hears each change, and the next list has it.
func TestListChangeHandlerHearsResourcesAndPrompts(t *testing.T) {
	started, end := make(chan struct{}, 1), make(chan struct{})
	t.Cleanup(func() { close(end) })
	s := resourceServer(started, end)
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	changes := make(chan plugin.ListChange, 16)
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL},
		plugin.WithListChangeHandler(func(c plugin.ListChange) { changes <- c }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })

	s.AddResource(&mcp.Resource{URI: "file:///fresh.txt", Name: "fresh"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///fresh.txt", Text: "fresh"}}}, nil
		})
	require.Equal(t, plugin.ResourcesChanged, <-changes)
	assert.Contains(t, allResourceURIs(t, p), "file:///fresh.txt")

	s.AddPrompt(&mcp.Prompt{Name: "fresh"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "fresh"}}}}, nil
	})
	require.Equal(t, plugin.PromptsChanged, <-changes)
	assert.Contains(t, allPromptNames(t, p), "fresh")

	s.RemoveResources("file:///fresh.txt")
	require.Equal(t, plugin.ResourcesChanged, <-changes)
	assert.NotContains(t, allResourceURIs(t, p), "file:///fresh.txt")
}

// Without the handler nothing subscribes, and lists are still asked of
// the server each time.
func TestListsFollowTheServerWithoutAHandler(t *testing.T) {
	started, end := make(chan struct{}, 1), make(chan struct{})
	t.Cleanup(func() { close(end) })
	s := resourceServer(started, end)
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	require.NotContains(t, allResourceURIs(t, p), "file:///later.txt")
	s.AddResource(&mcp.Resource{URI: "file:///later.txt", Name: "later"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	assert.Contains(t, allResourceURIs(t, p), "file:///later.txt")
}

// allResourceURIs lists every page of p's resources.
func allResourceURIs(t *testing.T, p *plugin.McpPlugin) []string {
	t.Helper()
	var uris []string
	cursor := ""
	for {
		page, err := p.ListResources(t.Context(), cursor)
		require.NoError(t, err)
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if page.NextCursor == "" {
			return uris
		}
		cursor = page.NextCursor
	}
}

// One deadline, one clock, as for calls: a request that ends because its
// caller's deadline passed ends with ctx's own error, and ctx says so by
// the time the request returns, whichever timer fired first.
func TestResourceRequestDeadlineIsCtxs(t *testing.T) {
	p, _, _ := connectResources(t)
	for i := range 200 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
		var err error
		if i%2 == 0 {
			_, err = p.ReadResource(ctx, "file:///slow.txt")
		} else {
			_, err = p.GetPrompt(ctx, "slow", nil)
		}
		ctxErr := ctx.Err()
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "request %d", i)
		require.ErrorIs(t, err, plugin.ErrInternal, "request %d", i)
		require.ErrorIs(t, ctxErr, context.DeadlineExceeded, "request %d: ctx did not yet say its deadline passed when the request returned: %v", i, err)
		require.Contains(t, err.Error(), "the caller's deadline passed", "request %d", i)
	}
}

// allPromptNames lists every page of p's prompts.
func allPromptNames(t *testing.T, p *plugin.McpPlugin) []string {
	t.Helper()
	var names []string
	cursor := ""
	for {
		page, err := p.ListPrompts(t.Context(), cursor)
		require.NoError(t, err)
		for _, pr := range page.Prompts {
			names = append(names, pr.Name)
		}
		if page.NextCursor == "" {
			return names
		}
		cursor = page.NextCursor
	}
}
