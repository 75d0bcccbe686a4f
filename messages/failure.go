package messages

import (
	"context"
	"encoding/json"
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
	// have reached the server. Package plugin maps it to its
	// ErrConnectionLost.
	CauseConnectionLost FailureCause = "connection_lost"
	// CauseServerError: the server answered a JSON-RPC error, kept in
	// [Failure.RPC]. errors.As finds it as a *jsonrpc.Error.
	CauseServerError FailureCause = "server_error"
	// CauseProtocolVersion: the server does not speak the one protocol
	// revision this client does. Package plugin maps it to its
	// ErrProtocolVersion.
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
	// answered the call; the tool is not called again. Package plugin maps
	// it to its ErrTaskLost.
	CauseTaskLost FailureCause = "task_lost"
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
// failure: its Err, then the error its Cause stands for when that error is
// the standard library's or go-sdk's (context.DeadlineExceeded,
// context.Canceled, a *jsonrpc.Error rebuilt from RPC), so that a failure
// that crossed the wire still matches what its cause matched. Err comes
// first, so errors.As finds the server's own *jsonrpc.Error before the
// rebuilt copy. The causes are data: the module's sentinels of them (the
// plugin's ErrConnectionLost, ErrProtocolVersion, ErrCircuitOpen,
// ErrTaskLost) are matched where a failure meets its caller, by
// plugin.Error.
func (f *Failure) Unwrap() []error {
	var errs []error
	if f.Err != nil {
		errs = append(errs, f.Err)
	}
	return append(errs, f.causes()...)
}

func (f *Failure) causes() []error {
	switch f.Cause {
	case CauseDeadline:
		return []error{context.DeadlineExceeded}
	case CauseCanceled:
		return []error{context.Canceled}
	case CauseServerError:
		if f.RPC != nil {
			return []error{&jsonrpc.Error{Code: f.RPC.Code, Message: f.RPC.Message, Data: f.RPC.Data}}
		}
	}
	return nil
}
