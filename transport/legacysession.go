package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/origin"
)

// A session of a revision before 2026-07-28 over Streamable HTTP is the
// server's Mcp-Session-Id, which 2026-07-28 has none of: only a connection
// with plugin.WithLegacyFallback sends it. A server that restarted, or
// dropped the session, no longer knows it, and refuses every POST that
// names it: with 404, as the revisions' spec says, or, as the TypeScript
// SDK v1's own examples (and the servers built on them) do, with 400 "No
// valid session ID provided". Either way the session is lost: the POST's
// message was not taken, and every later one would be refused too. So the
// POST fails with ErrNotSent, which ends the session (the supervisor
// starts a new one, initialized again) and lets a call wait for it.

// sessionLost reports whether resp, the answer to req, says that the
// server no longer knows the session req names. A 400's body is read
// (at most maxErrorBody of it) and put back.
func sessionLost(req *http.Request, resp *http.Response) bool {
	if req.Header.Get("Mcp-Session-Id") == "" {
		return false
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		body := readBody(resp)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		text := strings.ToLower(string(body))
		return strings.Contains(text, "session id") || strings.Contains(text, "session not found")
	}
	return false
}

// lostSession is the error of a POST refused because the server no longer
// knows its session; resp's body is consumed.
func lostSession(req *http.Request, resp *http.Response) error {
	return fmt.Errorf("%w: %s: the server no longer knows the session (HTTP %s: %s)",
		ErrNotSent, redactedURL(req), resp.Status, errorDetail(resp))
}

// After initialize at a revision before 2026-07-28, every request carries
// the revision in its MCP-Protocol-Version header (2025-06-18 and later
// require it; the TypeScript SDK v1 answers a request without it, or with
// another, with 400), and the client opens the revision's standalone GET
// stream, on which the server sends its notifications (tools/list_changed,
// logging) and requests. go-sdk's connection does both in a private hook
// that its wrappers hide; directcall.HTTP does them instead (see its
// HTTPConfig.Revision), with revisionHeader below for go-sdk's requests.

// revisionHeader wraps client so that each request to endpoint's origin
// that has no MCP-Protocol-Version header gets *revision, once set.
func revisionHeader(client *http.Client, revision *atomic.Pointer[string], endpoint string) *http.Client {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = revisionRoundTripper{base: base, revision: revision, endpoint: endpoint}
	return &c
}

// revisionRoundTripper applies the rule of [revisionHeader].
type revisionRoundTripper struct {
	base     http.RoundTripper
	revision *atomic.Pointer[string]
	endpoint string
}

func (rt revisionRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	v := rt.revision.Load()
	if v == nil || req.Header.Get(protocolVersionHeader) != "" || !origin.SameAs(rt.endpoint, req.URL) {
		return rt.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set(protocolVersionHeader, *v)
	return rt.base.RoundTrip(req)
}

// protocolVersionHeader is the header that names the revision of a
// request.
const protocolVersionHeader = "Mcp-Protocol-Version"

// sessionTransport is go-sdk's Streamable HTTP transport without the
// direct path (StreamableHTTP.DisableDirectCalls): its connection is
// wrapped in a directcall.HTTP all the same, for an older revision's
// standalone stream and header, but no call takes the direct path (it has
// no DirectCaller).
type sessionTransport struct {
	sdk      *mcp.StreamableClientTransport
	revision *atomic.Pointer[string]
}

func (t sessionTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.sdk.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return directcall.NewHTTP(inner, t.sdk, directcall.HTTPConfig{TooLarge: ErrMessageTooLarge, Revision: t.revision}), nil
}
