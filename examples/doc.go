// Package examples holds the example programs, each a command in its own
// directory, and the packages they share. They are a module of their own
// (github.com/cuca-go/mcpconnector/examples), nested in the main one, so
// that what only they use (observe's stdout trace exporter) stays out of
// the main module's go.mod: from the repository's root, in the workspace
// (go.work), go run ./examples/mcp runs one; with GOWORK=off, cd examples
// && go run ./mcp. It has no API of its own; its test checks that the
// examples import only what a user of the main module can import: the
// public packages (plugin, toolbox, grid, host, client, transport,
// mcpconfig, actors, messages, auth), the packages below, third-party
// packages and the standard library, never an internal one.
//
// The commands:
//
//   - mcp: a model calls an MCP tool, end to end (go run ./examples/mcp);
//   - toolbox: the servers of an mcp.json as one toolbox;
//   - supervised: reconnection after the server is killed;
//   - embedded: the connection inside a host's own actor system;
//   - cluster: a connection served across the members of a protoactor
//     cluster (package grid).
//
// The packages they share, which a program of yours may import or copy
// (they are outside the module's API listing and change with the
// examples):
//
//   - demoserver: the demo MCP servers (add; add and pid), built with the
//     MCP go-sdk;
//   - demomodel: where the model runs, with a scripted stand-in when no
//     LLM answers;
//   - observe: OpenTelemetry spans and metrics from the environment.
package examples
