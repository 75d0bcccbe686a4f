// Command embedded shows the connection inside a host's own actor system: an
// agent actor spawns the MCP supervisor as its child, calls a tool from its
// Receive without blocking its mailbox (RequestFuture + ReenterAfter), and
// keeps working after the MCP server is killed.
//
//	go run ./examples/embedded
package main
