package demoserver

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Flag as the first argument makes the binary serve MCP instead.
const Flag = "--demo-mcp-server"

// RunIfAsked serves MCP on stdio and exits when os.Args[1] is [Flag].
func RunIfAsked() {
	if len(os.Args) < 2 || os.Args[1] != Flag {
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1.0.0"}, nil)
	addTool(s)
	s.AddTool(&mcp.Tool{Name: "pid", Description: "The server's process id", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "demo server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Self returns the command and arguments that start this binary as the
// server.
func Self() (string, []string) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exe, []string{Flag}
}
