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
// The package is for a program that embeds the actors in an actor system
// of its own: both are ordinary protoactor-go actors, which it spawns from
// [NewSupervisorProps] or [NewConnectionProps] with a [SupervisorConfig] or
// [ConnectionConfig] and speaks [messages] to. A program that wants a tool
// caller rather than actors uses package plugin, which is built on them.
//
// The actors speak plain messages only: they never read or write a wire
// form. Across the members of a cluster the messages travel in their wire
// forms (messages.ToWire), converted by package grid at the cluster's
// edges: its grain reads what arrives in a wire form as the plain message
// before passing it on, and sets [ConnectionConfig.Deliver], through
// which the connection sends every answer and notice, to a function that
// gives a sender on another member the wire form. Between actors of one
// process nothing is converted.
package actors
