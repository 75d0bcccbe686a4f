package actors

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/failcause"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// classify turns go-sdk's answer to a tools/call into a reply. Results that
// ask for more rounds (SEP-2322 input_required, SEP-2663 task) are not driven
// further: they are NotSupported. (A task is driven before it comes here
// when ConnectionConfig.Extensions has the tasks extension:
// internal/core/tasks.)
func classify(msg *messages.CallTool, res *mcp.CallToolResult) *messages.CallToolReply {
	if res == nil {
		return callFailure(msg, messages.FailureInternal, "server returned no result")
	}
	if res.NeedsInput() {
		return callFailure(msg, messages.FailureNotSupported, `server answered resultType "input_required" (SEP-2322), which this client does not drive`)
	}
	if len(res.Content) == 0 && res.StructuredContent == nil {
		// go-sdk keeps an unknown resultType only in the result's JSON form;
		// an empty result is the only shape a task or unknown answer takes.
		switch rt := resultType(res); rt {
		case "", "complete":
		case "task":
			return callFailure(msg, messages.FailureNotSupported, `server answered resultType "task" (SEP-2663), which this client does not drive`)
		default:
			return callFailure(msg, messages.FailureInternal, "server answered an unrecognised resultType "+quote(rt))
		}
	}
	return &messages.CallToolReply{ID: msg.ID, Result: res}
}

// brokenTransport reports whether err says the exchange itself failed (the
// stream closed, the endpoint is unreachable), rather than the server
// answering with an error or the caller giving up.
func brokenTransport(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		// go-sdk reports a failed write as a wire error of its own code.
		return werr.Code == codeRejectedByTransport
	}
	var uerr *url.Error
	var nerr net.Error
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) ||
		errors.As(err, &uerr) || errors.As(err, &nerr)
}

// codeMissingCapability is the server's error of a request it serves only
// to a client that declares a capability this one did not
// (MISSING_REQUIRED_CLIENT_CAPABILITY of the tasks extension, as
// accepted).
const codeMissingCapability = -32021

// tasksExtension is the tasks extension's name (SEP-2663), which a server
// that runs a tool only as a task requires.
const tasksExtension = "io.modelcontextprotocol/tasks"

// needsTasks reports whether err is the server's refusal of a call it
// serves only as a task, to a client that did not declare the tasks
// extension: codeMissingCapability, its data naming the extension.
func needsTasks(err error) bool {
	re, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok || re.Code != codeMissingCapability {
		return false
	}
	var data struct {
		Required struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if json.Unmarshal(re.Data, &data) != nil {
		return false
	}
	_, ok = data.Required.Extensions[tasksExtension]
	return ok
}

// go-sdk's own JSON-RPC codes for a connection that is ending or a
// message its transport could not send: no server sent them.
const (
	codeClientClosing       = -32003
	codeServerClosing       = -32004
	codeRejectedByTransport = -32005
)

// causeOf is f with why err happened as data (failcause.Of)
// and err itself as kept: go-sdk's own codes of a broken connection count
// as no answer of the server's, and the transport's stand-in for an
// oversized message as that message.
func causeOf(f *messages.Failure, err error) *messages.Failure {
	failcause.Of(f, err)
	if f.Cause == messages.CauseServerError {
		switch {
		case sdkCode(f.RPC.Code):
			f.Cause, f.RPC = messages.CauseNone, nil
		case tooLargeStandIn(f.RPC.Message):
			// The transport answers an oversized message in the server's
			// stead, as a JSON-RPC error that names the limit.
			f.Cause, f.RPC = messages.CauseMessageTooLarge, nil
		case noAnswerStandIn(f.RPC.Message):
			// The transport's answer to a POST that got none: the call
			// may have reached the server, and its answer is lost.
			f.Cause, f.RPC = messages.CauseConnectionLost, nil
		case tooDeepStandIn(f.RPC.Message):
			// Likewise an answer nested past transport.MaxNesting: the
			// server sent an answer, not this error.
			f.Cause, f.RPC = messages.CauseNone, nil
		}
	}
	f.Err = failcause.Err(f.Cause, kept(err))
	return f
}

// sdkCode reports whether code is one of go-sdk's own, of a connection
// that is ending or a message its transport could not send: no server
// sent it.
func sdkCode(code int64) bool {
	return code == codeClientClosing || code == codeServerClosing || code == codeRejectedByTransport
}

// tooLargeStandIn reports whether a JSON-RPC error's message is the
// transport's answer, in the server's stead, to a message over its limit.
func tooLargeStandIn(message string) bool {
	return strings.Contains(message, transport.ErrMessageTooLarge.Error())
}

// tooDeepStandIn reports whether a JSON-RPC error's message is the
// transport's answer, in the server's stead, to an answer nested past
// transport.MaxNesting.
func tooDeepStandIn(message string) bool {
	return strings.Contains(message, transport.ErrMessageTooDeep.Error())
}

// noAnswerStandIn reports whether a JSON-RPC error's message is the
// transport's answer, in the server's stead, to a POST that got no answer
// (the connection under it broke) while the session goes on.
func noAnswerStandIn(message string) bool {
	return strings.HasPrefix(message, noAnswerPrefix)
}

// noAnswerPrefix begins the message of the Streamable HTTP transport's
// stand-in for a POST that got no answer.
const noAnswerPrefix = "transport: no answer to the POST"

// noAnswer reports whether err holds the transport's stand-in for a POST
// that got no answer (noAnswerStandIn).
func noAnswer(err error) bool {
	re, ok := errors.AsType[*jsonrpc.Error](err)
	return ok && noAnswerStandIn(re.Message)
}

// standIn reports whether err is a *jsonrpc.Error no server sent (sdkCode,
// tooLargeStandIn, tooDeepStandIn, noAnswerStandIn).
func standIn(err error) bool {
	re, ok := err.(*jsonrpc.Error)
	return ok && (sdkCode(re.Code) || tooLargeStandIn(re.Message) || tooDeepStandIn(re.Message) || noAnswerStandIn(re.Message))
}

// kept is err as a failure keeps it in this process (messages.Failure.Err),
// so that errors.Is and errors.As reach what it wraps (a
// *transport.SpawnError, an auth error, a net error), with one exception:
// the *jsonrpc.Errors no server sent (standIn) are left out of its tree,
// so that a *jsonrpc.Error found in a failure is always the server's (the
// failure's Cause says what they stood for). Nil for such an error alone.
func kept(err error) error {
	switch {
	case err == nil || standIn(err):
		return nil
	case !holdsStandIn(err):
		return err
	}
	var under []error
	for _, e := range unwrapAll(err) {
		if e = kept(e); e != nil {
			under = append(under, e)
		}
	}
	return &withoutStandIns{text: err.Error(), under: under}
}

// holdsStandIn reports whether err's tree holds a standIn.
func holdsStandIn(err error) bool {
	if standIn(err) {
		return true
	}
	for _, e := range unwrapAll(err) {
		if holdsStandIn(e) {
			return true
		}
	}
	return false
}

// unwrapAll is what err wraps, one error or many.
func unwrapAll(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return []error{e}
		}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// withoutStandIns is an error as kept: its text, and what it wrapped but
// the stand-ins.
type withoutStandIns struct {
	text  string
	under []error
}

func (e *withoutStandIns) Error() string   { return e.text }
func (e *withoutStandIns) Unwrap() []error { return e.under }

func resultType(res *mcp.CallToolResult) string {
	b, err := json.Marshal(res)
	if err != nil {
		return ""
	}
	var w struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(b, &w)
	return w.ResultType
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// quotedServerBytes matches go-sdk's quote of a message it could not decode.
var quotedServerBytes = regexp.MustCompile(`cannot unmarshal "(?:[^"\\]|\\.)*"`)

// elideServerBytes drops the server's own bytes from a decode error: they
// may be tool output, which is never logged above debug level.
func elideServerBytes(s string) string {
	return quotedServerBytes.ReplaceAllString(s, "cannot unmarshal (server bytes elided)")
}
