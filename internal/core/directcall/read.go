package directcall

import (
	"context"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Direct resource reads: resources/read on the path of tools/call, with
// its ids, _meta envelope, headers, cancellation and errors (core.go),
// and its result decoded as go-sdk decodes it. ClientSession.ReadResource
// pays go-sdk's whole client for each read (its jsonrpc2 connection, the
// streamable client's goroutine hand-offs, two decodings of the answer);
// a read is one of the plugin's simplest requests, and this path is the
// one its tool calls take.
//
// go-sdk keeps a result with a positive ttlMs in a cache of its session
// (for sessions of 2026-07-28 and later) and answers the next read of its
// URI from it while the TTL lasts. A direct read does not: once a result
// with a TTL is seen, the connection's reads are left to the session
// ([ErrCallOnSession]), whose cache then works as go-sdk's does.

const methodReadResource = "resources/read"

// Reader runs resources/read on the direct path: the same wire, ids,
// envelope, cancellation and errors as a [Caller]'s CallTool. Its failures
// are go-sdk's ReadResource's (a *jsonrpc.Error wrapped as go-sdk wraps
// it, mcp.ErrConnectionClosed, the wire's own error, the context's
// error), and [ErrCallOnSession] for a read it leaves to the session,
// which the server has not run.
type Reader interface {
	// ReadResource sends resources/read with params, whose Meta holds what
	// the read adds (trace context); the _meta envelope go-sdk puts on
	// every request is added.
	ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
}

// ReaderOf is the [Reader] of the connection of t's last Connect, t a
// transport that transport.Stdio.Open or transport.StreamableHTTP.Open
// returned, as [PosterOf] hands over its Poster: nil when t has none
// (another transport, the direct path turned off, no connection yet). The
// connection actor asks once per session.
func ReaderOf(t mcp.Transport) Reader {
	if h, ok := t.(interface{ DirectReader() Reader }); ok {
		return h.DirectReader()
	}
	return nil
}

// read runs one direct resources/read on w.
func (c *calls) read(ctx context.Context, w wire, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	if c.cached.Load() {
		return nil, ErrCallOnSession
	}
	raw, err := c.exchange(ctx, w, request{method: methodReadResource, read: params}, nil)
	if err != nil {
		return nil, err
	}
	res, err := DecodeReadResourceResult(raw)
	if err != nil {
		// go-sdk's words: the result's decoding error, wrapped as its
		// call wraps every error of the answer.
		return nil, fmt.Errorf("calling %q: %w", methodReadResource, err)
	}
	if res.TTLMs > 0 {
		c.cached.Store(true) // the next reads go to the session and its cache
	}
	return res, nil
}

// DecodeReadResourceResult decodes a resources/read result into the same
// *mcp.ReadResourceResult go-sdk's decoding gives, or fails as it does:
// it is go-sdk's own decoding (ReadResourceResult.UnmarshalJSON, which
// go-sdk's client reaches through its JSON decoder).
func DecodeReadResourceResult(raw []byte) (*mcp.ReadResourceResult, error) {
	res := new(mcp.ReadResourceResult)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return res, nil
}

// appendRead appends the resources/read request of direct request n:
// params' URI and _meta, with env's members _meta does not have.
func appendRead(b []byte, n int64, params *mcp.ReadResourceParams, env *envelope) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `,"method":"resources/read","params":{"uri":`...)
	b = appendString(b, params.URI)
	var err error
	if b, err = appendMeta(b, params.Meta, env); err != nil {
		return b, fmt.Errorf("marshaling _meta: %w", err)
	}
	return append(b, "}}"...), nil
}

// ReadResource implements [Reader] over Streamable HTTP. A read whose
// answer's stream was cut fails as go-sdk's does: it is not sent again.
func (c *HTTP) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	if c.env.Load() == nil {
		return nil, ErrCallOnSession
	}
	return c.read(ctx, c, params)
}

// ReadResource implements [Reader] over stdio: one line out, and the
// answer line with its id.
func (l *Lines) ReadResource(ctx context.Context, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return l.read(ctx, l, params)
}

var (
	_ Reader = (*HTTP)(nil)
	_ Reader = (*Lines)(nil)
)
