package messages

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AwaitReady asks a connection for its tools. Sent by the facade once after
// spawning. Reply: [*Ready] when the connection is (or becomes) ready, or
// [*Failure] when connecting failed.
type AwaitReady struct{}

// Ready is the reply to [AwaitReady]: the server's discovered tools, in the
// order tools/list gave them, and who the server says it is.
type Ready struct {
	Tools           []*mcp.Tool
	ServerInfo      *mcp.Implementation
	ProtocolVersion string
}

// CallTool asks the connection to run one tool on the server. Sent by the
// facade (or any actor). Reply: [*CallToolReply] with the same ID.
type CallTool struct {
	// ID identifies the call to [CancelCall] and in the reply.
	ID uint64
	// Name is the tool's name.
	Name string
	// Arguments is a JSON object, or empty for no arguments. The sender
	// validates it; the connection sends it as it is.
	Arguments json.RawMessage
	// Deadline, if not zero, bounds the call; past it the call fails.
	Deadline time.Time
}

// CallToolReply answers [CallTool]: exactly one of Result and Failure is set.
type CallToolReply struct {
	ID      uint64
	Result  *mcp.CallToolResult
	Failure *Failure
}

// CancelCall tells the connection that the caller of call ID gave up: the call
// is cancelled on the server and its reply, if any, is dropped. No reply.
type CancelCall struct {
	ID uint64
}

// FailureKind classifies a [Failure]; it maps one to one onto the plugin's
// error kinds.
type FailureKind string

// The kinds of [Failure].
const (
	FailureInternal     FailureKind = "internal"
	FailureIO           FailureKind = "io"
	FailureNotSupported FailureKind = "not_supported"
)

// Failure is an error as data: what kind, what was being done, and why.
type Failure struct {
	Kind FailureKind
	// Op is the operation, e.g. `tools/call "add"` or "connect".
	Op string
	// Message says what happened, with the server's stderr tail when known.
	Message string
}

func (f *Failure) Error() string {
	if f.Op == "" {
		return f.Message
	}
	return f.Op + ": " + f.Message
}

// IgnoreDeadLetterLogging marks a reply whose caller may have given up
// already: it reaching nobody is expected, not worth a log line. (The method
// satisfies protoactor's actor.IgnoreDeadLetterLogging.)
func (*Ready) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*CallToolReply) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*Failure) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: a cancellation that arrives after the connection
// stopped has nothing left to cancel.
func (*CancelCall) IgnoreDeadLetterLogging() {}
