// Package messages is the protocol the McpConnection actor speaks: plain data
// structs, nothing else. A message holds strings, numbers, byte slices,
// json.RawMessage, times, and go-sdk's JSON-serialisable protocol types; never
// a channel, context or func, so that it can cross a process boundary: each
// message has a protobuf wire form, which the members of a cluster exchange,
// and MCP payloads travel in it as their JSON, losslessly. The wire forms,
// and the code that converts to and from them, are package grid's, not
// this package's: it imports no other package of this module, only the
// standard library and go-sdk's mcp and jsonrpc packages (a test keeps it
// so).
//
// Each message says who sends it and what reply it gets. Calls carry an ID,
// chosen by the sender and unique per connection, and a Deadline; a call whose
// deadline has passed is answered with a failure and never sent to the server.
// A failure is data too: a [Failure] (its [FailureKind], the operation, a
// message and its cause) travels in the reply, across the wire as well.
// Inside one process it also holds the original Go error (Failure.Err),
// which errors.Is and errors.As reach; its wire form leaves that error out,
// and the code that reads it back rebuilds only what its cause stands for.
// A cause matches the errors this package owns by itself ([Failure.Unwrap]);
// one that stands for another package's error (a token refusal, an
// oversized message) matches it through Err, which whoever made the
// failure sets.
//
// # Sections
//
//   - Connecting: [AwaitReady] → [Ready] or [Failure].
//   - Calling: [CallTool] → [CallToolReply]; [CancelCall]; [CallProgress]
//     while a call runs; [CallOp] names a call's operation in errors.
//   - Tool lists: [RefreshTools], [WatchTools], [UnwatchTools].
//   - Supervision: [Reconnect], [HandedOver].
//   - Resources, templates and prompts: [ServerRequest] → [ServerReply].
package messages
