package main

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverFlag makes this binary an MCP server on its stdio. It is a
// command-line argument, not an environment variable, because a stdio child
// inherits only a minimal environment.
const serverFlag = "--mcp-add-server"

// addArgs are the arguments of the add tool; its input schema is inferred
// from them (both required).
type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// newAddServer returns a go-sdk MCP server with one tool, add.
func newAddServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-add-server", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add",
		Description: "Add two numbers and return their sum",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
		sum := strconv.FormatFloat(in.A+in.B, 'f', -1, 64)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sum}}}, nil, nil
	})
	return s
}

// serveAdd runs the add server on stdin and stdout until the client closes
// the connection or ctx ends.
func serveAdd(ctx context.Context) error {
	return newAddServer().Run(ctx, &mcp.StdioTransport{})
}
