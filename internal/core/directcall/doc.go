// Package directcall is the direct tools/call path beneath go-sdk's
// ClientSession: a tool call sent and answered on the transport's own
// connection, and its result decoded into the one go-sdk would give,
// without go-sdk's two decodings of every answer. The session keeps
// everything else (discovery, tools/list, notifications, progress), and any
// call the path leaves to it ([ErrCallOnSession]).
//
// transport decides which server and how to reach it; this package is the
// part of an MCP client that transport's connections carry:
//
//   - [Decoder] and [AppendMessage]: JSON-RPC messages one a line, read
//     and written as go-sdk's jsonrpc package reads and writes them, with
//     one reused decoder instead of one per message.
//   - [DecodeCallToolResult]: a tools/call result, as go-sdk decodes it.
//   - One core for every direct call (core.go): its id (negative, below
//     -2^40, never one of go-sdk's), the _meta envelope learnt from the
//     first request go-sdk writes, cancellation (the call returns the
//     context's error at once, and notifications/cancelled follows off the
//     caller's path, as go-sdk sends it), the errors of a closed
//     connection, and the answer's JSON-RPC error wrapped as go-sdk wraps
//     it.
//   - A round trip per transport: [Lines] for stdio (one line out, the
//     answer line with its id matched by the connection's reader), and
//     [HTTP] for Streamable HTTP (a POST with go-sdk's client and every
//     header of go-sdk's POST, answered by a JSON body or an event stream,
//     whose other messages go to the session before the result).
//
// A [Caller] is what the connection actor calls; [CallerOf]
// hands over the one of a transport it opened. resources/read takes the
// same path ([Reader], which [ReaderOf] hands over), its result
// decoded by go-sdk's own ReadResourceResult decoding. What the path copies from
// go-sdk (the resultType template, the event-stream reading, the headers
// of the POST, the _meta envelope, the error texts) is pinned by tests
// that run go-sdk's own code beside this package's on the same bytes.
package directcall
