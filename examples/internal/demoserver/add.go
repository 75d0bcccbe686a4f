package demoserver

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addArgs are the arguments of the add tool; its input schema is inferred
// from them (both required).
type addArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// NewAddServer returns a go-sdk MCP server with one tool, add, which answers
// the sum of a and b as text ("42" for 21 and 21). Serve it on any
// transport: stdio in a re-executed binary, or behind a Streamable HTTP
// handler.
func NewAddServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-add-server", Version: "v1.0.0"}, nil)
	addTool(s)
	return s
}

// addTool adds the add tool to s.
func addTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add",
		Description: "Add two numbers and return their sum",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
		sum := strconv.FormatFloat(in.A+in.B, 'f', -1, 64)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sum}}}, nil, nil
	})
}
