// Package agenttest is the test fixture of the agent framework adapters: a
// toolbox of two real go-sdk MCP servers, each in a child process (the test
// binary re-executed), and the helpers the adapters' tests share.
//
// Server "alpha" is package testserver's (add, echo, fail, slow, ...).
// Server "beta" is this package's: "weather", whose inputSchema carries
// what a narrower schema type would lose (enum, default, bounds,
// additionalProperties, $defs and a $ref, an x- keyword); "wait", which
// blocks until its call is cancelled and says so in a file
// ([Box.WaitCancelled]); and "big", whose result is [BigBytes] long.
//
// A test package's TestMain calls [RunIfChild] first.
package agenttest
