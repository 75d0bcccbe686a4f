package interop

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"golang.org/x/oauth2"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// restartHTTP kills the run's HTTP server and starts it again on the same
// port: a new process, which knows none of the old one's sessions.
func (r *legacyRun) restartHTTP() {
	r.t.Helper()
	u, err := url.Parse(r.URL)
	require.NoError(r.t, err)
	r.Stop()
	r.argv[len(r.argv)-1] = u.Port()
	require.Equal(r.t, u.Port(), r.startHTTP())
}

// Over Streamable HTTP an older revision's session is the server's
// Mcp-Session-Id. The TypeScript SDK v1 server restarted forgets it, and
// answers the next POST 400 "No valid session ID provided" (the spec says
// 404): the session is lost, the plugin initializes a new one, and calls
// work again.
func TestLegacyStreamableSessionLost(t *testing.T) {
	r := startLegacy(t, legacyRow(t, legacyStreamable))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, r.Transport, plugin.WithLegacyFallback(), plugin.WithBackoff(10*time.Millisecond, 200*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Equal(t, "Echo: one", legacyText(t, p, "echo", map[string]any{"message": "one"}))
	require.Equal(t, 1, r.Received("initialize"))

	r.restartHTTP()
	var last error
	require.Eventually(t, func() bool {
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		res, err := p.CallTool(cctx, "echo", map[string]any{"message": "two"}).Await(cctx)
		last = err
		return err == nil && !res.IsError && plugin.RenderResult(res) == "Echo: two"
	}, time.Minute, 50*time.Millisecond, "a call works again: %v", func() error { return last }())
	assert.GreaterOrEqual(t, p.Status().Restarts, 1, "the lost session ended, and a new one began")
	assert.Equal(t, 2, r.Received("initialize"), "the new process was initialized, once")
	assert.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion())
}

// everythingHTTP starts server-everything's Streamable HTTP mode (the
// TypeScript SDK v1's StreamableHTTPServerTransport with sessions) on a
// free loopback port and returns its endpoint; the process is killed when
// the test ends.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	argv, _, why := nodePackage("server-everything", "streamableHttp")(t.TempDir())
	needs(t, "@modelcontextprotocol/server-everything streamableHttp", why)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	require.NoError(t, l.Close())
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.Dir = t.TempDir()
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "listening on port") }, time.Minute, 20*time.Millisecond,
		"server-everything streamableHttp did not listen: %s", out.String())
	return "http://127.0.0.1:" + port + "/mcp"
}

// server-everything over Streamable HTTP, an older revision's session
// with an Mcp-Session-Id: a call, its progress on the call's own stream,
// and a sampling request the server sends within the call, answered by
// InputHandlers.
func TestLegacyEverythingStreamableHTTP(t *testing.T) {
	endpoint := everythingHTTP(t)
	var progress atomic.Int32
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: endpoint}, plugin.WithLegacyFallback(),
		plugin.WithInputRequired(everythingInput()), plugin.WithProgress(func(plugin.Progress) { progress.Add(1) }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	assert.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion())
	assert.Equal(t, "Echo: http", legacyText(t, p, "echo", map[string]any{"message": "http"}))
	assert.Contains(t, legacyText(t, p, "trigger-long-running-operation", map[string]any{"duration": 0.2, "steps": 2}), "Steps: 2")
	assert.Equal(t, int32(2), progress.Load(), "both progress notifications before the result")
	assert.Contains(t, legacyText(t, p, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}), "sampled 5")
}

// After initialize over Streamable HTTP, every request names the
// negotiated revision in its MCP-Protocol-Version header, and the client
// opens the revision's standalone GET stream: the TypeScript SDK v1 server
// sends what answers no request (notifications/tools/list_changed, a
// notifications/message, its ping) only there, so without it the plugin's
// tool list never learns of the new tool, the logger hears nothing, and
// the ping goes unanswered. The client's own pings (go-sdk's KeepAlive)
// name the revision too.
func TestLegacyStreamableListChanged(t *testing.T) {
	for _, direct := range []bool{true, false} {
		t.Run(map[bool]string{true: "direct calls", false: "DisableDirectCalls"}[direct], func(t *testing.T) {
			r := startLegacy(t, legacyRow(t, legacyStreamable))
			core, logs := observer.New(zap.DebugLevel)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			tr := r.Transport.(transport.StreamableHTTP)
			tr.DisableDirectCalls = !direct
			p, err := plugin.Connect(ctx, tr, plugin.WithLegacyFallback(), plugin.WithToolRefresh(), plugin.WithLogger(zap.New(core)),
				plugin.WithClientOptions(&mcp.ClientOptions{KeepAlive: 50 * time.Millisecond}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			version := p.ProtocolVersion()
			require.Contains(t, actors.LegacyRevisions(), version)
			require.False(t, p.HasTool("extra"))

			// The stream opens beside the session, and the server drops
			// what it sends while it has none: grow until the plugin hears.
			require.Eventually(t, func() bool {
				if !p.HasTool("extra") {
					assert.Equal(t, "grew", legacyText(t, p, "grow", nil))
				}
				return p.HasTool("extra")
			}, time.Minute, 200*time.Millisecond, "tools/list_changed reached the plugin")
			assert.Equal(t, "extra", legacyText(t, p, "extra", nil))
			require.Eventually(t, func() bool {
				for _, e := range logs.All() {
					if e.Message == "mcp server log" && fmt.Sprint(e.ContextMap()["data"]) == "grew" {
						return true
					}
				}
				return false
			}, time.Minute, 20*time.Millisecond, "the server's notifications/message reached the logger")
			assert.Equal(t, "pong", legacyText(t, p, "ping-client", nil), "the client answers the server's ping")
			require.Eventually(t, func() bool { return r.Received("ping at "+version) >= 1 }, time.Minute, 20*time.Millisecond,
				"the client's keep-alive ping")

			require.NoError(t, p.Close())
			r.Stop() // every line the server printed is counted
			assert.Equal(t, 1, r.Received("initialize at none"), "initialize names no revision yet")
			assert.Equal(t, 1, r.Received("notifications/initialized at "+version))
			assert.GreaterOrEqual(t, r.Received("tools/list at "+version), 2, "the first list, and the one after the change")
			assert.GreaterOrEqual(t, r.Received("tools/call at "+version), 2, "grow, extra")
			assert.GreaterOrEqual(t, r.Received("GET at "+version), 1)
			for _, m := range []string{"notifications/initialized", "tools/list", "tools/call", "ping", "GET"} {
				assert.Zero(t, r.Received(m+" at none"), "%s without MCP-Protocol-Version", m)
			}
		})
	}
}

// A go-sdk v1.8.0 server that serves only the older revisions over
// Streamable HTTP with sessions, behind a bearer token (given as
// BearerToken, or got by an OAuth handler on the first 401): the fallback's
// session lists every page of tools (two a page), calls one, carries the
// token and the revision's header on every request after initialize (its
// standalone stream's GET too), and hears the server's
// tools/list_changed on that stream.
func TestLegacyGoSDKServerOverHTTP(t *testing.T) {
	t.Run("BearerToken", func(t *testing.T) { legacyGoSDKServerOverHTTP(t, nil) })
	// An OAuth handler that has no token until the server's first 401,
	// which its Authorize answers with one.
	t.Run("OAuthHandler", func(t *testing.T) { legacyGoSDKServerOverHTTP(t, &grantOnChallenge{}) })
}

// grantOnChallenge is a go-sdk auth.OAuthHandler whose Authorize gets
// the token the test server wants.
type grantOnChallenge struct {
	mu         sync.Mutex
	token      *oauth2.Token
	authorized int
}

func (h *grantOnChallenge) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.token == nil {
		return nil, nil
	}
	return oauth2.StaticTokenSource(h.token), nil
}

func (h *grantOnChallenge) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_ = resp.Body.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.token = &oauth2.Token{AccessToken: "interop-token", TokenType: "Bearer"}
	h.authorized++
	return nil
}

func legacyGoSDKServerOverHTTP(t *testing.T, oauth *grantOnChallenge) {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-go-sdk-older", Version: "1.8.0"},
		&mcp.ServerOptions{PageSize: 2, SupportedProtocolVersions: actors.LegacyRevisions()})
	addTool := func(name string) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	for i := range 5 {
		addTool(fmt.Sprint("t", i))
	}
	var lists atomic.Int32
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	var mu sync.Mutex
	versions := map[string]int{} // MCP-Protocol-Version header ("" none) -> requests
	gets, refused := 0, 0
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("Authorization") != "Bearer interop-token" {
			refused++
			mu.Unlock()
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		versions[r.Header.Get("Mcp-Protocol-Version")]++
		if r.Method == http.MethodGet {
			gets++
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tr := transport.StreamableHTTP{URL: srv.URL, BearerToken: "interop-token"}
	if oauth != nil {
		tr = transport.StreamableHTTP{URL: srv.URL, OAuthHandler: oauth}
	}
	p, err := plugin.Connect(ctx, tr, plugin.WithLegacyFallback(), plugin.WithToolRefresh())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	version := p.ProtocolVersion()
	require.Equal(t, actors.LegacyRevisions()[0], version)
	assert.Len(t, p.Tools(), 5, "every page")
	assert.GreaterOrEqual(t, lists.Load(), int32(3), "three pages of two")
	assert.Equal(t, "t3", legacyText(t, p, "t3", nil))

	// The stream opens beside the session; a change the server makes
	// before it has one is not sent.
	n := 0
	require.Eventually(t, func() bool {
		if p.HasTool(fmt.Sprint("n", n)) {
			return true
		}
		n++
		addTool(fmt.Sprint("n", n))
		return false
	}, time.Minute, 100*time.Millisecond, "tools/list_changed reached the plugin")
	assert.Equal(t, fmt.Sprint("n", n), legacyText(t, p, fmt.Sprint("n", n), nil))

	require.NoError(t, p.Close())
	mu.Lock()
	defer mu.Unlock()
	if oauth != nil {
		assert.Equal(t, 1, refused, "the first request, before the handler had a token")
		oauth.mu.Lock()
		assert.Equal(t, 1, oauth.authorized)
		oauth.mu.Unlock()
	} else {
		assert.Zero(t, refused, "every request carried the token")
	}
	assert.GreaterOrEqual(t, gets, 1, "the standalone stream was opened")
	assert.Equal(t, 1, versions[""], "only initialize names no revision: %v", versions)
	assert.Equal(t, 1, versions[actors.ProtocolVersion], "server/discover: %v", versions)
}

// server-everything over Streamable HTTP sends
// notifications/resources/list_changed (a tool registers a resource) on
// the session's standalone GET stream, which the plugin opens after
// initialize: the change reaches WithListChangeHandler. The stream opens
// beside the session, and the server drops what it sends while there is
// none, so resources are registered until one change is heard.
func TestLegacyEverythingStreamableListChanged(t *testing.T) {
	endpoint := everythingHTTP(t)
	changes := make(chan plugin.ListChange, 16)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: endpoint}, plugin.WithLegacyFallback(),
		plugin.WithListChangeHandler(func(c plugin.ListChange) {
			select {
			case changes <- c:
			default:
			}
		}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	data := "data:text/plain;base64,aGVsbG8="
	n := 0
	require.Eventually(t, func() bool {
		select {
		case c := <-changes:
			assert.Equal(t, plugin.ResourcesChanged, c)
			return true
		default:
		}
		n++
		legacyText(t, p, "gzip-file-as-resource", map[string]any{"name": fmt.Sprintf("interop%d.gz", n), "data": data})
		return false
	}, time.Minute, 200*time.Millisecond, "notifications/resources/list_changed on the standalone stream")
}
