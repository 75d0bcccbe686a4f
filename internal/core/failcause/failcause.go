// Package failcause reads why an error happened into a [messages.Failure],
// as data: the one place that knows which errors of transport and auth
// stand behind a [messages.FailureCause], so that package messages needs
// neither. The connection's actors use it where an error becomes a
// failure; the grid's wire code does the reverse, rebuilding the error of
// a cause that arrives.
package failcause

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Of keeps err in f's Err and reads why it happened into f's Cause (and
// RPC), for the first cause err matches in this order: a token refusal
// (an *auth.TokenError, which stays in Err), an oversized message, a
// deadline, a cancellation, the server's JSON-RPC error. It leaves the
// Cause as it is when err matches none, and f as it is when err is nil.
// errors.As stops at the first *jsonrpc.Error, so go-sdk's own wire codes
// (a write the transport rejected) count as the server's only when nothing
// else matched. It returns f.
func Of(f *messages.Failure, err error) *messages.Failure {
	var te *auth.TokenError
	var re *jsonrpc.Error
	if err != nil {
		f.Err = err
	}
	switch {
	case err == nil:
	case errors.As(err, &te):
		f.Cause = messages.CauseTokenRefused
	case errors.Is(err, transport.ErrMessageTooLarge):
		f.Cause = messages.CauseMessageTooLarge
	case errors.Is(err, context.DeadlineExceeded):
		f.Cause = messages.CauseDeadline
	case errors.Is(err, context.Canceled):
		f.Cause = messages.CauseCanceled
	case errors.As(err, &re):
		f.Cause, f.RPC = messages.CauseServerError, &messages.RPCError{Code: re.Code, Message: re.Message, Data: re.Data}
	}
	return f
}

// Err is err as a failure of cause keeps it in its Err: err itself, unless
// cause stands for transport.ErrMessageTooLarge and err does not match it
// (the transport said so in a stand-in that was left out of err): then an
// error with err's text that matches both, or the sentinel alone for a nil
// err. The failure then matches what its cause says, as it does when it
// arrives over the wire.
func Err(cause messages.FailureCause, err error) error {
	if cause != messages.CauseMessageTooLarge || errors.Is(err, transport.ErrMessageTooLarge) {
		return err
	}
	if err == nil {
		return transport.ErrMessageTooLarge
	}
	return &withSentinel{err: err, sentinel: transport.ErrMessageTooLarge}
}

// withSentinel is err, which reads as it did, beside the sentinel its
// failure's cause stands for.
type withSentinel struct{ err, sentinel error }

func (w *withSentinel) Error() string   { return w.err.Error() }
func (w *withSentinel) Unwrap() []error { return []error{w.err, w.sentinel} }
