package transport

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/httppool"
	"github.com/cuca-go/mcpconnector/internal/core/origin"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
)

// SSE connects to an MCP endpoint over the HTTP+SSE transport of MCP
// 2024-11-05: a GET opens an event stream whose first event names the URL
// the client POSTs its messages to. No 2026-07-28 server speaks it, so
// only a connection with plugin.WithLegacyFallback can use it: it is the
// "type": "sse" of a config file whose entry sets "legacyFallback": true.
//
// The requests are sent as [StreamableHTTP]'s are: Header on each one sent
// to the endpoint's origin, and the module's redirect policy, which refuses
// a redirect to another origin or from https to http.
type SSE struct {
	// URL is the event stream's endpoint, e.g. "https://example.com/sse".
	URL string
	// Header is added to every request sent to the endpoint's origin (e.g.
	// an API key). Its values are never logged nor put in errors.
	Header http.Header
	// HTTPClient sends the requests; nil means the pool of connections
	// StreamableHTTP uses when it is given none. Its CheckRedirect, if any,
	// runs after the module's redirect policy.
	HTTPClient *http.Client
	// Label names the server in logs ("mcp_server"); empty means String().
	Label string
}

// String names the endpoint for logs and errors: its URL without user
// information, query or fragment.
func (s SSE) String() string { return fmt.Sprintf("sse %q", transportext.RedactURL(s.URL)) }

// Open returns go-sdk's *mcp.SSEClientTransport for s, its client wrapped
// with Header and the redirect policy, connected with a context that
// outlives the connection attempt (the event stream lasts as long as it). It fails when URL is empty.
func (s SSE) Open(logger *zap.Logger) (mcp.Transport, error) {
	if s.URL == "" {
		return nil, fmt.Errorf("transport: sse: empty URL")
	}
	client := s.HTTPClient
	if client == nil {
		client = &http.Client{Transport: httppool.Transport()}
	}
	if len(s.Header) > 0 {
		c := *client
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = headerRoundTripper{base: base, header: s.Header, endpoint: s.URL}
		client = &c
	}
	client = limitResponses(client)
	client = origin.Client(client) // headers and bodies stay at the endpoint's origin
	return gatedTransport{sseTransport{&mcp.SSEClientTransport{Endpoint: s.URL, HTTPClient: client, MaxEventSize: MaxMessageBytes}}, logger}, nil
}

// sseTransport connects go-sdk's SSE client transport with a context that
// is not cancelled: go-sdk's GET of the event stream lives as long as the
// context Connect is given, and a connection attempt's context ends once
// it is up. Closing the connection ends the stream.
type sseTransport struct{ sdk *mcp.SSEClientTransport }

func (t sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	return t.sdk.Connect(context.WithoutCancel(ctx))
}
