package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

// redirectLab is a loopback network with TLS where every host name leads
// to 127.0.0.1: an MCP server at https://example.com:<port>/mcp that
// answers the requests of one method with a 307 to a sink, and sinks that
// record what reaches them: the same host name at another port, a
// subdomain, and plain http at the MCP server's own host and port.
type redirectLab struct {
	client   *http.Client // trusts the servers' certificate, routes every name to loopback
	endpoint string
	port     string // the MCP server's

	mu       sync.Mutex
	redirect map[string]string // Mcp-Method ("*": any) → where its requests are sent
	seen     []http.Header     // by the sinks
}

func newRedirectLab(t *testing.T) *redirectLab {
	t.Helper()
	lab := &redirectLab{redirect: map[string]string{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "redirector", Version: "0"}, nil)
	addEcho(s)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lab.mu.Lock()
		to, ok := lab.redirect[r.Header.Get("Mcp-Method")]
		if !ok {
			to = lab.redirect["*"]
		}
		lab.mu.Unlock()
		if to != "" {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, lab.port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	lab.endpoint = "https://example.com:" + lab.port + "/mcp"
	tr := srv.Client().Transport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		return dialer.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
	}
	t.Cleanup(tr.CloseIdleConnections)
	lab.client = &http.Client{Transport: tr}
	return lab
}

// sink starts a server that records every request's headers and answers
// 404, and returns its base URL with host in it: https unless plain.
func (lab *redirectLab) sink(t *testing.T, host string, plain bool) string {
	t.Helper()
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lab.mu.Lock()
		lab.seen = append(lab.seen, r.Header.Clone())
		lab.mu.Unlock()
		http.NotFound(w, r)
	})
	if plain {
		// Plain http at the MCP server's own port cannot share its
		// listener: TestHeadersGoOnlyToTheEndpointsOrigin covers the
		// same host and port.
		srv := httptest.NewServer(record)
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		return "http://" + host + ":" + port
	}
	srv := httptest.NewTLSServer(record)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return "https://" + host + ":" + port
}

func (lab *redirectLab) redirectMethod(method, to string) {
	lab.mu.Lock()
	defer lab.mu.Unlock()
	clear(lab.redirect)
	lab.seen = nil
	if method != "" {
		lab.redirect[method] = to
	}
}

func (lab *redirectLab) sinksSaw() []http.Header {
	lab.mu.Lock()
	defer lab.mu.Unlock()
	return append([]http.Header(nil), lab.seen...)
}

// connectAndCall connects through tr and calls echo.
func connectAndCall(ctx context.Context, tr StreamableHTTP) error {
	mt, err := tr.Open(zap.NewNop())
	if err != nil {
		return err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, mt, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		return err
	}
	defer func() { _ = cs.Close() }()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "a secret argument"}})
	return err
}

// Credentials (a bearer token, a custom header) and the requests that
// carry them never follow a redirect to another origin: not to the same
// host name at another port, not to a subdomain, not from https to http;
// on server/discover, on the direct tools/call path and on go-sdk's.
func TestCredentialsNeverFollowARedirectToAnotherOrigin(t *testing.T) {
	noLeaks(t)
	lab := newRedirectLab(t)
	targets := map[string]string{
		"same host, another port": lab.sink(t, "example.com", false),
		"a subdomain":             lab.sink(t, "evil.example.com", false),
		"https to http":           lab.sink(t, "example.com", true),
	}
	creds := map[string]func(*StreamableHTTP){
		"bearer token":  func(h *StreamableHTTP) { h.BearerToken = "tok-secret" },
		"custom header": func(h *StreamableHTTP) { h.Header = http.Header{"X-Api-Key": {"key-secret"}} },
	}
	for _, method := range []string{"*", "tools/call"} { // connect, or only the call
		for _, direct := range []bool{true, false} {
			for tname, target := range targets {
				for cname, cred := range creds {
					name := strings.Replace(method, "*", "connect", 1) + "/" + tname + "/" + cname
					if !direct {
						name += "/through go-sdk"
					}
					t.Run(name, func(t *testing.T) {
						lab.redirectMethod(method, target+"/mcp")
						h := StreamableHTTP{URL: lab.endpoint, HTTPClient: lab.client, DisableDirectCalls: !direct}
						cred(&h)
						ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
						defer cancel()
						err := connectAndCall(ctx, h)
						require.Error(t, err, "the redirect is refused")
						assert.Contains(t, err.Error(), "redirect to another origin refused")
						for _, seen := range lab.sinksSaw() {
							assert.NotContains(t, seen.Get("Authorization"), "tok-secret")
							assert.Empty(t, seen.Get("X-Api-Key"))
						}
						assert.Empty(t, lab.sinksSaw(), "nothing of the request reaches another origin")
					})
				}
			}
		}
	}
	lab.redirectMethod("", "")
}

// A redirect within the endpoint's origin is followed, credentials and all.
func TestARedirectWithinTheOriginIsFollowed(t *testing.T) {
	noLeaks(t)
	lab := newRedirectLab(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "moved", Version: "0"}, nil)
	addEcho(s)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true})
	var mu sync.Mutex
	var tokens []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
			return
		}
		mu.Lock()
		tokens = append(tokens, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, connectAndCall(ctx, StreamableHTTP{URL: "https://example.com:" + port + "/old", HTTPClient: lab.client, BearerToken: "tok"}))
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, tokens)
	for _, tok := range tokens {
		assert.Equal(t, "Bearer tok", tok)
	}
}

func TestHeadersGoOnlyToTheEndpointsOrigin(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, r.Header.Clone()) }))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	// The endpoint is https at the listener's host and port; the
	// requests go out as plain http to the same host and port.
	endpoint := "https://" + u.Host + "/mcp"
	rt := headerRoundTripper{base: tr, header: http.Header{"X-Api-Key": {"k"}}, endpoint: srv.URL + "/mcp"}
	for _, target := range []string{srv.URL + "/mcp", "http://localhost:" + u.Port() + "/elsewhere"} {
		req, err := http.NewRequest(http.MethodPost, target, nil)
		require.NoError(t, err)
		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	rt.endpoint = endpoint
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", nil)
	require.NoError(t, err)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Len(t, got, 3)
	assert.Equal(t, "k", got[0].Get("X-Api-Key"), "the endpoint gets the header")
	assert.Empty(t, got[1].Get("X-Api-Key"), "another host (a redirect target) does not")
	assert.Empty(t, got[2].Get("X-Api-Key"), "nor plain http at an https endpoint's host and port")
}
