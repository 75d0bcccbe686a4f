package interop

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	stdioServers[goSDK] = func(record string) error {
		return newGoSDKServer(record, true).Run(context.Background(), &mcp.StdioTransport{})
	}
}

// goSDKHTTPHandler serves a go-sdk server over Streamable HTTP, stateless:
// in its default, stateful mode go-sdk's handler offers no 2026-07-28.
// PropagateRequestCancellation makes a closed POST cancel its handler, as
// 2026-07-28 requires of a server (over HTTP that is the cancellation); it
// is off by default, and then a cancelled call runs on to its end.
func goSDKHTTPHandler(record string) http.Handler {
	s := newGoSDKServer(record, false)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
}

// newGoSDKServer is the interop server (see tools_test.go) in go-sdk v1.8.0;
// exit is offered only when the server has a process of its own.
func newGoSDKServer(record string, exit bool) *mcp.Server {
	rec := &recorder{path: record}
	var gather barrier
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-go-sdk", Version: "1.8.0"}, &mcp.ServerOptions{PageSize: pageSize})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				rec.note("list")
			}
			return next(ctx, method, req)
		}
	})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	fixed := func(name string, res *mcp.CallToolResult) {
		s.AddTool(&mcp.Tool{Name: name, Description: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
	}
	type numbers struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in numbers) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo the arguments", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rec.note("echo")
			args := string(req.Params.Arguments)
			if args == "" || args == "null" {
				args = "{}"
			}
			return text(args), nil
		})
	fixed("fail", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}})
	fixed("image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: imageMIME, Data: make([]byte, imageBytes)}}})
	fixed("audio", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: audioMIME, Data: make([]byte, audioBytes)}}})
	fixed("resource", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{
		Resource: &mcp.ResourceContents{URI: resourceURI, MIMEType: resourceMIME, Text: resourceText}}}})
	fixed("link", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: linkURI, Name: linkName, MIMEType: linkMIME}}})
	type sum struct {
		Sum float64 `json:"sum"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "structured", Description: "Add, structured only"},
		func(_ context.Context, _ *mcp.CallToolRequest, in numbers) (*mcp.CallToolResult, sum, error) {
			// A non-nil empty Content keeps go-sdk from adding the JSON as text.
			return &mcp.CallToolResult{Content: []mcp.Content{}}, sum{in.A + in.B}, nil
		})
	type slowIn struct {
		MS float64 `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Wait ms milliseconds"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			out, err := rec.slow(ctx, in.MS)
			if err != nil {
				return nil, nil, err
			}
			return text(out), nil, nil
		})
	type gatherIn struct {
		N float64 `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "gather", Description: "Wait until n calls are in flight"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in gatherIn) (*mcp.CallToolResult, any, error) {
			out, err := gather.gather(ctx, in.N)
			if err != nil {
				return nil, nil, err
			}
			return text(out), nil, nil
		})
	if exit {
		s.AddTool(&mcp.Tool{Name: "exit", Description: "Exit the server process", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "exiting on request")
				os.Exit(3)
				return nil, nil
			})
	}
	return s
}
