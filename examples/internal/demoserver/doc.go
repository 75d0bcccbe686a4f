// Package demoserver holds the examples' MCP servers, built with go-sdk.
// [RunIfAsked] is the one the supervision examples start: the example's own
// binary, re-executed with [Flag], serving stdio with two tools, add and
// pid. [NewAddServer] is add alone, which examples/mcp and examples/toolbox
// serve over Streamable HTTP and, through [ServeAddIfAsked] and [AddFlag],
// over stdio.
package demoserver
