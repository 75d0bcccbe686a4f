// Package grid serves MCP connections across the members of a protoactor-go
// cluster: each server of an mcp.json is connected once, on one member, and
// called from all of them. It is for a program that runs as a cluster;
// one process needs packages plugin and toolbox only.
//
// Every member loads the same mcp.json and registers the kind
// [NewKind] returns; the kind's grains are the connections, named by server.
// Protoactor's identity lookup decides which member hosts a server's grain
// and activates it there on first use; the grain runs package actors'
// supervisor and connection actors, so a stdio server runs on the
// hosting member (its command must exist there). The grain is an actor of
// this package that wraps the supervisor: it learns its server from the
// cluster's ClusterInit, converts wire forms at the edge, remembers the
// callers on other members and drains when the cluster stops it.
// [Connect] returns an ordinary [plugin.McpPlugin] over the grain, usable
// from any member, and [OpenToolbox] gives a whole toolbox of grains.
//
//	cfg, _ := mcpconfig.Load("mcp.json")
//	config := cluster.Configure("agents", provider, disthash.New(),
//		remote.Configure("10.0.0.5", 8090), cluster.WithKinds(grid.NewKind(cfg)))
//	c := cluster.New(actor.NewActorSystem(), config)
//	c.StartMember()
//	github, err := grid.Connect(ctx, c, "github")
//	// github.OnStreamChunk, github.CallTool, ... as with plugin.Connect
//
// The plain messages of package messages cross the wire in their protobuf
// wire forms, which this package's own wire code (internal/core/wire) makes
// and reads; tools and results travel as their JSON, losslessly, and a
// failure matches on every member the errors it matched where it was made
// (errors.Is with transport.ErrMessageTooLarge, errors.As with
// *auth.TokenError, ...), except the original error's own type, of which
// only the text crosses.
//
// # Failures
//
//   - The hosting member dies: calls in flight there fail with
//     plugin.ErrInternal once the member is reported lost plus
//     the loss grace (plugin.WithLossGrace, 4 s); none is sent again (unless
//     plugin.WithRetryIdempotent on the hosting side allows it for its
//     tool). The next call activates the grain on a live member, which
//     connects to the server anew; the facade refreshes its tools.
//   - A member leaves gracefully: its grains stop after their calls in
//     flight finish ([WithDrainTimeout]); a call that reaches a grain
//     that is stopping, or has stopped, comes back as a dead letter and is
//     sent to the grain's new home. None is lost silently; one that reaches
//     the member in its last instant, as protoactor's remote shuts down,
//     can fail after the loss grace.
//   - A caller's cancelled ctx cancels the call on the hosting member's
//     server.
//   - A call answered with a task (plugin.WithTasks) whose member leaves
//     or dies goes to the grain's next home, which resumes the task from
//     the task store the members share (plugin.TaskOptions.Store), without
//     calling the tool again; without one it fails as above.
package grid
