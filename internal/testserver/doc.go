// Package testserver holds the real MCP servers the tests run against: a
// go-sdk server with a known set of tools, served from a re-executed test
// binary over stdio or over loopback Streamable HTTP, and hand-written
// JSON-RPC servers that misbehave on purpose where go-sdk cannot.
//
// A test package's TestMain calls [RunIfChild] first; a test then connects to
// [Stdio] (the test binary itself, in child mode) or to [HTTP].
package testserver
