package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"golang.org/x/oauth2"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/httppool"
	"github.com/cuca-go/mcpconnector/internal/core/logfield"
	"github.com/cuca-go/mcpconnector/internal/core/origin"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
)

// StreamableHTTP connects to an MCP endpoint over Streamable HTTP, the
// 2026-07-28 binding.
//
// A server that requires authorization answers 401 (or 403 for a missing
// scope). Set at most one of OAuthHandler, which runs the OAuth flow, and
// BearerToken, a token obtained elsewhere; Header must not carry an
// Authorization of its own beside either.
type StreamableHTTP struct {
	// URL is the MCP endpoint, e.g. "https://example.com/mcp".
	URL string
	// Header is added to every request (e.g. an API key). Its values are
	// never logged nor put in errors.
	Header http.Header
	// HTTPClient sends the requests; nil means a client with
	// http.DefaultTransport's settings that keeps up to 100 idle connections
	// per server (net/http's default keeps 2: a third call at once opened a
	// new connection, and a TLS handshake, each time), one pool for every
	// server given none. Its CheckRedirect, if any, runs after the
	// module's redirect policy, which refuses a redirect to another origin
	// (scheme, host, port) or from https to http: the requests carry the
	// credentials and the tool calls' arguments (docs/guarantees.md).
	HTTPClient *http.Client
	// OAuthHandler, if set, authorizes the requests: its token goes on every
	// request, and a 401 or 403 runs its Authorize once before the request
	// is retried. go-sdk's auth.NewAuthorizationCodeHandler is the handler
	// for remote servers: it discovers the protected resource and
	// authorization server metadata, registers the client (a client ID
	// metadata document, a pre-registered client, or dynamic registration),
	// gets a code with PKCE through the caller's AuthorizationCodeFetcher,
	// asks again with the union of scopes on 403 insufficient_scope (step-up),
	// and refreshes an expired token with its refresh token. Any other
	// go-sdk auth.OAuthHandler fits too (go-sdk's auth/extauth has client
	// credentials). The plugin's connect timeout bounds the whole flow, user
	// interaction included, when it runs during connect.
	OAuthHandler sdkauth.OAuthHandler
	// BearerToken, if set, is sent as "Authorization: Bearer <token>" on
	// every request: a static token, e.g. a personal access token. It is
	// never refreshed; a server that refuses it fails the request with an
	// error that says so. It is never logged nor put in errors.
	BearerToken string
	// DPoP, if set, binds the tokens of OAuthHandler to a key of this
	// client's (RFC 9449): each request carries the token in the DPoP
	// scheme and a fresh proof. It needs an OAuthHandler; see [DPoP] for the
	// handler's side.
	DPoP *auth.DPoP
	// Label names the server in logs ("mcp_server"), e.g. the key of its
	// mcp.json entry; empty means String().
	Label string
	// DisableDirectCalls sends tools/call and resources/read through
	// go-sdk's ClientSession instead of POSTing them from this package (see
	// the package doc), which is the default: the same requests and results
	// at a fraction of the bytes and CPU. Every other message goes by
	// go-sdk's *mcp.StreamableClientTransport either way. The environment variable
	// MCPCONNECTOR_DIRECT_CALLS=0 turns the direct path off for every
	// server.
	DisableDirectCalls bool
}

// String names the endpoint for logs and errors: its URL without user
// information, query or fragment, which may hold credentials (a
// "?token=" in the URL never reaches an error text).
func (h StreamableHTTP) String() string { return fmt.Sprintf("http %q", transportext.RedactURL(h.URL)) }

// label names the server in logs: Label, or String() when Label is
// empty.
func (h StreamableHTTP) label() string {
	if h.Label != "" {
		return h.Label
	}
	return h.String()
}

// Open returns go-sdk's Streamable HTTP client transport for h, wrapped to
// send tools/call itself unless DisableDirectCalls is set. It fails
// when URL is empty, when more than one of OAuthHandler, BearerToken and
// an Authorization in Header is set, when DPoP is set without an
// OAuthHandler, and when a handler of this package is missing what it needs.
func (h StreamableHTTP) Open(logger *zap.Logger) (mcp.Transport, error) {
	if h.URL == "" {
		return nil, fmt.Errorf("transport: streamable http: empty URL")
	}
	authorizers := 0
	for _, set := range []bool{h.OAuthHandler != nil, h.BearerToken != "", h.Header.Get("Authorization") != ""} {
		if set {
			authorizers++
		}
	}
	if authorizers > 1 {
		return nil, fmt.Errorf("transport: streamable http %q: set only one of OAuthHandler, BearerToken and an Authorization header", h.URL)
	}
	oauth := h.OAuthHandler
	if h.BearerToken != "" {
		oauth = staticBearer{token: &oauth2.Token{AccessToken: h.BearerToken, TokenType: "Bearer"}}
	}
	client := h.HTTPClient
	if client == nil {
		client = &http.Client{Transport: httppool.Transport()}
	}
	if len(h.Header) > 0 {
		c := *client
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = headerRoundTripper{base: base, header: h.Header, endpoint: h.URL}
		client = &c
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	logger = logfield.Server(logger, h.label())
	client, oauth, err := h.wireAuth(client, oauth, logger)
	if err != nil {
		return nil, err
	}
	revision := new(atomic.Pointer[string]) // an older revision's session's (legacysession.go)
	client = revisionHeader(client, revision, h.URL)
	client = standAlonePosts(client, logger, oauth != nil) // see posts.go: one failed POST fails no other
	// The direct path bounds its JSON bodies as it reads them
	// (directcall.HTTPConfig.MaxBody), once, rather than after
	// limitResponses has read them whole.
	direct := origin.Client(client)
	client = limitResponses(client)
	client = origin.Client(client) // credentials and bodies stay at the endpoint's origin
	sdk := &mcp.StreamableClientTransport{
		Endpoint:     h.URL,
		MaxEventSize: MaxMessageBytes, // go-sdk leaves 0 unbounded, not at its documented default
		HTTPClient:   client,
		OAuthHandler: oauth,
	}
	if h.DisableDirectCalls || !directCallsAllowed() {
		// go-sdk's connection, under the flood gate (flood.go), with an
		// older revision's standalone stream (legacysession.go).
		return gatedTransport{sessionTransport{sdk: sdk, revision: revision}, logger}, nil
	}
	return &httpTransport{sdk: sdk, direct: direct, logger: logger, revision: revision}, nil // see direct.go
}

// errBearerRefused is what a request authorized by [StreamableHTTP.BearerToken]
// fails with when the server answers 401 or 403: a static token cannot be
// renewed.
var errBearerRefused = errors.New("transport: the server refused the bearer token")

// staticBearer is the go-sdk auth.OAuthHandler of a [StreamableHTTP.BearerToken].
type staticBearer struct {
	token *oauth2.Token
}

// TokenSource returns the fixed token.
func (b staticBearer) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(b.token), nil
}

// Authorize cannot get another token: it reports the refusal.
func (b staticBearer) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return fmt.Errorf("%w (HTTP %d)", errBearerRefused, resp.StatusCode)
}

// headerRoundTripper adds fixed headers to every request it forwards to
// the endpoint's origin (scheme, host and port). The client's redirect
// policy (package internal/core/origin) refuses a redirect to another
// origin; the origin check keeps the headers from any other URL all the
// same, an https endpoint's headers from plain http in particular.
type headerRoundTripper struct {
	base   http.RoundTripper
	header http.Header
	// endpoint is the configured URL.
	endpoint string
}

func (rt headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !origin.SameAs(rt.endpoint, req.URL) {
		return rt.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, vs := range rt.header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return rt.base.RoundTrip(req)
}
