package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Resources, resource templates and prompts of go-sdk's and mcp-go's
// servers, over Streamable HTTP on loopback, each with the same set: two
// text resources and a blob (two to a page), a template, a prompt with an
// argument; then a resource and a prompt added while the program runs,
// which the list-change handler hears and the next list shows.

// The resource set both servers serve.
const (
	resTextURI  = "file:///notes.txt"
	resText     = "hello notes"
	resOtherURI = "file:///todo.md"
	resBlobURI  = "file:///bytes.bin"
	resTemplate = "file:///users/{id}"
	resLaterURI = "file:///later.txt"
)

var resBlob = []byte{0, 1, 2, 0x7f, 0x80, 0xfe, 0xff}

// resourceServers are the two servers, each with a func that adds a
// resource and a prompt while it runs.
type resourceServer struct {
	handler http.Handler
	grow    func()
	// stdio serves the server on this process's stdio, with a tool "grow"
	// that calls grow, for a child process.
	stdio func() error
}

// The resource servers as stdio children ("<binary> interop-server <name>").
const (
	goSDKResources = "go-sdk-resources"
	mcpGoResources = "mcp-go-resources"
)

func init() {
	stdioServers[goSDKResources] = func(string) error { return goSDKResourceServer().stdio() }
	stdioServers[mcpGoResources] = func(string) error { return mcpGoResourceServer().stdio() }
}

func goSDKResourceServer() resourceServer {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-go-sdk-resources", Version: "1.8.0"}, &mcp.ServerOptions{PageSize: 2})
	text := func(uri, mime, body string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: resTextURI, Name: "notes", MIMEType: "text/plain"}, text(resTextURI, "text/plain", resText))
	s.AddResource(&mcp.Resource{URI: resOtherURI, Name: "todo", MIMEType: "text/markdown"}, text(resOtherURI, "text/markdown", "# todo"))
	s.AddResource(&mcp.Resource{URI: resBlobURI, Name: "bytes", MIMEType: "application/octet-stream"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: resBlobURI, MIMEType: "application/octet-stream", Blob: resBlob}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: resTemplate, Name: "user"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "user at " + req.Params.URI}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["who"] + "."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Hello!"}},
			}}, nil
		})
	grow := func() {
		s.AddResource(&mcp.Resource{URI: resLaterURI, Name: "later"}, text(resLaterURI, "text/plain", "later"))
		s.AddPrompt(&mcp.Prompt{Name: "later"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "later"}}}}, nil
		})
	}
	return resourceServer{
		handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}),
		grow: grow,
		stdio: func() error {
			s.AddTool(&mcp.Tool{Name: "grow", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					grow()
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
				})
			return s.Run(context.Background(), &mcp.StdioTransport{})
		},
	}
}

func mcpGoResourceServer() resourceServer {
	s := mgserver.NewMCPServer("interop-mcp-go-resources", "1.2.1",
		mgserver.WithResourceCapabilities(false, true), mgserver.WithPromptCapabilities(true), mgserver.WithPaginationLimit(2))
	text := func(uri, mime, body string) mgserver.ResourceHandlerFunc {
		return func(context.Context, mgmcp.ReadResourceRequest) ([]mgmcp.ResourceContents, error) {
			return []mgmcp.ResourceContents{mgmcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body}}, nil
		}
	}
	s.AddResource(mgmcp.NewResource(resTextURI, "notes", mgmcp.WithMIMEType("text/plain")), text(resTextURI, "text/plain", resText))
	s.AddResource(mgmcp.NewResource(resOtherURI, "todo", mgmcp.WithMIMEType("text/markdown")), text(resOtherURI, "text/markdown", "# todo"))
	s.AddResource(mgmcp.NewResource(resBlobURI, "bytes", mgmcp.WithMIMEType("application/octet-stream")),
		func(context.Context, mgmcp.ReadResourceRequest) ([]mgmcp.ResourceContents, error) {
			return []mgmcp.ResourceContents{mgmcp.BlobResourceContents{URI: resBlobURI, MIMEType: "application/octet-stream",
				Blob: base64.StdEncoding.EncodeToString(resBlob)}}, nil
		})
	s.AddResourceTemplate(mgmcp.NewResourceTemplate(resTemplate, "user"),
		func(_ context.Context, req mgmcp.ReadResourceRequest) ([]mgmcp.ResourceContents, error) {
			return []mgmcp.ResourceContents{mgmcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "user at " + req.Params.URI}}, nil
		})
	s.AddPrompt(mgmcp.NewPrompt("greet", mgmcp.WithPromptDescription("Greet someone"), mgmcp.WithArgument("who", mgmcp.RequiredArgument())),
		func(_ context.Context, req mgmcp.GetPromptRequest) (*mgmcp.GetPromptResult, error) {
			return mgmcp.NewGetPromptResult("", []mgmcp.PromptMessage{
				mgmcp.NewPromptMessage(mgmcp.RoleUser, mgmcp.NewTextContent("Say hello to "+req.Params.Arguments["who"]+".")),
				mgmcp.NewPromptMessage(mgmcp.RoleAssistant, mgmcp.NewTextContent("Hello!")),
			}), nil
		})
	grow := func() {
		s.AddResource(mgmcp.NewResource(resLaterURI, "later"), text(resLaterURI, "text/plain", "later"))
		s.AddPrompt(mgmcp.NewPrompt("later"), func(context.Context, mgmcp.GetPromptRequest) (*mgmcp.GetPromptResult, error) {
			return mgmcp.NewGetPromptResult("", []mgmcp.PromptMessage{mgmcp.NewPromptMessage(mgmcp.RoleUser, mgmcp.NewTextContent("later"))}), nil
		})
	}
	return resourceServer{
		handler: mgserver.NewStreamableHTTPServer(s),
		grow:    grow,
		stdio: func() error {
			s.AddTool(mgmcp.NewTool("grow"), func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
				grow()
				return mgmcp.NewToolResultText("grown"), nil
			})
			return mgserver.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
		},
	}
}

func TestResourcesAndPromptsOfRealServers(t *testing.T) {
	for name, newServer := range map[string]func() resourceServer{goSDK: goSDKResourceServer, mcpGo: mcpGoResourceServer} {
		t.Run(name, func(t *testing.T) {
			rs := newServer()
			srv := httptest.NewServer(rs.handler)
			t.Cleanup(srv.Close)
			changes := make(chan plugin.ListChange, 16)
			p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL},
				plugin.WithListChangeHandler(func(c plugin.ListChange) { changes <- c }))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			assert.Empty(t, p.Tools(), "a server of resources and prompts only connects, with no tools (mcp-go refuses tools/list)")
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()

			uris, pages := listAllResources(ctx, t, p)
			assert.Equal(t, 2, pages, "three resources, two to a page")
			assert.ElementsMatch(t, []string{resTextURI, resOtherURI, resBlobURI}, uris)

			tpl, err := p.ListResourceTemplates(ctx, "")
			require.NoError(t, err)
			require.Len(t, tpl.ResourceTemplates, 1)
			assert.Equal(t, resTemplate, tpl.ResourceTemplates[0].URITemplate)

			res, err := p.ReadResource(ctx, resTextURI)
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			assert.Equal(t, resText, res.Contents[0].Text)
			assert.Equal(t, "text/plain", res.Contents[0].MIMEType)
			res, err = p.ReadResource(ctx, resBlobURI)
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			assert.Equal(t, resBlob, res.Contents[0].Blob, "the blob's bytes, decoded")
			res, err = p.ReadResource(ctx, "file:///users/42")
			require.NoError(t, err)
			assert.Equal(t, "user at file:///users/42", res.Contents[0].Text)

			_, err = p.ReadResource(ctx, "file:///missing.txt")
			require.Error(t, err)
			var rpcErr *jsonrpc.Error
			assert.ErrorAs(t, err, &rpcErr, "the server's refusal")

			capped, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL}, plugin.WithMaxResultBytes(4))
			require.NoError(t, err)
			_, err = capped.ReadResource(ctx, resTextURI)
			assert.ErrorIs(t, err, plugin.ErrResultTooLarge)
			require.NoError(t, capped.Close())

			prompts, err := p.ListPrompts(ctx, "")
			require.NoError(t, err)
			require.Len(t, prompts.Prompts, 1)
			assert.Equal(t, "greet", prompts.Prompts[0].Name)
			require.Len(t, prompts.Prompts[0].Arguments, 1)
			assert.True(t, prompts.Prompts[0].Arguments[0].Required)
			got, err := p.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
			require.NoError(t, err)
			assert.Equal(t, []host.Message{
				{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "Say hello to Ada."}}},
				{Role: host.RoleAssistant, Blocks: []host.Block{host.Text{Text: "Hello!"}}},
			}, plugin.PromptMessages(got))

			// The lists change while the program runs.
			rs.grow()
			heard := map[plugin.ListChange]bool{}
			for !heard[plugin.ResourcesChanged] || !heard[plugin.PromptsChanged] {
				select {
				case c := <-changes:
					heard[c] = true
				case <-ctx.Done():
					t.Fatalf("the list-change handler heard %v", heard)
				}
			}
			uris, _ = listAllResources(ctx, t, p)
			assert.Contains(t, uris, resLaterURI)
			var names []string
			for cursor := ""; ; {
				page, err := p.ListPrompts(ctx, cursor)
				require.NoError(t, err)
				for _, pr := range page.Prompts {
					names = append(names, pr.Name)
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			assert.ElementsMatch(t, []string{"greet", "later"}, names)
		})
	}
}

// The interop tool servers declare neither resources nor prompts: their
// lists are empty, not errors.
func TestToolsOnlyServersListNoResourcesOrPrompts(t *testing.T) {
	for name, handler := range map[string]func(string) http.Handler{goSDK: goSDKHTTPHandler, mcpGo: mcpGoHTTPHandler} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(handler(filepath.Join(t.TempDir(), "record")))
			t.Cleanup(srv.Close)
			p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL})
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			require.NotEmpty(t, p.Tools())
			res, err := p.ListResources(t.Context(), "")
			require.NoError(t, err)
			assert.Empty(t, res.Resources)
			tpl, err := p.ListResourceTemplates(t.Context(), "")
			require.NoError(t, err)
			assert.Empty(t, tpl.ResourceTemplates)
			pr, err := p.ListPrompts(t.Context(), "")
			require.NoError(t, err)
			assert.Empty(t, pr.Prompts)
		})
	}
}

// Over stdio, in a child process: a tool call makes the server add a
// resource and a prompt, and the notices arrive on the child's stdout.
func TestResourceListChangesOverStdio(t *testing.T) {
	for _, name := range []string{goSDKResources, mcpGoResources} {
		t.Run(name, func(t *testing.T) {
			exe, err := os.Executable()
			require.NoError(t, err)
			tr := transport.NewStdio(exe, childArg, name, "-")
			tr.Env = append(tr.Env, "GORACE=atexit_sleep_ms=0")
			changes := make(chan plugin.ListChange, 16)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a race-enabled child's start on a busy machine
			defer cancel()
			p, err := plugin.Connect(ctx, tr, plugin.WithListChangeHandler(func(c plugin.ListChange) { changes <- c }))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			uris, _ := listAllResources(ctx, t, p)
			require.NotContains(t, uris, resLaterURI)

			res, err := p.CallTool(ctx, "grow", nil).Await(ctx)
			require.NoError(t, err)
			assert.Equal(t, "grown", plugin.RenderResult(res))
			heard := map[plugin.ListChange]bool{}
			for !heard[plugin.ResourcesChanged] || !heard[plugin.PromptsChanged] {
				select {
				case c := <-changes:
					heard[c] = true
				case <-ctx.Done():
					t.Fatalf("the list-change handler heard %v", heard)
				}
			}
			uris, _ = listAllResources(ctx, t, p)
			assert.Contains(t, uris, resLaterURI)
		})
	}
}

// listAllResources follows every page of p's resources.
func listAllResources(ctx context.Context, t *testing.T, p *plugin.McpPlugin) (uris []string, pages int) {
	t.Helper()
	for cursor := ""; ; {
		page, err := p.ListResources(ctx, cursor)
		require.NoError(t, err)
		pages++
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			return uris, pages
		}
	}
}
