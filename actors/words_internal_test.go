package actors

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/transport"
)

// What go-sdk hands back, wrapped as it wraps them.
func sdkWrapped(method string, err error) error {
	return fmt.Errorf("calling %q: sending %q: %w", method, method, err)
}

func TestFailedNamesTheMethodOnceAndWhatToCheck(t *testing.T) {
	post := func(err error) error {
		return sdkWrapped("server/discover", fmt.Errorf("%w: %w", &jsonrpc.Error{Code: codeRejectedByTransport, Message: "rejected by transport"},
			&url.Error{Op: "Post", URL: "https://user:pw@example.test:8443/mcp?key=k", Err: err}))
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"the server's error", sdkWrapped("tools/list", &jsonrpc.Error{Code: -32603, Message: "fetch failed"}),
			"the server answered tools/list with error -32603: fetch failed"},
		{"an HTTP status", sdkWrapped("tools/list", &jsonrpc.Error{Code: -32603, Message: "transport: HTTP 502 Bad Gateway: upstream"}),
			"the server answered the tools/list POST with HTTP 502 Bad Gateway: upstream"},
		{"refused", post(fmt.Errorf("%w: %w", transport.ErrNotSent, refused)),
			"server/discover could not reach https://example.test:8443/mcp: nothing listens there; check the URL, and that the server is running and listening on that port (dial tcp: connect: connection refused)"},
		{"no such host", post(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "example.test", IsNotFound: true}}),
			"server/discover could not reach https://example.test:8443/mcp: its host is not found; check the URL (lookup example.test: no such host)"},
		{"certificate", post(x509.UnknownAuthorityError{}),
			"server/discover could not reach https://example.test:8443/mcp: its TLS certificate is refused; check the URL's host and the server's certificate (x509: certificate signed by unknown authority)"},
		{"timeout", post(context.DeadlineExceeded),
			"server/discover could not reach https://example.test:8443/mcp: no answer in time; check that the server is running and reachable from here (context deadline exceeded)"},
		{"reset", post(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}),
			"server/discover could not reach https://example.test:8443/mcp: the connection failed; check that the server is running and reachable from here (read tcp: read: connection reset by peer)"},
		{"go-sdk's own code", sdkWrapped("server/discover", &jsonrpc.Error{Code: codeClientClosing, Message: "client is closing"}),
			"server/discover failed: client is closing"},
		{"anything else", sdkWrapped("server/discover", errors.New("unexpected EOF")), "server/discover failed: unexpected EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := "server/discover"
			if tc.name == "the server's error" || tc.name == "an HTTP status" {
				method = "tools/list"
			}
			assert.Equal(t, tc.want, failed(method, tc.err))
		})
	}
}
