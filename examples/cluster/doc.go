// Command cluster shows an MCP connection served across the members of a
// protoactor cluster (package grid).
//
//	go run ./examples/cluster
//
// It starts three members on loopback, found by each other through the
// automanaged membership provider: member A in this process, where the
// agent runs, and members B and C in child processes, which host the MCP
// connections (A registers no connection kind, so none lands there). Every
// member loads the same mcp.json (mcp.json beside this file, embedded, with
// one stdio server, "calculator": this binary again, as a demo MCP server).
//
// The agent on A calls the calculator's add tool; the call is served by
// the member that hosts its grain, say B. Then B is killed with SIGKILL.
// The next call activates the grain on the member left, C, which starts the
// server anew; the output names the member that served each call. Nothing
// but loopback is used; the run takes about ten seconds, most of it the
// cluster noticing B's death and members leaving gracefully at the end.
package main
