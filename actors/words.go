package actors

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/cuca-go/mcpconnector/internal/core/safetext"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/transport"
)

// How a failure reads: the server's words as the server's, a transport's
// failure with the method named once and what a user can check. go-sdk
// wraps an error at each of its layers with the method's name ("calling
// "tools/list": sending "tools/list": rejected by transport: Post "…":
// …"); these messages say it once.

// serverAnswered says what the server answered method with, when err is
// the server's own JSON-RPC error answer: "the server answered tools/list
// with error -32603: fetch failed", or for an HTTP error status "the
// server answered the tools/list POST with HTTP 500 Internal Server
// Error: …". method empty leaves the method out (the failure's Op names
// it). ok is false when err is none of these: go-sdk's own codes for a
// connection that fails, an oversized message, no answer at all.
func serverAnswered(method string, err error) (msg string, ok bool) {
	var re *jsonrpc.Error
	if !errors.As(err, &re) || !fromServer(re) {
		return "", false
	}
	if transportext.HTTPStatusOf(re) != 0 {
		what := "the POST"
		if method != "" {
			what = "the " + method + " POST"
		}
		return "the server answered " + what + " with " + safetext.Clean(strings.TrimPrefix(re.Message, "transport: ")), true
	}
	if method != "" {
		method += " "
	}
	// The server's words, without a control character that could drive a
	// terminal or a log viewer (docs/security.md).
	return fmt.Sprintf("the server answered %swith error %d: %s", method, re.Code, safetext.Clean(re.Message)), true
}

// fromServer reports whether re is an error a server sent (or an HTTP
// status of its, as the transport hands it on), not one of go-sdk's own
// for a connection that fails, nor the transport's for an oversized
// message.
func fromServer(re *jsonrpc.Error) bool {
	switch {
	case re.Code == codeClientClosing || re.Code == codeServerClosing || re.Code == codeRejectedByTransport:
		return false
	case tooLargeStandIn(re.Message), tooDeepStandIn(re.Message), noAnswerStandIn(re.Message):
		return false
	}
	return true
}

// unreachable says why method could not reach an HTTP endpoint, when err
// says so (no connection, no such host, TLS, no answer): the URL, what
// failed, and what to check. ok is false when err is no such failure.
func unreachable(method string, err error) (msg string, ok bool) {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return "", false
	}
	where := transportext.RedactURL(ue.URL)
	cause := ue.Err
	var op *net.OpError
	if errors.As(cause, &op) {
		cause = op
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var header tls.RecordHeaderError
	var hint string
	switch {
	case errors.As(err, &dns):
		cause, hint = dns, "its host is not found; check the URL"
	case errors.Is(err, syscall.ECONNREFUSED) || op != nil && op.Op == "dial" && !ue.Timeout():
		hint = "nothing listens there; check the URL, and that the server is running and listening on that port"
	case errors.As(err, &cert) || errors.As(err, &unknownAuthority) || errors.As(err, &hostname):
		hint = "its TLS certificate is refused; check the URL's host and the server's certificate"
	case errors.As(err, &header):
		hint = "it does not speak TLS there; check the URL's scheme (http or https)"
	case ue.Timeout():
		hint = "no answer in time; check that the server is running and reachable from here"
	default:
		hint = "the connection failed; check that the server is running and reachable from here"
	}
	return fmt.Sprintf("%s could not reach %s: %s (%s)", method, where, hint, strings.TrimPrefix(cause.Error(), transport.ErrNotSent.Error()+": ")), true
}

// failed says how method failed with err, naming the method once: the
// server's answer, an endpoint out of reach, or err without go-sdk's
// wrappings of the method's name.
func failed(method string, err error) string {
	if msg, ok := serverAnswered(method, err); ok {
		return msg
	}
	if msg, ok := unreachable(method, err); ok {
		return msg
	}
	return method + " failed: " + unwrapped(method, err.Error())
}

// unwrapped is s without go-sdk's prefixes that name method again.
func unwrapped(method, s string) string {
	q := strconv.Quote(method)
	for _, p := range []string{"calling " + q + ": ", "sending " + q + ": ", "rejected by transport: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
