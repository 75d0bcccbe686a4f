package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/examples/internal/demoserver"
)

// serverFlag makes this binary an MCP server on its stdio. It is a
// command-line argument, not an environment variable, because a stdio child
// inherits only a minimal environment.
const serverFlag = "--mcp-add-server"

// serveAdd runs the add server on stdin and stdout until the client closes
// the connection or ctx ends.
func serveAdd(ctx context.Context) error {
	return demoserver.NewAddServer().Run(ctx, &mcp.StdioTransport{})
}
