// Package actors holds the McpConnection actor, which owns one MCP client
// session, and (see supervisor.go) its supervising parent, which spawns a
// new McpConnection, with a PID of its own, for every session.
//
// An McpConnection connects when it starts: it opens its transport, sends
// server/discover through go-sdk (MCP 2026-07-28 only: a legacy initialize
// never reaches the wire), lists every tool following each nextCursor, and
// then answers [messages.AwaitReady] and serves [messages.CallTool]. Its
// Receive does no I/O while the session runs (once it stops, at Close, its
// Stopping waits for the session's goroutines: protoactor-go ends an actor
// as soon as Stopping returns). A direct stdio call is posted (posted.go):
// the mailbox queues its line, writes the lines of one run of the mailbox
// together once it is empty, never waiting on the pipe, and the goroutine
// that reads the server's stdout answers the caller. A tool call that
// finds a supervised connection's mailbox idle runs it on the caller's
// goroutine (mailbox.go); every other message's run starts on a goroutine
// of protoactor's. Any other tool call runs on a goroutine apart (a worker
// that ran one before and waits for the next, briefly, or a new one), many
// at once on the one session, and that goroutine answers the caller
// directly (the answer's way is one hop, as short as a call can have).
// What else becomes of a call the connection decides in its mailbox, where
// the call's cancel arrives too: a call that goes back for the next
// session (never sent, RetryIdempotent, a task to resume) is handed to the
// actor by its goroutine (handBack), and the actor drops it if its caller
// gave up (a task: resumed only to be cancelled, once), or passes it to the
// supervisor; a cancel that comes later follows it there. When the session
// ends the actor cancels the calls in flight with the cause (a posted call
// once the writes under way are done, when it is known whether its line
// left): a call that reached the server fails
// ([messages.CauseConnectionLost]), one that never did waits for the next
// session (under a supervisor).
//
// A connection whose session ended is retired: it resumes, answers or
// hands back whatever still reaches it, and tells its supervisor once its
// own goroutines are done, which stops it after whatever it sent it
// before. Nothing is shared between the two actors but messages: each
// connection counts its own goroutines, and the supervisor's Close waits
// for them through protoactor's stop of its children.
//
// Extensions live beside the core ([ConnectionConfig.Extensions], the
// interface in internal/core/extension, whose doc says how one plugs in;
// this package's side of it is extension.go). Each session opens the part
// of every extension that takes part in it: the part sees what the session
// reads before go-sdk does, and writes its own requests on the session's
// connection. Each call carries the parts of its session's extensions,
// which are offered its tools/call answer first (an answer of their
// resultType is theirs to drive) and any held work its message carries to
// resume; they answer the caller, or hand the call back through the same
// handBack as the core, decided in the mailbox like any other. The tasks
// extension (SEP-2663) is the first, in internal/core/tasks, whose doc
// says what it covers; package plugin installs it (plugin.WithTasks). The
// core reads none of an extension's state.
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
// form. An extension that is an extension.Deliverer (in
// [ConnectionConfig.Extensions]) carries every answer and notice the
// connection sends; how the messages cross between the members of a
// cluster that way is package grid's, and its doc says how.
package actors
