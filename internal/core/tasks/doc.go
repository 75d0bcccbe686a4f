// Package tasks drives a task of the tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks) to its end, apart from any transport or
// actor: [Drive] polls tasks/get at the server's interval (bounded, with
// jitter), echoes the latest requestState exactly, answers input requests
// through tasks/update (each key once), sends tasks/cancel once when the
// caller gives up (unless Config.Leave leaves the task running), and hands
// each answer to Config.Keep, so that polling can resume from it after the
// connection, the process or the member is gone.
//
// A [Sender] sends one JSON-RPC request on the caller's connection; over
// Streamable HTTP it sets the Mcp-Name header to the task id it is given.
package tasks
