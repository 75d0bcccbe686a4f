// Package messages is the protocol the McpConnection actor speaks: plain data
// structs, nothing else. A message holds strings, numbers, byte slices,
// json.RawMessage, times, and go-sdk's JSON-serialisable protocol types; never
// a channel, context or func, so that it can cross a process boundary later.
//
// Each message says who sends it and what reply it gets. Calls carry an ID,
// chosen by the sender and unique per connection, and a Deadline; a call whose
// deadline has passed is answered with a failure and never sent to the server.
package messages
