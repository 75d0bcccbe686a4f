// Package countserver is a go-sdk MCP server for tests of servers that
// start late and change their tools: run as a child process (the test
// binary re-executed, see [RunIfChild]), it appends a line to a file at
// each start, so a test can count its starts, and its tools depend on a
// variable of its environment, which a test changes between runs without
// changing the server's command line.
package countserver
