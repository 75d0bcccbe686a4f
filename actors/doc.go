// Package actors holds the McpConnection actor, which owns one MCP client
// session, and (see supervisor.go) the parent that restarts it.
//
// An McpConnection connects when it starts: it opens its transport, sends
// server/discover through go-sdk (MCP 2026-07-28 only: a legacy initialize
// never reaches the wire), lists every tool following each nextCursor, and
// then answers [messages.AwaitReady] and serves [messages.CallTool]. Its
// Receive never blocks on I/O: each tool call runs in a goroutine of its own,
// many at once on the one session, and the goroutine answers the caller
// directly: it is the one author of the call's answer. When the session
// ends or the actor stops, the actor cancels the calls in flight with the
// cause, and each call's goroutine answers with it: a call that reached the
// server fails ([messages.CauseConnectionLost]); one that never did goes
// back to the supervising parent, to wait for the next session.
//
// The supervisor retries on a schedule (schedule.go) chosen so that an
// outage costs about what it lasts and a server that never returns costs a
// bounded number of tries; [SupervisorConfig.TryTimes] computes it. Its
// [Status] keeps the last failure apart from the present state's
// ([Status.Err]), so that a recovered connection carries no error of the
// past.
//
// Both actors are ordinary protoactor-go actors: a host may spawn them from
// their Props in its own actor system and speak [messages] to them.
//
// Across the members of a cluster the messages travel in their wire forms
// (messages.ToWire), converted at the actors' own edges: the supervisor
// and the connection read a wire form that arrives as its plain message (the
// supervisor passes plain messages on to its connection), and both answer a
// sender on another member in wire forms. Between actors of one process
// nothing is converted; which side a sender is on is one comparison of its
// PID's address.
package actors
