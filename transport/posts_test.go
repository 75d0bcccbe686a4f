package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const (
	aCall         = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}`
	aNotification = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`
)

// statusServer answers every POST with the status and body in its query.
func statusServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		if ct := r.URL.Query().Get("type"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, r.URL.Query().Get("body"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// post sends body through rt to url.
func post(t *testing.T, rt http.RoundTripper, ctx context.Context, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	return rt.RoundTrip(req)
}

// rpcFailure decodes a JSON-RPC error response.
func rpcFailure(t *testing.T, resp *http.Response) (id int, code int, message string) {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(b, &msg), "%s", b)
	return msg.ID, msg.Error.Code, msg.Error.Message
}

func newStandAlone(t *testing.T, authorizer bool) (*standAloneRoundTripper, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.WarnLevel)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := standAlonePosts(&http.Client{Transport: tr}, zap.New(core), authorizer)
	return c.Transport.(*standAloneRoundTripper), logs
}

func TestRefusedNotificationIsAcceptedInTheServersSteadAndLogged(t *testing.T) {
	url := statusServer(t)
	rt, logs := newStandAlone(t, false)
	for _, code := range []int{400, 401, 404, 500, 503} {
		resp, err := post(t, rt, context.Background(), url+"?body=nope&code="+strconv.Itoa(code), aNotification)
		require.NoError(t, err, "status %d", code)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode, "status %d", code)
	}
	warned := logs.FilterField(zap.String("method", "notifications/cancelled")).All()
	require.Len(t, warned, 5)
	assert.Contains(t, warned[0].Message, "notification")
	assert.Equal(t, int64(400), warned[0].ContextMap()["status"])
	assert.Equal(t, "nope", warned[0].ContextMap()["detail"])
	assert.Equal(t, int64(503), warned[4].ContextMap()["status"])

	// No answer at all: the same, with the error instead of a status.
	resp, err := post(t, rt, context.Background(), "http://127.0.0.1:1/mcp", aNotification)
	require.NoError(t, err)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, 6, logs.Len())
	assert.Contains(t, logs.All()[5].ContextMap()["error"], "refused")
}

func TestCallAnsweredWithAnErrorStatusFailsAlone(t *testing.T) {
	url := statusServer(t)
	rt, logs := newStandAlone(t, false)

	resp, err := post(t, rt, context.Background(), url+"?code=500&body=overloaded%0Atry+later", aCall)
	require.NoError(t, err)
	id, code, msg := rpcFailure(t, resp)
	assert.Equal(t, 7, id, "the error answers the same call")
	assert.Equal(t, -32603, code)
	assert.Equal(t, "transport: HTTP 500 Internal Server Error: overloaded try later", msg)

	// A JSON-RPC error in the body is the server's own word: its code,
	// message and data are kept, the code named in the message too (go-sdk
	// reads an unsupported-version error's data to retry server/discover
	// with a version both speak).
	body := `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`
	resp, err = post(t, rt, context.Background(), url+"?code=400&type=application/json&body="+neturl.QueryEscape(body), aCall)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,`+
		`"message":"transport: HTTP 400 Bad Request: error -32022: Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`, string(b))
	assert.Zero(t, logs.Len(), "a failed call is its caller's error, not a log line")

	// Without an authorizer, 401 is one more status; with one, it is the
	// authorizer's to handle.
	resp, err = post(t, rt, context.Background(), url+"?code=401", aCall)
	require.NoError(t, err)
	_, _, msg = rpcFailure(t, resp)
	assert.Contains(t, msg, "HTTP 401")
	authorized, _ := newStandAlone(t, true)
	for _, code := range []int{401, 403} {
		resp, err = post(t, authorized, context.Background(), url+"?code="+strconv.Itoa(code), aCall)
		require.NoError(t, err)
		assert.Equal(t, code, resp.StatusCode)
		require.NoError(t, resp.Body.Close())
	}
}

func TestSuccessesAndOtherMethodsPassUntouched(t *testing.T) {
	url := statusServer(t)
	rt, logs := newStandAlone(t, false)
	for _, c := range []struct {
		code int
		body string
	}{{200, aCall}, {202, aNotification}, {307, aCall}} {
		resp, err := post(t, rt, context.Background(), url+"?body=as-is&code="+strconv.Itoa(c.code), c.body)
		require.NoError(t, err)
		assert.Equal(t, c.code, resp.StatusCode)
		b, _ := io.ReadAll(resp.Body)
		assert.Equal(t, "as-is", string(b))
	}
	req, err := http.NewRequest(http.MethodGet, url+"?code=405", nil)
	require.NoError(t, err)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	assert.Equal(t, 405, resp.StatusCode, "only POSTs carry messages")
	require.NoError(t, resp.Body.Close())
	resp, err = post(t, rt, context.Background(), url+"?code=500", "not json")
	require.NoError(t, err)
	assert.Equal(t, 500, resp.StatusCode, "a body that is no JSON-RPC is go-sdk's to judge")
	require.NoError(t, resp.Body.Close())
	assert.Zero(t, logs.Len())
}

// hangUp accepts connections and closes each at once, after reading the
// request: a POST that gets no HTTP answer. Every n-th connection, if n > 0,
// is answered 200 instead.
func hangUp(t *testing.T, n int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = conn.Read(buf)
			if n > 0 && i%n == 0 {
				_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
			}
			_ = conn.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestCallWithoutAnswerFailsAloneUntilTheEndpointIsGone(t *testing.T) {
	t.Run("refused at once", func(t *testing.T) {
		rt, _ := newStandAlone(t, false)
		_, err := post(t, rt, context.Background(), "http://127.0.0.1:1/mcp", aCall)
		require.Error(t, err, "nothing listens: the endpoint is gone")
		assert.ErrorContains(t, err, "refused")
	})
	t.Run("lost connection, nothing listens any more", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		done := make(chan struct{})
		go func() {
			defer close(done)
			conn, err := ln.Accept()
			_ = ln.Close() // the server goes away while the POST waits
			if err != nil {
				return
			}
			_, _ = conn.Read(make([]byte, 4096))
			_ = conn.Close()
		}()
		rt, _ := newStandAlone(t, false)
		_, err = post(t, rt, context.Background(), "http://"+ln.Addr().String(), aCall)
		<-done
		require.Error(t, err, "the probe dial is refused: the endpoint is gone at the first loss")
		assert.Zero(t, rt.unanswered.Load())
	})
	t.Run("three in a row", func(t *testing.T) {
		url := hangUp(t, 0)
		rt, _ := newStandAlone(t, false)
		for i := range maxUnansweredPosts - 1 {
			resp, err := post(t, rt, context.Background(), url, aCall)
			require.NoError(t, err, "no answer %d fails the call alone", i+1)
			_, _, msg := rpcFailure(t, resp)
			assert.Contains(t, msg, "no answer")
		}
		_, err := post(t, rt, context.Background(), url, aCall)
		require.Error(t, err, "the third in a row ends the session")
	})
	t.Run("an answer starts the count again", func(t *testing.T) {
		url := hangUp(t, maxUnansweredPosts) // every third is answered
		rt, _ := newStandAlone(t, false)
		for i := range 3 * maxUnansweredPosts {
			resp, err := post(t, rt, context.Background(), url, aCall)
			require.NoError(t, err, "post %d", i+1)
			require.NoError(t, resp.Body.Close())
		}
	})
	t.Run("a layer's own refusal", func(t *testing.T) {
		refusal := errors.New("transport: a layer of ours refused")
		rt := &standAloneRoundTripper{logger: zap.NewNop(), base: roundTripperFunc(func(*http.Request) (*http.Response, error) {
			return nil, refusal
		})}
		for range maxUnansweredPosts + 1 {
			_, err := post(t, rt, context.Background(), "http://127.0.0.1:1/mcp", aCall)
			require.ErrorIs(t, err, refusal, "not the network's: passed on as it is, never counted")
		}
		assert.Zero(t, rt.unanswered.Load())
	})
	t.Run("the caller gave up", func(t *testing.T) {
		rt, _ := newStandAlone(t, false)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := post(t, rt, ctx, "http://127.0.0.1:1/mcp", aCall)
		require.ErrorIs(t, err, context.Canceled, "go-sdk sees its own cancellation")
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A server's words in an HTTP error answer (its body, its JSON-RPC error's
// message) reach the call's error with every control character escaped:
// no ESC, OSC 52 or C1 control drives the terminal that shows it.
func TestHTTPErrorBodiesAreQuotedWithoutControlCharacters(t *testing.T) {
	url := statusServer(t)
	rt, _ := newStandAlone(t, false)
	for _, tc := range []struct{ name, body, want string }{
		{"plain body", "bad\x1b[2Kworse\u009b31m", `bad\x1b[2Kworse\u009b31m`},
		{"OSC 52", "\x1b]52;c;ZXZpbA==\x07x", `\x1b]52;c;ZXZpbA==\ax`},
		{"JSON-RPC message", `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"no\u001b[8mhidden\u202e"}}`, `no\x1b[8mhidden\u202e`},
	} {
		q := url + "?code=400&body=" + neturl.QueryEscape(tc.body)
		if strings.HasPrefix(tc.body, "{") {
			q += "&type=application/json"
		}
		resp, err := post(t, rt, context.Background(), q, aCall)
		require.NoError(t, err)
		_, _, msg := rpcFailure(t, resp)
		assert.Contains(t, msg, tc.want, tc.name)
		assert.NotContains(t, msg, "\x1b", tc.name)
		assert.NotContains(t, msg, "\u009b", tc.name)
	}
}
