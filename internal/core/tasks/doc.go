// Package tasks is the tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks), both dialects (the extension as accepted,
// and its draft of early May 2026), apart from the connection actor:
//
//   - [Drive] drives one task to its end, apart from any transport or
//     actor: it polls tasks/get at the server's interval (bounded, its first
//     wait jittered), echoes the latest requestState exactly, answers input
//     requests through tasks/update (each key once), sends tasks/cancel once
//     when the caller gives up (unless Config.Leave leaves the task
//     running), and hands each answer to Config.Keep, so that polling can
//     resume from it after the connection, the process or the member is
//     gone. A [Sender] sends one JSON-RPC request on the caller's
//     connection; over Streamable HTTP it sets the Mcp-Name header to the
//     task id it is given.
//   - [Session] is the extension's side of one session: its requests
//     waiting for their answers (ids below -[IDBase]), the tool calls whose
//     answer may be a task, the notifications of each task waiting for its
//     driver, a task's subscriptions/listen stream ([Session.Listen]), and
//     the cancel of a task nobody will drive ([Session.Abandon]).
//   - [Store], [Record] and [DirStore] keep pending tasks for a program
//     that restarts (package plugin names them TaskStore, TaskRecord,
//     DirTaskStore).
//
// Why this package and not a new one: it held the driver already, imports
// nothing of the actors, and is what every user of the extension (the
// connection actor, package plugin's options, the grid's grain) imports;
// growing it keeps the extension in one place without a second name for
// it.
//
// How the extension meets the session, and how the next one plugs in the
// same way. The connection hands the extension two things and asks one:
//
//   - a [Wire]: the session's connection to write on as it is (requests
//     with ids of the extension's own range, notifications), and the
//     session's envelope (_meta) for their params;
//   - every message the session reads passes [Session.Take] before go-sdk
//     sees it: what the extension claims (its answers, its notifications)
//     never reaches go-sdk, and the rest costs a type switch;
//   - a tools/call answer of resultType "task" is the extension's to drive
//     ([Session.Expect] keeps it for the call); how the call ends is
//     reported back to the connection as the call's reply, or as the call
//     handed back to resume on the next session.
//
// An extension to come (MCP Apps' ui resources, resource subscriptions, an
// older revision's session as a dialect of the session) gets the same
// three: a Wire of its own, a Take in the connection's read path for the
// messages it claims, and the resultType or method it drives. It lives in
// a package of its own beside this one, and the core's call and messages
// carry no field of it.
//
// Not yet moved here: the driver's glue in package actors (actors/tasks.go:
// which answer is a task, the task's deadline, its telemetry span, the
// hand-back of a task to resume) and the task fields of messages.CallTool
// (Task, TaskDeadline, TaskLimit, WantTask).
package tasks
