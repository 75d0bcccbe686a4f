// Package transportext is what package transport's connections offer the
// module's own packages beyond mcp.Transport, and the helpers that read
// what they report. The module's packages ask an opened transport for
// these by type assertion; no user needs them:
//
//   - [Aborter], [ChildExit], [StderrTail]: a stdio child's forced end,
//     its exit status and its last stderr lines, for error messages.
//   - [CutStreamRetrier]: a Streamable HTTP transport that re-sends a
//     direct call whose answer's stream was cut.
//   - [NotificationDropper]: a connection's count of the notifications
//     its flood gate dropped.
//   - [ReadsAsError], [RedactURL], [HTTPStatusOf]: how a stderr line, a
//     URL and an HTTP error answer are read for an error message.
//
// The direct tools/call path of a transport is
// internal/core/directcall's CallerOf.
package transportext
