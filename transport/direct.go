package transport

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// DirectCaller hands over the direct tools/call path of t, a transport
// [Stdio.Open] or [StreamableHTTP.Open] returned: tools/call sent on the
// transport's own connection, beneath go-sdk's session (see package
// internal/core/directcall). It is nil when t has none: another transport,
// DisableDirectCalls, or MCPCONNECTOR_DIRECT_CALLS=0. The connection actor
// calls it once per connection attempt.
func DirectCaller(t mcp.Transport) directcall.Caller {
	switch t := t.(type) {
	case *stdioTransport:
		if t.direct {
			return (*stdioCaller)(t)
		}
	case *httpTransport:
		return t
	}
	return nil
}

// DirectCallsEnv is the environment variable that, set to "0", turns the
// direct path off for every server of the process. It is read once, when
// the package is initialised, as go-sdk reads MCPGODEBUG.
const DirectCallsEnv = "MCPCONNECTOR_DIRECT_CALLS"

// directCallsOff is [DirectCallsEnv]'s switch, read once.
var directCallsOff = os.Getenv(DirectCallsEnv) == "0"

// directCallsAllowed reports whether the environment leaves the direct
// path on.
func directCallsAllowed() bool { return !directCallsOff }

// stdioCaller is a stdio transport's direct path, on the connection of its
// last Connect.
type stdioCaller stdioTransport

func (t *stdioCaller) CallsDirect() bool { return true }

func (t *stdioCaller) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	c := t.conn.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: not connected", ErrNotSent)
	}
	return c.direct.CallTool(ctx, params, attempted)
}

// httpTransport is go-sdk's Streamable HTTP client transport with direct
// tool calls: its connection is wrapped in a [directcall.HTTP], which
// learns the envelope and takes the messages of direct calls' streams.
type httpTransport struct {
	sdk  *mcp.StreamableClientTransport
	conn atomic.Pointer[directcall.HTTP]
	// repeatable is RetryCutStreams's; nil means no call is re-sent.
	repeatable atomic.Pointer[func(tool string) bool]
}

// CutStreamRetrier is a transport, as [StreamableHTTP.Open] returns it,
// whose direct tool calls may be re-sent once when the answer's event
// stream breaks before the answer (the server ended it, or the connection
// under it broke): with a new request id, the same arguments and _meta,
// when repeatable says the tool is safe to run again. Any other failure,
// and a second cut, fails the call as before. The plugin asks for it with
// plugin.WithRetryIdempotent, for tools annotated readOnlyHint or
// idempotentHint. Calls sent through go-sdk's session (DisableDirectCalls,
// MCPCONNECTOR_DIRECT_CALLS=0, the cases the direct path leaves to it) are
// never re-sent: go-sdk resumes a cut stream with Last-Event-ID instead,
// when the server gave its events ids.
type CutStreamRetrier interface {
	RetryCutStreams(repeatable func(tool string) bool)
}

// RetryCutStreams implements [CutStreamRetrier]; it applies to every
// connection of the transport, from the next call on.
func (t *httpTransport) RetryCutStreams(repeatable func(tool string) bool) {
	if repeatable == nil {
		t.repeatable.Store(nil)
		return
	}
	t.repeatable.Store(&repeatable)
}

// Connect connects go-sdk's transport and wraps its connection.
func (t *httpTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.sdk.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := directcall.NewHTTP(inner, t.sdk, directcall.HTTPConfig{TooLarge: ErrMessageTooLarge, Repeatable: &t.repeatable})
	t.conn.Store(c)
	return c, nil
}

// CallsDirect reports whether the next tool call can take the direct path:
// the connection is up, its envelope known, and no tool binds arguments to
// headers.
func (t *httpTransport) CallsDirect() bool {
	c := t.conn.Load()
	return c != nil && c.CallsDirect()
}

// CallTool runs the direct path on the connection of the last Connect.
func (t *httpTransport) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	c := t.conn.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: not connected", ErrNotSent)
	}
	return c.CallTool(ctx, params, attempted)
}
