package directcall

// Parity with go-sdk: each test here runs go-sdk's own client code and
// this package's on the same bytes (the same server, the same answers)
// and requires the same outcome, so that a go-sdk upgrade that changes
// what the direct path copies fails here: every header of the POST, the
// request body with its _meta envelope, the notifications/cancelled that
// follows a cancelled call, the reading of event streams and JSON bodies,
// and the error texts.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noLeaks fails t if a goroutine it started outlives it and its cleanups.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// posted is one POST the parity server saw.
type posted struct {
	header http.Header
	body   []byte
}

// parityServer is go-sdk's stateless Streamable HTTP server with an
// "echo" and a "block" tool and the resources file:///a.txt and
// file:///block (which blocks like the tool), in front of which a call of
// a tool, or a read of a URI, named in raw is answered with that body (its
// "%ID%" replaced by the request's id) and content type.
type parityServer struct {
	*httptest.Server
	raw     map[string]rawAnswer
	started chan struct{}

	mu    sync.Mutex
	posts map[string][]posted // by JSON-RPC method
}

type rawAnswer struct {
	contentType, body string
}

func newParityServer(t *testing.T, raw map[string]rawAnswer) *parityServer {
	t.Helper()
	ps := &parityServer{raw: raw, started: make(chan struct{}, 4), posts: map[string][]posted{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "parity", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ps.started <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	s.AddResource(&mcp.Resource{URI: "file:///a.txt", Name: "a", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a.txt", MIMEType: "text/plain", Text: "héllo <&>"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///block", Name: "block"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			ps.started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		ps.mu.Lock()
		ps.posts[msg.Method] = append(ps.posts[msg.Method], posted{r.Header.Clone(), body})
		ps.mu.Unlock()
		if a, ok := ps.raw[r.Header.Get("Mcp-Name")]; ok && (r.Header.Get("Mcp-Method") == methodToolsCall || r.Header.Get("Mcp-Method") == methodReadResource) {
			var call struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(body, &call)
			w.Header().Set("Content-Type", a.contentType)
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, strings.ReplaceAll(a.body, "%ID%", string(call.ID)))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	return ps
}

// methods are the Mcp-Method headers seen, with how many of each.
func (ps *parityServer) methods() map[string]int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	m := map[string]int{}
	for k, v := range ps.posts {
		m[k] = len(v)
	}
	return m
}

// seen is what the server saw of method's POSTs.
func (ps *parityServer) seen(method string) []posted {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]posted(nil), ps.posts[method]...)
}

// wrapped is go-sdk's transport with its connection wrapped in HTTP, as
// transport's Streamable HTTP transport wraps it.
type wrapped struct {
	sdk  *mcp.StreamableClientTransport
	conn *HTTP
}

func (w *wrapped) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := w.sdk.Connect(ctx)
	if err != nil {
		return nil, err
	}
	w.conn = NewHTTP(inner, w.sdk, HTTPConfig{})
	return w.conn, nil
}

// staticToken is an OAuth handler with a token that never changes.
type staticToken string

func (s staticToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: string(s), TokenType: "Bearer"}), nil
}

func (staticToken) Authorize(context.Context, *http.Request, *http.Response) error {
	return fmt.Errorf("no other token")
}

// pair connects a go-sdk client to url through go-sdk's transport wrapped
// in HTTP: the session's CallTool is go-sdk's, the conn's is ours.
func pair(t *testing.T, url string) (*mcp.ClientSession, *HTTP) {
	t.Helper()
	return pairWith(t, url, nil)
}

// pairWith is pair with a client of opts.
func pairWith(t *testing.T, url string, opts *mcp.ClientOptions) (*mcp.ClientSession, *HTTP) {
	t.Helper()
	w := &wrapped{sdk: &mcp.StreamableClientTransport{Endpoint: url, MaxEventSize: 1 << 20, OAuthHandler: staticToken("tok")}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "parity-client", Version: "1.2.3"}, opts)
	cs, err := client.Connect(ctx, w, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	require.True(t, w.conn.CallsDirect(), "the envelope is learnt from go-sdk's first request")
	return cs, w.conn
}

// withoutID is a JSON-RPC message's body without its id, and requestId
// when it is a notifications/cancelled.
func withoutID(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), "%s", body)
	delete(m, "id")
	if p, ok := m["params"].(map[string]any); ok {
		delete(p, "requestId")
	}
	return m
}

func TestThePOSTOfACallIsGoSDKs(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	params := func() *mcp.CallToolParams {
		p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo <&>"}}
		p.SetProgressToken("p1")
		return p
	}
	want, err := cs.CallTool(ctx, params())
	require.NoError(t, err)
	got, err := ours.CallTool(ctx, params(), nil)
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)

	calls := ps.seen(methodToolsCall)
	require.Len(t, calls, 2)
	sdk, our := calls[0], calls[1]
	for _, h := range []http.Header{sdk.header, our.header} {
		h.Del("Content-Length") // the ids differ in length
	}
	assert.Equal(t, sdk.header, our.header, "every header of go-sdk's POST, and no other")
	assert.Equal(t, "Bearer tok", our.header.Get("Authorization"))
	assert.Equal(t, withoutID(t, sdk.body), withoutID(t, our.body), "the body, its _meta envelope included")
	assert.Contains(t, string(our.body), `"io.modelcontextprotocol/clientInfo"`)
}

func TestACancelledCallTellsTheServerAsGoSDKDoes(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	run := func(call func(ctx context.Context) error) error {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- call(ctx) }()
		<-ps.started
		cancel()
		return <-done
	}
	wantErr := run(func(ctx context.Context) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		return err
	})
	gotErr := run(func(ctx context.Context) error {
		_, err := ours.CallTool(ctx, &mcp.CallToolParams{Name: "block"}, nil)
		return err
	})
	require.Error(t, wantErr)
	assert.Equal(t, wantErr.Error(), gotErr.Error())
	var notes []posted
	require.Eventually(t, func() bool {
		notes = ps.seen("notifications/cancelled")
		return len(notes) == 2
	}, 10*time.Second, 10*time.Millisecond, "a notifications/cancelled for each: %v", ps.methods())
	// go-sdk's carries no _meta: the connection actor's envelopeTransport
	// adds the envelope to go-sdk's notifications, and ours has it.
	sdk, our := withoutID(t, notes[0].body), withoutID(t, notes[1].body)
	if _, ok := sdk["params"].(map[string]any)["_meta"]; ok {
		sdk, our = our, sdk
	}
	meta := our["params"].(map[string]any)["_meta"]
	delete(our["params"].(map[string]any), "_meta")
	assert.Equal(t, sdk, our)
	env := withoutID(t, ps.seen(methodToolsCall)[0].body)["params"].(map[string]any)["_meta"].(map[string]any)
	assert.Equal(t, env, meta, "the envelope of go-sdk's calls")
}

// streams are answers of every shape go-sdk's reading meets, as event
// streams and JSON bodies; %ID% is the call's id.
var streams = map[string]rawAnswer{
	"crafted": {"text/event-stream; charset=utf-8", ": hello\n\nid: 7\nretry: 10\n\nevent: other\ndata: not json\n\n" +
		"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\r\ndata:  \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\r\n" +
		"data: \"isError\":true,\"extra\":1}}\r\n\r\n: after\n\n"},
	"nospace":   {"text/event-stream", "data:{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"content\":[]}}\n\n"},
	"lastline":  {"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"eof\"}]}}"},
	"progress":  {"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"x\",\"progress\":1}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"content\":[]}}\n\n"},
	"rpcerror":  {"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\"error\":{\"code\":-32602,\"message\":\"bad\",\"data\":{\"k\":1}}}\n\n"},
	"cut":       {"text/event-stream", ": nothing\n\n"},
	"malformed": {"text/event-stream", "data: 1\nno colon\n\n"},
	"notjson":   {"text/event-stream", "data: {not json\n\n"},
	"json":      {"application/json", "{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"j\"}],\"structuredContent\":{\"a\":[1,2]}}}"},
	"jsonerror": {"application/json", "{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"error\":{\"code\":-32000,\"message\":\"no\"}}"},
	"badjson":   {"application/json", "{\"jsonrpc\":"},
	"plain":     {"text/plain", "hello"},
	"template":  {"application/json", "{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"resultType\":\"complete\",\"content\":[]}}"},
	// Deeper than go-sdk reads a message: it breaks the connection.
	"deep": {"application/json", "{\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"structuredContent\":" + strings.Repeat("[", 999) + strings.Repeat("]", 999) + ",\"content\":[]}}"},
}

func TestAnswersAreReadAsGoSDKReadsThem(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, streams)
	for name := range streams {
		t.Run(name, func(t *testing.T) {
			// A session each: an answer that cannot be read breaks it.
			cs, _ := pair(t, ps.URL)
			_, ours := pair(t, ps.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			want, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
			got, err := ours.CallTool(ctx, &mcp.CallToolParams{Name: name}, nil)
			if wantErr != nil {
				require.Error(t, err, "go-sdk failed with %v", wantErr)
				assert.Equal(t, wantErr.Error(), err.Error())
				sameKind(t, wantErr, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
		})
	}
}

func TestCallsOnAClosedConnectionFailAsGoSDKs(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	require.NoError(t, cs.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	_, err := ours.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}, nil)
	require.Error(t, wantErr)
	require.Error(t, err)
	assert.Equal(t, wantErr.Error(), err.Error())
	sameKind(t, wantErr, err)
}

// sameKind fails t unless err is of want's kind: a connection closed, a
// JSON-RPC error with its code.
func sameKind(t *testing.T, want, err error) {
	t.Helper()
	assert.Equal(t, errors.Is(want, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrConnectionClosed), "mcp.ErrConnectionClosed")
	var wantRPC, rpc *jsonrpc.Error
	if assert.Equal(t, errors.As(want, &wantRPC), errors.As(err, &rpc), "*jsonrpc.Error") && wantRPC != nil {
		assert.Equal(t, wantRPC.Code, rpc.Code)
	}
}

func TestACallNothingAnswersFailsAsGoSDKs(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	ps.Close() // nothing listens any more
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := ours.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}, nil)
	_, wantErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"})
	require.Error(t, wantErr)
	require.Error(t, err)
	assert.Equal(t, wantErr.Error(), err.Error())
	sameKind(t, wantErr, err)
}
