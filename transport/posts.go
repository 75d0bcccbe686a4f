package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/safetext"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"go.uber.org/zap"
)

// Over Streamable HTTP every POST of MCP 2026-07-28 stands alone: no
// protocol session ties one to the next. go-sdk's client connection does not
// see it so: an error status on any POST (a notification's included) fails
// the whole connection, so that one refused notifications/cancelled fails
// every later call and ends the session; and a call whose POST fails in any
// other way ends the session from the connection actor (a "rejected by
// transport" error). standAlonePosts sits below go-sdk, in the HTTP client,
// and applies this rule instead:
//
//   - A notification whose POST fails (an HTTP status of 400 or more, or no
//     answer at all) is logged at warn level with the status or error and
//     dropped: go-sdk is told 202 Accepted. A notification expects no answer,
//     so nothing waits for it; nothing fails and nothing reconnects.
//   - A call whose POST is answered with an HTTP status of 400 or more fails
//     alone: go-sdk is handed a JSON-RPC error answering that call, naming the
//     status (and carrying the server's own JSON-RPC error when its body held
//     one). The endpoint answered, so the session goes on. With an
//     OAuthHandler or a BearerToken, 401 and 403 still go to the authorizer.
//   - A call whose POST gets no HTTP answer from the network ends the session
//     only when the endpoint is gone: at once when nothing accepts a
//     connection at its address any more (the POST's own dial failed:
//     connection refused, no such host, no route; or the POST lost its
//     connection, a reset or a cut answer, and one probe dial to the
//     endpoint's address fails too), or at the [maxUnansweredPosts]-th
//     unanswered call POST in a row while something still accepts
//     connections there (a proxy's or a keep-alive connection's trouble);
//     any HTTP answer starts the count again. Until then the call fails
//     alone, as above. The session that ends is reconnected by the
//     supervisor, with backoff.
//   - A POST abandoned by its own caller (the call's context ended) is none of
//     these: go-sdk sees what happened, as before.
//
// The rule costs nothing on the way of a POST that succeeds: the body is
// read again only after a failure, to tell a notification from a call.

// maxUnansweredPosts is how many call POSTs in a row may get no HTTP answer
// before the endpoint counts as gone. Three: one or two can be a proxy's or
// a keep-alive connection's hiccup; a third in a row rarely is.
const maxUnansweredPosts = 3

// standAlonePosts returns a copy of client whose POSTs fail alone (see the
// rule above). authorizer says whether go-sdk handles 401 and 403 itself.
func standAlonePosts(client *http.Client, logger *zap.Logger, authorizer bool) *http.Client {
	if logger == nil {
		logger = zap.NewNop()
	}
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &standAloneRoundTripper{base: base, logger: logger, authorizer: authorizer}
	return &c
}

// standAloneRoundTripper applies the rule of [standAlonePosts]. One exists
// per opened transport, so its count of unanswered POSTs is one session's.
type standAloneRoundTripper struct {
	base       http.RoundTripper
	logger     *zap.Logger
	authorizer bool
	// unanswered counts the call POSTs in a row that got no HTTP answer.
	unanswered atomic.Int32
}

func (rt *standAloneRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.base.RoundTrip(req)
	if req.Method != http.MethodPost {
		return resp, err
	}
	if err == nil {
		rt.unanswered.Store(0)
		if resp.StatusCode < 400 || rt.authorizer && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return resp, nil
		}
		if sessionLost(req, resp) { // an older revision's session (legacysession.go)
			return nil, lostSession(req, resp)
		}
	} else if req.Context().Err() != nil {
		return resp, err // the caller gave up; go-sdk knows what that means
	}
	msg, ok := sentMessage(req)
	if !ok {
		return resp, err // not JSON-RPC we can tell apart: go-sdk decides
	}
	if msg.notification() {
		return rt.dropNotification(req, msg, resp, err), nil
	}
	if err != nil {
		if !unanswered(err) {
			return resp, err // a refusal of a layer of ours (e.g. authorization): go-sdk reports it
		}
		if dialFailed(err) {
			// Nothing accepted the connection: the server never saw the call.
			return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
		}
		if gone(err) || !rt.reachable(req) || rt.unanswered.Add(1) >= maxUnansweredPosts {
			return nil, err // go-sdk reports it; the connection actor ends the session
		}
		return callFailed(req, msg.ID, fmt.Sprintf("transport: no answer to the POST (the session goes on until %d in a row): %v", maxUnansweredPosts, err), nil), nil
	}
	return callFailed(req, msg.ID, transportext.HTTPStatusPrefix+resp.Status, resp), nil
}

// dropNotification logs the failed POST of a notification and answers
// 202 Accepted in the server's stead.
func (rt *standAloneRoundTripper) dropNotification(req *http.Request, msg sentJSONRPC, resp *http.Response, err error) *http.Response {
	fields := []zap.Field{zap.String("method", msg.Method), zap.String("endpoint", redactedURL(req))}
	if err != nil {
		fields = append(fields, zap.Error(err))
	} else {
		fields = append(fields, zap.Int("status", resp.StatusCode))
		if detail := errorDetail(resp); detail != "" {
			fields = append(fields, zap.String("detail", detail))
		}
	}
	rt.logger.Warn("mcp server did not take a notification; dropped, the session goes on", fields...)
	return &http.Response{
		Status: "202 Accepted", StatusCode: http.StatusAccepted,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: req,
	}
}

// callFailed answers the call with id by a JSON-RPC error whose message is
// msg, followed by the server's own error, code and message ("error
// -32602: Invalid params"), or a line of its body, when resp has either.
// resp's body is consumed.
func callFailed(req *http.Request, id json.RawMessage, msg string, resp *http.Response) *http.Response {
	rpcErr := map[string]any{"code": -32603} // internal error
	if resp != nil {
		if rpc, ok := serverError(resp); ok {
			// The server's own error, its code and data kept (go-sdk reads
			// the supported versions from an unsupported-version error's).
			rpcErr["code"] = rpc.Code
			msg += fmt.Sprintf(": error %d: %s", rpc.Code, oneLine(rpc.Message))
			if len(rpc.Data) > 0 {
				rpcErr["data"] = rpc.Data
			}
		} else if detail := errorDetail(resp); detail != "" {
			msg += ": " + detail
		}
	}
	rpcErr["message"] = msg
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcErr})
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// sentJSONRPC is what a POST carried, as far as the rule needs it.
type sentJSONRPC struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// notification reports whether the message expects no answer: a
// notification, or a response the client sent to a server's request.
func (m sentJSONRPC) notification() bool {
	return len(m.ID) == 0 || string(m.ID) == "null" || m.Method == ""
}

// sentMessage reads the JSON-RPC message of req's body again.
func sentMessage(req *http.Request) (sentJSONRPC, bool) {
	var m sentJSONRPC
	if req.GetBody == nil {
		return m, false
	}
	rc, err := req.GetBody()
	if err != nil {
		return m, false
	}
	defer rc.Close()
	if json.NewDecoder(io.LimitReader(rc, MaxMessageBytes)).Decode(&m) != nil {
		return m, false
	}
	return m, true
}

// unanswered reports whether err says the network gave no HTTP answer: the
// endpoint could not be reached, or the connection failed before an answer
// came whole.
func unanswered(err error) bool {
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// probeTimeout bounds the dial that checks whether an endpoint still
// accepts connections.
const probeTimeout = 2 * time.Second

// maxErrorBody bounds what is read of an answer that is not the one
// awaited (an HTTP error, a refusal), to report or discard it.
const maxErrorBody = 64 << 10

// reachable reports whether something still accepts a TCP connection at
// req's host and port: after a POST lost its connection, it tells a server
// that went away (a keep-alive connection it closed, then nothing listens)
// from trouble on the way.
func (rt *standAloneRoundTripper) reachable(req *http.Request) bool {
	port := req.URL.Port()
	if port == "" {
		port = "80"
		if req.URL.Scheme == "https" {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(req.URL.Hostname(), port))
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

// gone reports whether err says the endpoint could not be reached at all.
func gone(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// dialFailed reports whether err says the POST's own connection could
// not be made (refused, no such host, no route): nothing was sent.
func dialFailed(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial"
}

// maxDetail bounds the part of a server's error body quoted in a log line
// or an error.
const maxDetail = 200

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// serverError is the server's JSON-RPC error, when resp's body is a
// JSON-RPC error response. The body is consumed.
func serverError(resp *http.Response) (rpcError, bool) {
	body := readBody(resp)
	var m struct {
		Error *rpcError `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return rpcError{}, false
	}
	return *m.Error, true
}

// errorDetail is the start of resp's body on one line: what a server or a
// proxy said when it refused a POST. The body is consumed.
func errorDetail(resp *http.Response) string {
	body := readBody(resp)
	var m struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) == nil && m.Error != nil {
		return oneLine(m.Error.Message)
	}
	return oneLine(string(body))
}

func readBody(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	return body
}

// oneLine makes s, a server's words, fit an error or a log line: runs of
// white space become one space, every other control character (and every
// bidirectional formatting character) is escaped (internal/core/safetext),
// and it is cut at maxDetail bytes.
func oneLine(s string) string {
	s = safetext.Clean(strings.Join(strings.Fields(s), " "))
	if len(s) > maxDetail {
		s = strings.ToValidUTF8(s[:maxDetail], "") + "…"
	}
	return s
}

// redactedURL is req's URL as transportext.RedactURL leaves it.
func redactedURL(req *http.Request) string {
	u := *req.URL
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
