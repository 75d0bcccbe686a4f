// Package demoserver holds the examples' MCP servers, built with the MCP
// go-sdk. [RunIfAsked] is the one the supervision and cluster examples
// start: the example's own binary, re-executed with [Flag], serving stdio
// with two tools, add and pid. [NewAddServer] is add alone, which
// examples/mcp and examples/toolbox serve over Streamable HTTP and, through
// [ServeAddIfAsked] and [AddFlag], over stdio. [NewNotesServer] has a
// resource and a tool whose result links to it, for examples/toolbox's
// -resources demo, where the model follows the link.
//
// It is a helper of the examples, not of the library: a program of yours may
// import it (github.com/cuca-go/mcpconnector/examples/demoserver) or copy it,
// for a server to try a connection on, but it is outside the module's API
// listing and may change with the examples. It imports nothing of this
// module.
package demoserver
