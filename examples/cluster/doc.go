// Command cluster shows an MCP connection served across the members of a
// protoactor cluster (package grid).
//
//	go run ./examples/cluster
//
// It starts three members on loopback, found by each other through
// protoactor's automanaged membership provider: member A in this process,
// where the agent runs, and members B and C in child processes (this binary
// again, with --cluster-member), which host the MCP connections. Every
// hosting member registers the kind [grid.NewKind] makes of the same
// mcp.json (mcp.json beside this file, embedded, with one stdio server,
// "calculator": this binary again, as a demo MCP server); A registers no
// kind, so no connection lands there, and calls through [grid.Connect].
// member.go is what a program of yours would write to start a member:
// [cluster.Configure] with the provider, disthash and a remote, the kinds,
// [cluster.Cluster.StartMember], and Shutdown(true) to leave.
//
// The agent on A calls the calculator's add tool; the call is served by
// the member that hosts its grain, say B. Then B is killed with SIGKILL.
// The next call activates the grain on the member left, C, which starts the
// server anew; the output names the member that served each call.
//
// The members' actor systems listen on 127.0.0.1 and find each other at
// 127.0.0.1 ports; protoactor's automanaged provider serves its health
// endpoint on every interface (it binds 0.0.0.0, with no option to do
// otherwise), at a port picked at random, for as long as the run lasts. The
// run takes about ten seconds, most of it the cluster noticing B's death
// and the members leaving gracefully at the end.
package main
