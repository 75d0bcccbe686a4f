package toolbox

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// A headersHelper's headers go to its server's origin only: a redirect to
// the same host name at another port, to a subdomain or from https to
// http is refused, and nothing reaches its target. Every host name leads
// to loopback; the servers speak TLS with httptest's certificate, which
// names example.com and *.example.com.
func TestHeadersHelpersHeadersNeverFollowARedirectToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []http.Header
	record := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Clone())
		mu.Unlock()
	})
	tlsSink := httptest.NewTLSServer(record)
	defer tlsSink.Close()
	plainSink := httptest.NewServer(record)
	defer plainSink.Close()
	_, tlsPort, _ := net.SplitHostPort(tlsSink.Listener.Addr().String())
	_, plainPort, _ := net.SplitHostPort(plainSink.Listener.Addr().String())
	var target string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect) // the same origin
			return
		}
		if r.URL.Path == "/mcp" && r.Header.Get("X-Helper") == "" {
			t.Errorf("the server's own origin lacks the helper's header")
		}
		if r.URL.Path == "/away" {
			http.Redirect(w, r, target, http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	tr := srv.Client().Transport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		return (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", p))
	}
	base := "https://example.com:" + port
	c := newHeadersClient(&mcpconfig.Server{Name: "remote", URL: base + "/mcp", HeadersHelper: `echo '{"X-Helper": "helper-secret"}'`},
		&http.Client{Transport: tr})

	resp, err := c.Post(base+"/old", "application/json", nil)
	require.NoError(t, err, "a redirect within the origin is followed, with the headers")
	require.NoError(t, resp.Body.Close())

	for name, to := range map[string]string{
		"same host, another port": "https://example.com:" + tlsPort + "/mcp",
		"a subdomain":             "https://evil.example.com:" + tlsPort + "/mcp",
		"https to http":           "http://example.com:" + plainPort + "/mcp",
	} {
		target = to
		resp, err := c.Post(base+"/away", "application/json", nil)
		if err == nil {
			_ = resp.Body.Close()
		}
		assert.ErrorContains(t, err, "redirect to another origin refused", name)
	}
	// And a request sent elsewhere by whatever means carries none.
	resp, err = c.Get("https://evil.example.com:" + tlsPort + "/direct")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	mu.Lock()
	defer mu.Unlock()
	for _, h := range leaked {
		assert.Empty(t, h.Get("X-Helper"), "the helper's header never leaves its server's origin")
	}
}
