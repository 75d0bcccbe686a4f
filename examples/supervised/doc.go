// Command supervised shows reconnection: it connects to an MCP server (its
// own binary, re-executed), kills the server with SIGKILL, and shows the
// supervisor restarting it and the next call succeeding.
//
//	go run ./examples/supervised
package main
