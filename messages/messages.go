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

// Ready is the reply to [AwaitReady] and [RefreshTools]: the server's
// discovered tools, in the order tools/list gave them, and who the server
// says it is. A connection sends it again, unasked, to the watchers of its
// tool list ([WatchTools]) when the list changes.
type Ready struct {
	Tools           []*mcp.Tool
	ServerInfo      *mcp.Implementation
	ProtocolVersion string
	// ToolsTTL is how long the server said the list stays fresh (the
	// smallest positive ttlMs of its tools/list pages); zero when it gave
	// no such hint.
	ToolsTTL time.Duration
	// ToolsCacheScope is the list's cacheScope (SEP-2549): "private" when
	// any page said so, else "public" when one said so, else "".
	ToolsCacheScope string
	// Instructions is what the server's server/discover answer said about
	// using it; "" when it said nothing.
	Instructions string
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
	// Progress asks for the server's progress: the call carries a progress
	// token, and every notifications/progress the server sends for it
	// reaches the sender as a [*CallProgress] with the call's ID, in order,
	// before the reply.
	Progress bool
	// IdleTimeout, if positive, fails the call (and cancels it on the
	// server) once this long has passed without progress from the server;
	// the call then carries a progress token whether or not Progress is
	// set. Deadline stays the hard limit.
	IdleTimeout time.Duration
	// Limit names what set Deadline, for the failure that says it passed:
	// "the caller's deadline", "the call timeout of 5m0s". Empty: "the
	// call's deadline".
	Limit string
	// Ext is the call's state in an extension that runs beside the
	// connection's core, nil for none. The tasks extension's (SEP-2663)
	// says how long a task may run, whether the sender wants a
	// [*CallTask], and which task the call resumes instead of running the
	// tool again. The core reads only [CallExt.Resumes]. It crosses the
	// wire as its extension's JSON, read back by the reader the extension
	// registered with the grid's wire code.
	Ext CallExt
	// TraceContext is the caller's OpenTelemetry context as W3C fields
	// (traceparent, tracestate, baggage), so that the connection's span of
	// the call is the caller span's child across the actor hop, even from
	// another member. Nil when the caller does not trace.
	TraceContext map[string]string
}

// CallExt is an extension's state of a call ([CallTool.Ext]), opaque to
// the connection's core. Its JSON is its wire form.
type CallExt interface {
	// ExtName is the extension's name (its capability's), which names the
	// reader of the wire form.
	ExtName() string
	// Resumes reports whether the call resumes held work (a task the
	// server runs already) rather than run the tool: such a call is never
	// dropped when its caller gives up, but resumed only to be cancelled.
	Resumes() bool
}

// TaskState is a task (SEP-2663, io.modelcontextprotocol/tasks) as its
// server last described it: what polling it needs to resume on another
// connection or in another process. Its JSON form uses the SEP's names.
type TaskState struct {
	// ID is the task's id (taskId).
	ID string `json:"taskId"`
	// Status is the task's last status: working, input_required,
	// completed, failed or cancelled.
	Status string `json:"status"`
	// StatusMessage is the server's last word on the task, if any.
	StatusMessage string `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are the server's times of the task.
	CreatedAt     time.Time `json:"createdAt"`
	LastUpdatedAt time.Time `json:"lastUpdatedAt"`
	// TTLSeconds is the task's time to live from CreatedAt, in whole
	// seconds (a server's ttlMs rounded up); nil for none.
	TTLSeconds *int64 `json:"ttlSeconds"`
	// PollIntervalMilliseconds is the server's suggested wait between
	// polls (its pollIntervalMs); nil for none.
	PollIntervalMilliseconds *int64 `json:"pollIntervalMilliseconds,omitempty"`
	// RequestState is the opaque value to echo on the next request about
	// the task, exactly; nil when the last answer carried none.
	RequestState *string `json:"requestState,omitempty"`
}

// CallProgress is a progress notification of the server for call ID,
// sent by the connection to the sender of a [CallTool] that asked for
// Progress. No reply. Progress that arrives after the call's reply is
// dropped.
type CallProgress struct {
	ID       uint64
	Progress float64
	// Total is zero when the server does not know it.
	Total   float64
	Message string
}

// CallTask tells the sender of a [CallTool] that asked for it (the tasks
// extension's state in [CallTool.Ext]) that the
// server answered call ID with the task TaskID (SEP-2663), which the
// connection now drives. No reply; it comes before the call's reply.
type CallTask struct {
	ID     uint64
	TaskID string
}

// CallToolReply answers [CallTool]: exactly one of Result and Failure is set.
type CallToolReply struct {
	ID      uint64
	Result  *mcp.CallToolResult
	Failure *Failure
}

// RefreshTools asks the connection to list its tools again now (the
// list's TTL has passed). Reply: [*Ready] with the new list, or with the
// list in force when listing fails or the connection is not ready; a
// [*Failure] once the connection has ended.
type RefreshTools struct{}

// WatchTools asks a supervisor for the tool list of every later change
// (a live change or a reconnection): each new list reaches the sender as an
// unasked [*Ready]. Sent by facades on other members, which do not hear
// the supervisor's callbacks. No reply; a sender that is already watching
// is not added twice, and one on a member that dies is dropped.
type WatchTools struct{}

// Reconnect asks a supervisor to try its failed connection again now: one
// that will not be retried by itself (a server that did not speak
// 2026-07-28, a command that could not start) or whose breaker is open
// after its restart budget was spent. The budget and the cool-down start
// anew. Sent by the host through its facade. Reply: [*Ready] once a
// session is ready (at once when one is), or the [*Failure] of the try.
type Reconnect struct{}

// HandedOver is sent by a cluster grain (package grid's) that has stopped,
// its member leaving or the grain moving, to each facade on another member
// that sent it calls, once its supervisor and connection have stopped
// (every call they received answered, or bounced as never sent) and the
// connection is closed: whatever the facade still waits for from it never
// reached its connection, and may be sent to the next home. No reply.
type HandedOver struct{}

// UnwatchTools ends the sender's [WatchTools]. No reply.
type UnwatchTools struct{}

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
// Why is kept as data too (Cause and the fields beside it), so that the
// error a caller gets from it matches errors.Is and errors.As as the
// original did, on this member or another: see [Failure.Unwrap]. Inside
// one process it keeps the original error itself as well (Err).
type Failure struct {
	Kind FailureKind
	// Op is the operation, e.g. `tools/call "add"` or "connect".
	Op string
	// Message says what happened, with the server's stderr tail when known.
	Message string
	// Cause says why, as data; empty when nothing more is known than
	// Message.
	Cause FailureCause
	// RPC is the server's JSON-RPC error, when Cause is [CauseServerError].
	RPC *RPCError
	// CircuitOpen: the restart budget is spent and the connection waits
	// for its cool-down (the message says until when); Cause stays the
	// last failure's. Package plugin maps it to its ErrCircuitOpen.
	CircuitOpen bool
	// Exit is how the server's child exited, when the failure is its exit
	// ("exit status 1", "killed by signal SIGKILL"); empty otherwise. It
	// adds to Cause (a call the child exited under is still
	// [CauseConnectionLost]) and matches nothing.
	Exit string
	// Unreachable: the server could not be reached (nothing accepted the
	// connection, its host is not found, TLS was refused, no answer in
	// time). It adds to Cause and matches nothing.
	Unreachable bool
	// Err is the error the failure was made of, when it was made from one
	// in this process (a *transport.SpawnError, transport.ErrNotSupported,
	// the server's *jsonrpc.Error, an auth error, ...): errors.Is and
	// errors.As reach it and what it wraps. It is the one field that is
	// not plain data, and it never crosses the wire as it is: a wire form
	// carries Cause and the fields beside it (a token refusal's as well),
	// and on the other member the wire code rebuilds what survives: the
	// *auth.TokenError of [CauseTokenRefused], transport.ErrMessageTooLarge
	// for [CauseMessageTooLarge]; nil for any other cause. Nil too when the
	// failure was decided without an error (a deadline's timer, a closed
	// connection).
	Err error
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

// IgnoreDeadLetterLogging: progress for a caller that gave up reaches
// nobody, as expected.
func (*CallProgress) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [CallProgress.IgnoreDeadLetterLogging].
func (*CallTask) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: an unwatch after the connection stopped has
// nothing left to end.
func (*UnwatchTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: a facade may ask for a new list, or watch it,
// as the connection stops; the dead letter's answer tells it so.
func (*RefreshTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [RefreshTools.IgnoreDeadLetterLogging].
func (*WatchTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [RefreshTools.IgnoreDeadLetterLogging].
func (*Reconnect) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: a facade closed meanwhile waits for nothing.
func (*HandedOver) IgnoreDeadLetterLogging() {}
