package messages

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FailureCause says why a [Failure] happened, as data that crosses the
// wire. A cause whose error this package owns (a context error, its own
// sentinels, the server's *jsonrpc.Error) makes the failure match it with
// errors.Is or errors.As ([Failure.Unwrap]); the causes that stand for
// another package's error (an oversized message, a token refusal) match it
// through [Failure.Err], which the code that made the failure, or that
// read it from the wire, sets.
type FailureCause string

// The causes of a [Failure].
const (
	// CauseNone: nothing more is known than the failure's message.
	CauseNone FailureCause = ""
	// CauseDeadline: a time limit ended the call (the caller's deadline, a
	// call or tool timeout, the connect timeout, an idle timeout); the
	// message names it. Matches context.DeadlineExceeded.
	CauseDeadline FailureCause = "deadline"
	// CauseCanceled: the caller cancelled. Matches context.Canceled.
	CauseCanceled FailureCause = "canceled"
	// CauseConnectionLost: the session ended under the call, which may
	// have reached the server. Matches [ErrConnectionLost].
	CauseConnectionLost FailureCause = "connection_lost"
	// CauseServerError: the server answered a JSON-RPC error, kept in
	// [Failure.RPC]. errors.As finds it as a *jsonrpc.Error.
	CauseServerError FailureCause = "server_error"
	// CauseProtocolVersion: the server does not speak the one protocol
	// revision this client does. Matches [ErrProtocolVersion].
	CauseProtocolVersion FailureCause = "protocol_version"
	// CauseMessageTooLarge: the server sent a message over the
	// transport's limit. Its Err matches transport.ErrMessageTooLarge.
	CauseMessageTooLarge FailureCause = "message_too_large"
	// CauseTokenRefused: a token endpoint refused the grant. Its Err
	// holds the refusal, which errors.As finds as a *auth.TokenError.
	CauseTokenRefused FailureCause = "token_refused"
	// CauseNotStarted: the server's command could not be started (a
	// transport.SpawnError); no restart helps until the host asks again. A
	// child that started and exited before answering is an internal
	// failure without a cause, retried as a lost connection. The cause
	// itself matches nothing: in the process that made the failure, its
	// Err is the *transport.SpawnError (and errors.As finds it); across
	// the wire only the message says why.
	CauseNotStarted FailureCause = "not_started"
	// CauseTaskLost: the server no longer knows the task (SEP-2663) that
	// answered the call; the tool is not called again. Matches
	// [ErrTaskLost].
	CauseTaskLost FailureCause = "task_lost"
)

// Sentinels a [Failure] matches with errors.Is, by its Cause.
var (
	// ErrConnectionLost: the session ended while the call was in flight.
	ErrConnectionLost = errors.New("connection lost")
	// ErrProtocolVersion: the server does not speak MCP 2026-07-28.
	ErrProtocolVersion = errors.New("protocol version not supported")
	// ErrCircuitOpen: the connection is failed and waits for its
	// cool-down before it tries again ([Failure.CircuitOpen]).
	ErrCircuitOpen = errors.New("circuit open")
	// ErrTaskLost: the server no longer knows the task that answered the
	// call, which is distinct from a task that failed.
	ErrTaskLost = errors.New("task lost")
)

// RPCError is a JSON-RPC error object as the server sent it.
type RPCError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// CallOp is the Op of a failed tools/call of tool: `tools/call "add"`.
// Every layer names a call's operation with it.
func CallOp(tool string) string { return "tools/call " + strconv.Quote(tool) }

func (f *Failure) Error() string {
	if f.Op == "" {
		return f.Message
	}
	return f.Op + ": " + f.Message
}

// Unwrap returns the errors errors.Is and errors.As see through a
// failure: its Err, then the error its Cause stands for when this package
// owns it, a sentinel (context.DeadlineExceeded, context.Canceled,
// [ErrConnectionLost], [ErrProtocolVersion], [ErrTaskLost]) or a
// *jsonrpc.Error rebuilt from RPC, so that a failure that crossed the wire
// still matches what its cause matched; and [ErrCircuitOpen] too when
// CircuitOpen is set. Err comes first, so errors.As finds the server's own
// *jsonrpc.Error before the rebuilt copy.
func (f *Failure) Unwrap() []error {
	var errs []error
	if f.Err != nil {
		errs = append(errs, f.Err)
	}
	errs = append(errs, f.causes()...)
	if f.CircuitOpen {
		errs = append(errs, ErrCircuitOpen)
	}
	return errs
}

func (f *Failure) causes() []error {
	switch f.Cause {
	case CauseDeadline:
		return []error{context.DeadlineExceeded}
	case CauseCanceled:
		return []error{context.Canceled}
	case CauseConnectionLost:
		return []error{ErrConnectionLost}
	case CauseProtocolVersion:
		return []error{ErrProtocolVersion}
	case CauseTaskLost:
		return []error{ErrTaskLost}
	case CauseServerError:
		if f.RPC != nil {
			return []error{&jsonrpc.Error{Code: f.RPC.Code, Message: f.RPC.Message, Data: f.RPC.Data}}
		}
	}
	return nil
}
