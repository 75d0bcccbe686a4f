package plugin

import (
	"context"
	"errors"
	"strings"

	"github.com/cuca-go/mcpconnector/messages"
)

// Kind classifies an [Error], mirroring the variants of the plugin
// contract's PluginError (Io, NotSupported, Validation, Internal), and
// Denied for a call the host refused.
type Kind int

// The kinds of [Error].
const (
	// KindInternal: discovery or tools/list failed, a tool call failed, the
	// connection actor is gone or lost the reply, or the server answered
	// something unrecognised.
	KindInternal Kind = iota
	// KindIO: the stdio child process could not be spawned (errors.As
	// finds its *transport.SpawnError), or (in a toolbox) a manifest could
	// not be written or its directory made.
	KindIO
	// KindNotSupported: a transport that cannot be used (an SSE one
	// without [WithLegacyFallback]), or a tool call answered with
	// resultType "task" unless [WithTasks] drives it, or "input_required"
	// unless [WithInputRequired] drives it; or a task asking for input that
	// no handler of [WithInputRequired] answers.
	KindNotSupported
	// KindValidation: tool arguments are not a JSON object or null, or (in
	// a toolbox) a plugin option was given where it has no effect.
	KindValidation
	// KindDenied: the [WithApproval] function refused the call, which never
	// reached the server. Err is its reason.
	KindDenied
)

// String names the kind as it appears in error messages.
func (k Kind) String() string {
	switch k {
	case KindIO:
		return "io"
	case KindNotSupported:
		return "not supported"
	case KindValidation:
		return "validation"
	case KindDenied:
		return "denied"
	default:
		return "internal"
	}
}

// Sentinels to test an error's kind with errors.Is.
var (
	ErrInternal     = errors.New("mcp-connector: internal")
	ErrIO           = errors.New("mcp-connector: io")
	ErrNotSupported = errors.New("mcp-connector: not supported")
	ErrValidation   = errors.New("mcp-connector: validation")
	ErrDenied       = errors.New("mcp-connector: denied")
)

// Sentinels of why an error happened, beside its kind (an error matches
// both: errors.Is(err, ErrConnectionLost) and errors.Is(err, ErrInternal)
// are both true for a call the session ended under). A deadline that ended
// a call, whichever it was, matches context.DeadlineExceeded; a caller's
// cancellation matches context.Canceled; a server's JSON-RPC error is found
// by errors.As as a *jsonrpc.Error (go-sdk's), code and message intact.
var (
	// ErrConnectionLost: the session ended while the call was in flight
	// (it may have reached the server, so it is not sent again).
	ErrConnectionLost = errors.New("connection lost")
	// ErrProtocolVersion: the server does not speak MCP 2026-07-28 (it
	// may speak only older revisions). Of kind Internal, and final: the
	// server is not started again until the host asks.
	ErrProtocolVersion = errors.New("protocol version not supported")
	// ErrCircuitOpen: the restart budget is spent; the connection tries
	// again after its cool-down ([WithBreakerCoolDown]) or when asked
	// ([McpPlugin.Reconnect]).
	ErrCircuitOpen = errors.New("circuit open")
	// ErrTaskLost: with [WithTasks], the server no longer knows the task
	// that answered the call (tasks/get answered -32602), which is
	// distinct from a task that failed; the tool is not called again.
	ErrTaskLost = errors.New("task lost")
)

// ArgumentsSchema is the Schema of the [KindValidation] error for tool
// arguments that are not a JSON object.
const ArgumentsSchema = "tools/call arguments"

// Error is every error that [Connect] and [Future.Await] return.
// Use errors.Is with [ErrIO], [ErrNotSupported], [ErrValidation],
// [ErrDenied] or [ErrInternal] to branch on its Kind; errors.Is and errors.As also reach the
// cause in Err, down to the original error of a failure made in this
// process (a *transport.SpawnError, transport.ErrNotSupported, the server's
// *jsonrpc.Error, an auth error; see docs/errors.md).
type Error struct {
	Kind Kind
	// Schema names what failed validation (KindValidation only).
	Schema string
	// Server names the MCP server, e.g. `stdio "my-server"`.
	Server string
	// Op is what was being done, e.g. `tools/call "add"`.
	Op string
	// Err is the cause: a *messages.Failure when the connection failed
	// (its Unwrap gives the original error and the sentinels of its
	// Cause), else the error decided on this side.
	Err error
}

// Error reads like "mcp-connector: internal: stdio "srv": tools/call "add": cause".
// For an error of [KindInternal] whose situation is known, a short label of
// what happened comes first, the kind word after it in brackets:
// "mcp-connector: server exited (internal): ...", "server unreachable
// (internal)", "protocol refused (internal)", "connection lost (internal)",
// "circuit open (internal)", "timed out (internal)", "cancelled
// (internal)", "server error (internal)" (docs/errors.md, "What each
// situation prints").
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("mcp-connector: ")
	if label := situationOf(e); label != "" {
		b.WriteString(label + " (" + e.Kind.String() + ")")
	} else {
		b.WriteString(e.Kind.String())
	}
	if e.Schema != "" {
		b.WriteString(" (" + e.Schema + ")")
	}
	if e.Server != "" {
		b.WriteString(": " + e.Server)
	}
	if e.Op != "" {
		b.WriteString(": " + e.Op)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel of e's Kind, or of why the
// connection failed ([ErrConnectionLost], [ErrProtocolVersion],
// [ErrCircuitOpen], [ErrTaskLost]), read from the cause of the
// *messages.Failure in e's chain: a failure is data, and this is where its
// cause becomes a sentinel.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrConnectionLost, ErrProtocolVersion, ErrCircuitOpen, ErrTaskLost:
		var f *messages.Failure
		return errors.As(e.Err, &f) && causeIs(f, target)
	case ErrInternal:
		return e.Kind == KindInternal
	case ErrIO:
		return e.Kind == KindIO
	case ErrNotSupported:
		return e.Kind == KindNotSupported
	case ErrValidation:
		return e.Kind == KindValidation
	case ErrDenied:
		return e.Kind == KindDenied
	}
	return false
}

// causeIs reports whether target is the sentinel of f's cause.
func causeIs(f *messages.Failure, target error) bool {
	switch target {
	case ErrConnectionLost:
		return f.Cause == messages.CauseConnectionLost
	case ErrProtocolVersion:
		return f.Cause == messages.CauseProtocolVersion
	case ErrCircuitOpen:
		return f.CircuitOpen
	case ErrTaskLost:
		return f.Cause == messages.CauseTaskLost
	}
	return false
}

var errUnexpectedReply = errors.New("unrecognised reply from the connection actor")

// callError is the error of a call of tool, failed on this side.
func (p *McpPlugin) callError(kind Kind, tool string, err error) *Error {
	e := &Error{Kind: kind, Server: p.server, Op: messages.CallOp(tool), Err: err}
	if kind == KindValidation {
		e.Schema = ArgumentsSchema
	}
	return e
}

// failure is the [*Error] of a failure the connection reported.
func (p *McpPlugin) failure(f *messages.Failure) *Error {
	kind := KindInternal
	switch f.Kind {
	case messages.FailureIO:
		kind = KindIO
	case messages.FailureNotSupported:
		kind = KindNotSupported
	}
	return &Error{Kind: kind, Server: p.server, Err: f}
}

// situationOf is the label of what happened, for an error of KindInternal
// whose cause is known: from its [*messages.Failure], or from a call that
// waited for a server that was down. "" for any other error, which keeps
// the bare kind word.
func situationOf(e *Error) string {
	if e.Kind != KindInternal || e.Err == nil {
		return ""
	}
	var w *serverDownError
	if errors.As(e.Err, &w) {
		return w.label
	}
	var f *messages.Failure
	if errors.As(e.Err, &f) {
		return failureSituation(f)
	}
	var inner *Error
	if errors.As(e.Err, &inner) && inner != e {
		return situationOf(inner)
	}
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(e.Err, context.Canceled):
		return "cancelled"
	}
	return ""
}

// failureSituation is the label of what happened to f, "" when nothing
// more than its message is known.
func failureSituation(f *messages.Failure) string {
	switch {
	case f.CircuitOpen:
		return "circuit open"
	case f.Cause == messages.CauseProtocolVersion:
		return "protocol refused"
	case f.Exit != "":
		return "server exited"
	case f.Unreachable:
		return "server unreachable"
	}
	switch f.Cause {
	case messages.CauseConnectionLost:
		return "connection lost"
	case messages.CauseDeadline:
		return "timed out"
	case messages.CauseCanceled:
		return "cancelled"
	case messages.CauseServerError:
		return "server error"
	case messages.CauseMessageTooLarge:
		return "message too large"
	case messages.CauseTaskLost:
		return "task lost"
	case messages.CauseTokenRefused:
		return "token refused"
	}
	return ""
}

// serverDownError is why a call ended for its caller's ctx while its
// server was not ready: what happened to the server first (its label and
// words), then the caller's limit (err), which errors.Is and errors.As
// reach. The server's last failure is told, not wrapped: the call matches
// what it matched before, its caller's deadline or cancellation.
type serverDownError struct {
	label string // e.g. "server unreachable"
	words string // e.g. "the server is unreachable, reconnecting (6 tries so far; last: connect: ...)"
	err   error
}

func (e *serverDownError) Error() string { return e.words + ": " + e.err.Error() }
func (e *serverDownError) Unwrap() error { return e.err }
