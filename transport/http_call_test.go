package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/httppool"
)

// httpTestServer is a go-sdk server behind its stateless Streamable HTTP
// handler on loopback, answering with event streams or, with asJSON, with
// JSON bodies. Its tools: "echo", "block" (waits for its cancellation,
// then tells cancelled), "progress" (three progress notifications, then
// "done"), "bound" (one argument bound to a header by x-mcp-header).
type httpTestServer struct {
	*httptest.Server
	started   chan struct{} // a "block" began
	cancelled chan string
	// seen holds the headers of every tools/call POST.
	mu   sync.Mutex
	seen []http.Header
}

func newHTTPTestServer(t *testing.T, asJSON bool) *httpTestServer {
	t.Helper()
	ts := &httpTestServer{started: make(chan struct{}, 16), cancelled: make(chan string, 16)}
	s := mcp.NewServer(&mcp.Implementation{Name: "transport-http-test", Version: "0"}, nil)
	addEcho(s)
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "waits for its cancellation"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			ts.started <- struct{}{}
			<-ctx.Done()
			ts.cancelled <- "block: cancelled"
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "reports progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := range 3 {
				// A JSON answer has no room for them: go-sdk's server
				// fails to send them.
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 3,
				})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "bound", Description: "an argument in a header", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "bound"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		// A closed POST cancels its handler: the cancellation over HTTP.
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: asJSON, PropagateRequestCancellation: true})
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			ts.mu.Lock()
			ts.seen = append(ts.seen, r.Header.Clone())
			ts.mu.Unlock()
			if r.Header.Get("Mcp-Name") == "crafted" {
				// An answer spread as event streams may spread it.
				var call struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.NewDecoder(r.Body).Decode(&call)
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				w.WriteHeader(http.StatusOK)
				_, _ = fmt.Fprintf(w, ": hello\n\nid: 7\nretry: 10\n\nevent: other\ndata: not json\n\n"+
					"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\r\ndata:  \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\r\n"+
					"data: \"isError\":true,\"extra\":1}}\r\n\r\n: after\n\n", call.ID)
				return
			}
			if r.Header.Get("Mcp-Name") == "cut" {
				// A stream that ends before its answer.
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write([]byte(": nothing\n\n"))
				return
			}
			if r.Header.Get("Mcp-Name") == "fail500" {
				http.Error(w, "out of order", http.StatusInternalServerError)
				return
			}
			if r.Header.Get("Mcp-Name") == "secret" && r.Header.Get("Authorization") != "Bearer good" {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				http.Error(w, "who are you", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// readSpy hands every message the session reads to seen before the
// session sees it, as the connection actor's wrapper does.
type readSpy struct {
	mcp.Transport
	seen func(jsonrpc.Message)
}

func (s readSpy) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return spyConn{c, s.seen}, err
}

type spyConn struct {
	mcp.Connection
	seen func(jsonrpc.Message)
}

func (c spyConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil && c.seen != nil {
		c.seen(msg)
	}
	return msg, err
}

// httpSession connects a go-sdk client through h's transport, as the
// connection actor does.
func httpSession(t *testing.T, h StreamableHTTP, seen func(jsonrpc.Message)) (*mcp.ClientSession, *httpTransport) {
	t.Helper()
	tr, err := h.Open(zap.NewNop())
	require.NoError(t, err)
	ht, ok := tr.(*httpTransport)
	require.True(t, ok, "direct calls are on by default: %T", tr)
	client := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, readSpy{ht, seen}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, ht
}

func eachAnswerKind(t *testing.T, f func(t *testing.T, srv *httpTestServer)) {
	for _, kind := range []string{"sse", "json"} {
		t.Run(kind, func(t *testing.T) {
			noLeaks(t)
			srv := newHTTPTestServer(t, kind == "json")
			t.Cleanup(httppool.CloseIdle)
			f(t, srv)
		})
	}
}

func TestHTTPDirectCallAnswersAsCallTool(t *testing.T) {
	eachAnswerKind(t, func(t *testing.T, srv *httpTestServer) {
		cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
		require.True(t, ht.CallsDirect())
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()

		want, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo <&>"}})
		require.NoError(t, err)
		var ids []jsonrpc.ID
		got, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(` { "text" : "héllo <&>" } `)},
			func(id jsonrpc.ID) { ids = append(ids, id) })
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
		require.Len(t, ids, 1)
		assert.Less(t, ids[0].Raw().(int64), int64(0))

		// The headers go-sdk puts on its POST are on ours.
		srv.mu.Lock()
		sdkH, ourH := srv.seen[0], srv.seen[1]
		srv.mu.Unlock()
		for _, k := range []string{"Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
			assert.Equal(t, sdkH.Get(k), ourH.Get(k), k)
		}
		assert.Equal(t, "2026-07-28", ourH.Get("Mcp-Protocol-Version"))

		// A JSON-RPC error, and an HTTP status, fail as the session's do.
		want, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "crafted"})
		require.NoError(t, err)
		got, err = ht.CallTool(ctx, &mcp.CallToolParams{Name: "crafted"}, nil)
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
		assert.True(t, got.IsError)

		_, err = ht.CallTool(ctx, &mcp.CallToolParams{Name: "cut"}, nil)
		_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cut"})
		require.Error(t, wantErr)
		require.Error(t, err)
		assert.Equal(t, wantErr.Error(), err.Error(), "a stream cut before its answer")
		for _, name := range []string{"nope", "fail500"} {
			_, err = ht.CallTool(ctx, &mcp.CallToolParams{Name: name}, nil)
			_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
			var rpc, wantRPC *jsonrpc.Error
			require.ErrorAs(t, wantErr, &wantRPC)
			require.ErrorAs(t, err, &rpc, "%s", name)
			assert.Equal(t, wantRPC.Code, rpc.Code, name)
			assert.Equal(t, wantErr.Error(), err.Error(), name)
		}
	})
}

func TestHTTPDirectCallProgressComesBeforeTheResult(t *testing.T) {
	eachAnswerKind(t, func(t *testing.T, srv *httpTestServer) {
		var mu sync.Mutex
		var progress []float64
		_, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, func(msg jsonrpc.Message) {
			if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "notifications/progress" {
				var p mcp.ProgressNotificationParams
				if json.Unmarshal(req.Params, &p) == nil && p.ProgressToken == "tok" {
					mu.Lock()
					progress = append(progress, p.Progress)
					mu.Unlock()
				}
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Meta: mcp.Meta{"progressToken": "tok"}}, nil)
		require.NoError(t, err)
		assert.Equal(t, "done", res.Content[0].(*mcp.TextContent).Text)
		mu.Lock()
		defer mu.Unlock()
		if strings.HasSuffix(t.Name(), "/json") {
			assert.Empty(t, progress, "a JSON answer has room for the result only")
			return
		}
		assert.Equal(t, []float64{1, 2, 3}, progress, "every progress reached the session before the result returned")
	})
}

func TestHTTPDirectCallCancelledEndsTheServersCall(t *testing.T) {
	eachAnswerKind(t, func(t *testing.T, srv *httpTestServer) {
		cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "block"}, nil)
			done <- err
		}()
		<-srv.started
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		assert.Equal(t, "block: cancelled", <-srv.cancelled, "the server's handler saw the cancellation")
		echoCtx, stop := context.WithTimeout(context.Background(), 20*time.Second)
		defer stop()
		res, err := cs.CallTool(echoCtx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still"}})
		require.NoError(t, err)
		assert.Equal(t, "still", res.Content[0].(*mcp.TextContent).Text)
	})
}

func TestHTTPDirectCallsBesideTheSessionsCalls(t *testing.T) {
	eachAnswerKind(t, func(t *testing.T, srv *httpTestServer) {
		cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
		mixCalls(t, cs, ht, 10)
	})
}

func TestHTTPDirectCallNotSentWhenNothingListens(t *testing.T) {
	noLeaks(t)
	srv := newHTTPTestServer(t, false)
	defer httppool.CloseIdle()
	cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv.Close()
	// As httptest's Close does for http.DefaultTransport: the client has
	// seen the server close its idle connections (its reader does within
	// microseconds; here the call comes at once).
	httppool.CloseIdle()
	_, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}, nil)
	_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	require.Error(t, wantErr)
	assert.ErrorIs(t, err, ErrNotSent)
	assert.Equal(t, wantErr.Error(), err.Error())
}

func TestHTTPDirectCallLeavesAChallengeToTheSession(t *testing.T) {
	noLeaks(t)
	srv := newHTTPTestServer(t, false)
	defer httppool.CloseIdle()
	cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL, BearerToken: "bad"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "secret"}, nil)
	require.ErrorIs(t, err, directcall.ErrCallOnSession, "a 401 goes to go-sdk's OAuth handling")
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "secret"})
	assert.ErrorIs(t, err, errBearerRefused)
	res, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"ok"}`)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Content[0].(*mcp.TextContent).Text)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	assert.Equal(t, "Bearer bad", srv.seen[len(srv.seen)-1].Get("Authorization"), "the token goes on direct calls")
}

func TestHTTPDirectCallsStepAsideForHeaderBoundArguments(t *testing.T) {
	noLeaks(t)
	srv := newHTTPTestServer(t, false)
	defer httppool.CloseIdle()
	cs, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
	require.True(t, ht.CallsDirect())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.False(t, ht.CallsDirect(), "go-sdk sends Mcp-Param- headers for such a tool")
	_, err = ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}, nil)
	assert.ErrorIs(t, err, directcall.ErrCallOnSession)
}

func TestHTTPDirectCallWithAnEventOverTheLimitFailsAlone(t *testing.T) {
	noLeaks(t)
	srv := newHTTPTestServer(t, false)
	defer httppool.CloseIdle()
	tr, err := StreamableHTTP{URL: srv.URL}.Open(nil)
	require.NoError(t, err)
	ht := tr.(*httpTransport)
	ht.sdk.MaxEventSize = 4096
	client := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, ht, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	defer cs.Close()
	_, err = ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + strings.Repeat("x", 5000) + `"}`)}, nil)
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Contains(t, rpc.Message, ErrMessageTooLarge.Error())
	assert.Contains(t, rpc.Message, "SSE event exceeded 4096 bytes")
	res, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"after"}`)}, nil)
	require.NoError(t, err)
	assert.Equal(t, "after", res.Content[0].(*mcp.TextContent).Text)
}

func TestDirectCallsCanBeTurnedOff(t *testing.T) {
	tr, err := StreamableHTTP{URL: "http://127.0.0.1:1/mcp", DisableDirectCalls: true}.Open(nil)
	require.NoError(t, err)
	assert.Nil(t, directcall.CallerOf(tr), "go-sdk's own connection, behind the flood gate")
	st, err := Stdio{Command: "true", DisableDirectCalls: true}.Open(nil)
	require.NoError(t, err)
	assert.Nil(t, directcall.CallerOf(st))
	st, err = Stdio{Command: "true"}.Open(nil)
	require.NoError(t, err)
	require.NotNil(t, directcall.CallerOf(st), "on by default")
	assert.True(t, directcall.CallerOf(st).CallsDirect())

	// The environment is read once, when the package starts: set now, it
	// changes nothing; set for a new process, it turns the path off there.
	t.Setenv(DirectCallsEnv, "0")
	st, err = Stdio{Command: "true"}.Open(nil)
	require.NoError(t, err)
	assert.NotNil(t, directcall.CallerOf(st), "the environment is read once, at start")
	out, err := exec.Command(os.Args[0], "-test.run=^TestDirectCallsOffInThisProcess$", "-test.v").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestDirectCallsOffInThisProcess")
}

// TestDirectCallsOffInThisProcess checks, in a process started with
// DirectCallsEnv=0 (as TestDirectCallsCanBeTurnedOff starts it), that the
// direct path is off for every server; started without, it checks nothing
// more than that the path is on.
func TestDirectCallsOffInThisProcess(t *testing.T) {
	tr, err := StreamableHTTP{URL: "http://127.0.0.1:1/mcp"}.Open(nil)
	require.NoError(t, err)
	st, err := Stdio{Command: "true"}.Open(nil)
	require.NoError(t, err)
	if os.Getenv(DirectCallsEnv) != "0" {
		assert.NotNil(t, directcall.CallerOf(st))
		return
	}
	assert.Nil(t, directcall.CallerOf(tr), "the environment turns it off for every server")
	assert.Nil(t, directcall.CallerOf(st), "the environment turns it off for every server")
}

// TestConcurrentCallsReuseConnections: 16 callers at once over a
// StreamableHTTP given no HTTPClient reuse their connections. With
// net/http's default transport (2 idle connections kept per server) 1,600
// calls opened 534.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	noLeaks(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	addEcho(s)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	_, ht := httpSession(t, StreamableHTTP{URL: srv.URL}, nil)
	require.True(t, ht.CallsDirect())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const callers, calls = 16, 100
	before := conns.Load()
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range calls {
				res, err := ht.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}, nil)
				if !assert.NoError(t, err) || !assert.False(t, res.IsError) {
					return
				}
			}
		})
	}
	wg.Wait()
	// At most one connection per caller, and one more for each that a
	// caller began to dial as another connection came free.
	assert.LessOrEqual(t, conns.Load()-before, int64(2*callers), "new connections for %d calls", callers*calls)
}
