package transportext

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Aborter is implemented by the transports transport.Stdio.Open returns:
// Abort ends a connection attempt that ran out of time without the grace
// Close gives a server (a closed stdin, then SIGTERM, each waited for).
type Aborter interface {
	Abort()
}

// ChildExit is implemented by the transports transport.Stdio.Open returns:
// once the server's output has ended, it says how the child exited ("exit
// status 3", "killed by signal SIGKILL"), waiting up to wait for the exit;
// "" when the child still runs, or when that cannot be told.
type ChildExit interface {
	ChildExit(wait time.Duration) string
}

// StderrTail is implemented by the transports transport.Stdio.Open
// returns: it gives the child's last stderr lines, oldest first, for error
// messages, after the first line that reads as an error ([ReadsAsError])
// when it is no longer among them.
type StderrTail interface {
	StderrTail() []string
}

// CutStreamRetrier is a transport, as transport.StreamableHTTP.Open
// returns it, whose direct tool calls may be re-sent once when the
// answer's event stream breaks before the answer (the server ended it, or
// the connection under it broke): with a new request id, the same
// arguments and _meta, when repeatable says the tool is safe to run again.
// Any other failure, and a second cut, fails the call as before. The
// plugin asks for it with plugin.WithRetryIdempotent, for tools annotated
// readOnlyHint or idempotentHint. Calls sent through go-sdk's session
// (DisableDirectCalls, MCPCONNECTOR_DIRECT_CALLS=0, the cases the direct
// path leaves to it) are never re-sent: go-sdk resumes a cut stream with
// Last-Event-ID instead, when the server gave its events ids.
type CutStreamRetrier interface {
	RetryCutStreams(repeatable func(tool string) bool)
}

// errorWords are what make a line read as an error, in lower case.
var errorWords = []string{"error", "fatal", "exception", "panic", "required", "not found"}

// ReadsAsError reports whether a line of a server's stderr reads as an
// error: it holds one of "error", "fatal", "exception", "panic",
// "required" or "not found", in any case. An error message quotes the
// NotificationDropper is a connection that drops progress and logging
// notifications beyond its budget (package transport's flood gate); the
// count is for a status or a metric.
type NotificationDropper interface {
	DroppedNotifications() int64
}

// first such line of a child's stderr before its last lines.
func ReadsAsError(line string) bool {
	l := strings.ToLower(line)
	for _, w := range errorWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// RedactURL is raw without user information, query or fragment, which may
// hold credentials; a raw that does not parse is quoted as it is.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return strconv.Quote(raw)
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// HTTPStatusPrefix begins the message of the JSON-RPC error that answers
// a call whose POST got an HTTP error status ([HTTPStatusOf] reads it).
const HTTPStatusPrefix = "transport: HTTP "

// HTTPStatusOf is the HTTP status (400 or more) a Streamable HTTP server
// answered a request's POST with, when err is, or wraps, the JSON-RPC error
// that stands for that answer; 0 when err is none: a JSON-RPC error the
// server sent itself in a 200 answer, or no answer at all. The error's
// code is the server's own when its body held a JSON-RPC error.
func HTTPStatusOf(err error) int {
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		return 0
	}
	rest, ok := strings.CutPrefix(re.Message, HTTPStatusPrefix)
	if !ok || len(rest) < 3 {
		return 0
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil || code < 400 || (len(rest) > 3 && rest[3] != ' ' && rest[3] != ':') {
		return 0
	}
	return code
}

// mcpNameKey carries the Mcp-Name header of a request written on a
// Streamable HTTP connection, for the requests whose name go-sdk does not
// know (WithMcpName).
type mcpNameKey struct{}

// WithMcpName returns ctx carrying name as the Mcp-Name header (SEP-2243)
// of the request written with it on a connection transport.StreamableHTTP
// opened: the task id of a tasks/get, tasks/update or tasks/cancel
// (SEP-2663), which go-sdk names no header for. Other transports ignore it.
func WithMcpName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, mcpNameKey{}, name)
}

// McpNameOf is the name WithMcpName put in ctx, if any.
func McpNameOf(ctx context.Context) (string, bool) {
	name, ok := ctx.Value(mcpNameKey{}).(string)
	return name, ok && name != ""
}
