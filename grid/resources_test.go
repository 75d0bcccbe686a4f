//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// docsServer is a go-sdk server over loopback HTTP with resources (two to a
// page), a template, a blob, prompts, and a resource that never answers;
// the test's end ends its wait.
func docsServer(t *testing.T) (*mcp.Server, string) {
	t.Helper()
	end := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: 2})
	text := func(uri, body string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: body}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "file:///a.txt", Name: "a"}, text("file:///a.txt", "alpha"))
	s.AddResource(&mcp.Resource{URI: "file:///b.txt", Name: "b"}, text("file:///b.txt", "beta"))
	s.AddResource(&mcp.Resource{URI: "file:///c.bin", Name: "c"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///c.bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 0xff}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///hang.txt", Name: "hang"}, func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-end:
			return nil, errors.New("the test ended")
		}
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///users/{id}", Name: "user"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "user " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"]}}}}, nil
		})
	srv := httptest.NewServer(testserver.NewHTTPHandler(s))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(end) })
	return s, srv.URL
}

func docsConfig(url string) *mcpconfig.Config {
	return &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"docs": {Name: "docs", Type: mcpconfig.TypeHTTP, URL: url},
	}}
}

// Resources, templates and prompts of a grain, asked from its own member
// and across the wire from another: the same answers, blobs intact, the
// server's refusal kept as data; a list change heard on the hosting member.
func TestGrainServesResourcesAndPrompts(t *testing.T) {
	s, url := docsServer(t)
	changes := make(chan plugin.ListChange, 8)
	members := startMembers(t, 2, docsConfig(url), plugin.WithListChangeHandler(func(c plugin.ListChange) {
		select {
		case changes <- c:
		default:
		}
	}))
	hosting, others := hostOf(t, members, "docs")
	for name, c := range map[string]*cluster.Cluster{"on the grain's member": hosting, "across the wire": others[0]} {
		t.Run(name, func(t *testing.T) {
			p := connect(t, c, "docs")
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()

			var uris []string
			cursor, pages := "", 0
			for {
				page, err := p.ListResources(ctx, cursor)
				require.NoError(t, err)
				pages++
				for _, r := range page.Resources {
					uris = append(uris, r.URI)
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			assert.Equal(t, 2, pages)
			assert.ElementsMatch(t, []string{"file:///a.txt", "file:///b.txt", "file:///c.bin", "file:///hang.txt"}, uris)

			tpl, err := p.ListResourceTemplates(ctx, "")
			require.NoError(t, err)
			require.Len(t, tpl.ResourceTemplates, 1)
			assert.Equal(t, "file:///users/{id}", tpl.ResourceTemplates[0].URITemplate)

			res, err := p.ReadResource(ctx, "file:///a.txt")
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			assert.Equal(t, "alpha", res.Contents[0].Text)
			res, err = p.ReadResource(ctx, "file:///c.bin")
			require.NoError(t, err)
			assert.Equal(t, []byte{0, 1, 0xff}, res.Contents[0].Blob)
			res, err = p.ReadResource(ctx, "file:///users/7")
			require.NoError(t, err)
			assert.Equal(t, "user file:///users/7", res.Contents[0].Text)

			_, err = p.ReadResource(ctx, "file:///missing.txt")
			require.Error(t, err)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			var rpc *jsonrpc.Error
			var f *messages.Failure
			if errors.As(err, &f) && f.Err == nil {
				require.NotNil(t, f.RPC, "the server's refusal crosses as data: %v", err)
			} else {
				require.ErrorAs(t, err, &rpc)
			}
			assert.Contains(t, err.Error(), `resources/read "file:///missing.txt"`)

			prompts, err := p.ListPrompts(ctx, "")
			require.NoError(t, err)
			require.Len(t, prompts.Prompts, 1)
			got, err := p.GetPrompt(ctx, "greet", map[string]string{"who": "grid"})
			require.NoError(t, err)
			msgs := plugin.PromptMessages(got)
			require.Len(t, msgs, 1)
			assert.Equal(t, "Hello, grid", msgs[0].Blocks[0].(host.Text).Text)

			// A deadline ends a request that the server never answers.
			dctx, dcancel := context.WithTimeout(ctx, 300*time.Millisecond) // must expire
			_, err = p.ReadResource(dctx, "file:///hang.txt")
			dctxErr := dctx.Err()
			dcancel()
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.ErrorIs(t, dctxErr, context.DeadlineExceeded, "ctx says so by the time the request returns")
		})
	}

	s.AddPrompt(&mcp.Prompt{Name: "later"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	assert.Equal(t, plugin.PromptsChanged, <-changes, "the hosting member's handler hears the change")
	p := connect(t, others[0], "docs")
	prompts, err := p.ListPrompts(t.Context(), "")
	require.NoError(t, err)
	assert.Len(t, prompts.Prompts, 2, "the next list has it, across the wire too")

	_, err = grid.Connect(t.Context(), others[0], "docs", plugin.WithListChangeHandler(func(plugin.ListChange) {}))
	assert.ErrorIs(t, err, plugin.ErrValidation, "a facade hears no list changes: the option is the kind's")
}

// A server without resources or prompts, across the wire: empty lists.
func TestGrainOfAToolsOnlyServerListsNothing(t *testing.T) {
	members := startMembers(t, 2, calcConfig(t))
	_, others := hostOf(t, members, "calc")
	p := connect(t, others[0], "calc")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := p.ListResources(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, res.Resources)
	pr, err := p.ListPrompts(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, pr.Prompts)
	tpl, err := p.ListResourceTemplates(ctx, "")
	require.NoError(t, err)
	assert.Empty(t, tpl.ResourceTemplates)
}
