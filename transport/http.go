package transport

import (
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// StreamableHTTP connects to an MCP endpoint over Streamable HTTP, the
// 2026-07-28 binding.
type StreamableHTTP struct {
	// URL is the MCP endpoint, e.g. "https://example.com/mcp".
	URL string
	// Header is added to every request (e.g. an API key). Its values are
	// never logged nor put in errors.
	Header http.Header
	// HTTPClient sends the requests; nil means a client of its own with
	// http.DefaultTransport.
	HTTPClient *http.Client
	// OAuthHandler, if set, authorizes the requests (see go-sdk's auth
	// package).
	OAuthHandler auth.OAuthHandler
}

func (h StreamableHTTP) String() string { return fmt.Sprintf("http %q", h.URL) }

// Open returns go-sdk's Streamable HTTP client transport for h.
func (h StreamableHTTP) Open(*zap.Logger) (mcp.Transport, error) {
	if h.URL == "" {
		return nil, fmt.Errorf("transport: streamable http: empty URL")
	}
	client := h.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	if len(h.Header) > 0 {
		c := *client
		base := c.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		c.Transport = headerRoundTripper{base: base, header: h.Header}
		client = &c
	}
	return &mcp.StreamableClientTransport{
		Endpoint:     h.URL,
		HTTPClient:   client,
		OAuthHandler: h.OAuthHandler,
	}, nil
}

// headerRoundTripper adds fixed headers to every request it forwards.
type headerRoundTripper struct {
	base   http.RoundTripper
	header http.Header
}

func (rt headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range rt.header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return rt.base.RoundTrip(req)
}
