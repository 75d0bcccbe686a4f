package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func init() {
	stdioServers[mcpGo] = func(record string) error {
		return server.NewStdioServer(newMcpGoServer(record, true)).Listen(context.Background(), os.Stdin, os.Stdout)
	}
}

// mcpGoHTTPHandler serves an mcp-go server with its Streamable HTTP server,
// as its documentation shows; 2026-07-28 requests are served statelessly
// whatever its session options say.
func mcpGoHTTPHandler(record string) http.Handler {
	return server.NewStreamableHTTPServer(newMcpGoServer(record, false))
}

// newMcpGoServer is the interop server (see tools_test.go) in mcp-go v1.2.1;
// exit is offered only when the server has a process of its own.
func newMcpGoServer(record string, exit bool) *server.MCPServer {
	rec := &recorder{path: record}
	var gather barrier
	hooks := &server.Hooks{}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcp.MCPMethod, _ any) {
		if method == mcp.MethodToolsList {
			rec.note("list")
		}
	})
	s := server.NewMCPServer("interop-mcp-go", "1.2.1",
		server.WithToolCapabilities(false), server.WithPaginationLimit(pageSize), server.WithHooks(hooks))
	numbers := []mcp.ToolOption{mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())}
	fixed := func(name string, res *mcp.CallToolResult) {
		s.AddTool(mcp.NewTool(name, mcp.WithDescription(name)),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
	}
	s.AddTool(mcp.NewTool("add", append(numbers, mcp.WithDescription("Add two numbers"))...),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(req.GetFloat("a", 0) + req.GetFloat("b", 0))), nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the arguments")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.note("echo")
			args := req.GetArguments()
			if args == nil {
				args = map[string]any{}
			}
			b, err := json.Marshal(args)
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	fixed("fail", mcp.NewToolResultError("boom"))
	fixed("image", &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewImageContent(base64.StdEncoding.EncodeToString(make([]byte, imageBytes)), imageMIME)}})
	fixed("audio", &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewAudioContent(base64.StdEncoding.EncodeToString(make([]byte, audioBytes)), audioMIME)}})
	fixed("resource", &mcp.CallToolResult{Content: []mcp.Content{
		mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: resourceURI, MIMEType: resourceMIME, Text: resourceText})}})
	fixed("link", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewResourceLink(linkURI, linkName, "", linkMIME)}})
	s.AddTool(mcp.NewTool("structured", append(numbers, mcp.WithDescription("Add, structured only"),
		mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)))...),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Not NewToolResultStructuredOnly: it adds the JSON as text.
			return &mcp.CallToolResult{Content: []mcp.Content{},
				StructuredContent: map[string]any{"sum": req.GetFloat("a", 0) + req.GetFloat("b", 0)}}, nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Wait ms milliseconds"), mcp.WithNumber("ms")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := rec.slow(ctx, req.GetFloat("ms", 0))
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(out), nil
		})
	s.AddTool(mcp.NewTool("gather", mcp.WithDescription("Wait until n calls are in flight"), mcp.WithNumber("n")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := gather.gather(ctx, req.GetFloat("n", 1))
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(out), nil
		})
	if exit {
		fixedExit := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "exiting on request")
			os.Exit(3)
			return nil, nil
		}
		s.AddTool(mcp.NewTool("exit", mcp.WithDescription("Exit the server process")), fixedExit)
	}
	return s
}
