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
//     that restarts.
//
// Why this package and not a new one: it held the driver already and
// imports nothing of the actors; growing it keeps the extension in one
// place without a second name for it.
//
//   - [Ext] is the extension as it plugs into a connection through the
//     interface of package internal/core/extension (extension.go):
//     [Ext.Declare] declares it over the module's own transports, each
//     session opens its part (a [Session] on the session's connection,
//     through the core's extension.Session), and each call its state: the
//     call's tools/call answer of resultType "task" is driven here, its
//     deadline armed (Call, the call's state in messages.CallTool.Ext),
//     the caller told the task's id (Call.Want, for a
//     detached call), the task kept (Store) and traced (telemetry.go), and
//     a task whose connection is lost handed back through the core to
//     resume on the next session, as a copy of the call's message that
//     carries the task's latest state. Package plugin installs it
//     ([NewExtension], plugin.WithTasks); the grid's grain finds its store
//     ([StoreOf]).
//
// The next extension (MCP Apps' ui resources, resource subscriptions, an
// older revision's session as a dialect of the session) plugs in the same
// way, as a package of its own beside this one; package
// internal/core/extension's doc says how.
package tasks
