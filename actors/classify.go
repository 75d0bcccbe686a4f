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

	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// classify turns go-sdk's answer to a tools/call into a reply. Results that
// ask for more rounds (SEP-2322 input_required, SEP-2663 task) are not driven
// further: they are NotSupported.
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

// go-sdk's own JSON-RPC codes for a connection that is ending or a
// message its transport could not send: no server sent them.
const (
	codeClientClosing       = -32003
	codeServerClosing       = -32004
	codeRejectedByTransport = -32005
)

// causeOf is f with why err happened as data (messages.Failure.CauseOf),
// where go-sdk's own codes of a broken connection count as no answer of
// the server's.
func causeOf(f *messages.Failure, err error) *messages.Failure {
	f.CauseOf(err)
	if f.Cause == messages.CauseServerError {
		switch {
		case f.RPC.Code == codeClientClosing || f.RPC.Code == codeServerClosing || f.RPC.Code == codeRejectedByTransport:
			f.Cause, f.RPC = messages.CauseNone, nil
		case strings.Contains(f.RPC.Message, transport.ErrMessageTooLarge.Error()):
			// The transport answers an oversized message in the server's
			// stead, as a JSON-RPC error that names the limit.
			f.Cause, f.RPC = messages.CauseMessageTooLarge, nil
		}
	}
	return f
}

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
