package transport

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// DirectCaller hands over the stdio transport's direct tools/call path
// (see directcall.CallerOf): nil when DisableDirectCalls or
// MCPCONNECTOR_DIRECT_CALLS=0 turned it off.
func (t *stdioTransport) DirectCaller() directcall.Caller {
	if t.direct {
		return (*stdioCaller)(t)
	}
	return nil
}

// DirectPoster hands over the direct calls of the stdio transport's
// connection for a mailbox to post (see directcall.PosterOf): nil when
// DirectCaller is, or before Connect.
func (t *stdioTransport) DirectPoster() directcall.Poster {
	if l := t.lines(); l != nil {
		return l
	}
	return nil
}

// DirectReader hands over the direct resource reads of the stdio
// transport's connection (see directcall.ReaderOf): nil when DirectPoster
// is.
func (t *stdioTransport) DirectReader() directcall.Reader {
	if l := t.lines(); l != nil {
		return l
	}
	return nil
}

// lines is the direct path of the connection of the last Connect: nil when
// DirectCaller is, or before Connect.
func (t *stdioTransport) lines() *directcall.Lines {
	if !t.direct {
		return nil
	}
	if c := t.conn.Load(); c != nil {
		return c.direct
	}
	return nil
}

// DirectReader hands over the direct resource reads of the HTTP
// transport's connection (see directcall.ReaderOf): nil before Connect.
func (t *httpTransport) DirectReader() directcall.Reader {
	if c := t.conn.Load(); c != nil {
		return c
	}
	return nil
}

// DirectCaller hands over the HTTP transport's direct tools/call path (see
// directcall.CallerOf): the transport itself.
func (t *httpTransport) DirectCaller() directcall.Caller { return t }

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
	sdk *mcp.StreamableClientTransport
	// direct sends the direct path's POSTs: sdk's client without
	// limitResponses (the path bounds its bodies itself); nil means sdk's.
	direct *http.Client
	logger *zap.Logger // for the flood gate's warnings
	conn   atomic.Pointer[directcall.HTTP]
	// repeatable is RetryCutStreams's; nil means no call is re-sent.
	repeatable atomic.Pointer[func(tool string) bool]
	// revision is an older revision's session's (legacysession.go).
	revision *atomic.Pointer[string]
}

// RetryCutStreams implements transportext.CutStreamRetrier; it applies to every
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
	c := directcall.NewHTTP(inner, t.sdk, directcall.HTTPConfig{
		TooLarge: ErrMessageTooLarge, Repeatable: &t.repeatable, Revision: t.revision,
		Client: t.direct, MaxBody: MaxMessageBytes,
	})
	t.conn.Store(c)
	return gatedConn{c, newFloodGate(t.logger)}, nil // see flood.go
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
