package plugin_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// starts counts the lines of a file a server appends to at each start.
func starts(t *testing.T, path, line string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, line) {
			n++
		}
	}
	return n
}

// errorLog keeps every LastError a status handler sees.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) handler(s plugin.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.LastError != nil && (len(l.errs) == 0 || l.errs[len(l.errs)-1].Error() != s.LastError.Error()) {
		l.errs = append(l.errs, s.LastError)
	}
}

// count is how many errors seen match target.
func (l *errorLog) count(target error) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, err := range l.errs {
		if errors.Is(err, target) {
			n++
		}
	}
	return n
}

// A server that speaks only older revisions is started once: the version
// refusal is final, the state Failed with that reason, until the host asks
// again with Reconnect, which starts it once more. So it goes whatever the
// refusal looks like: "method not found", gopls's code 0 from a server that
// stays up, or the TypeScript SDK v1's HTTP 400 "Server not initialized".
func TestLegacyOnlyServerIsNotStartedAgainUntilAsked(t *testing.T) {
	cases := map[string]func(t *testing.T) (transport.McpTransport, func() int){
		"method not found": func(t *testing.T) (transport.McpTransport, func() int) {
			log := filepath.Join(t.TempDir(), "received")
			return testserver.Raw(t, "legacy", log), func() int { return starts(t, log, "server/discover") }
		},
		"code 0, stays up": func(t *testing.T) (transport.McpTransport, func() int) {
			log := filepath.Join(t.TempDir(), "received")
			return testserver.Raw(t, "session_first", log), func() int { return starts(t, log, "server/discover") }
		},
		"HTTP 400 Server not initialized": func(t *testing.T) (transport.McpTransport, func() int) {
			srv := testserver.NewRefusingHTTP(t, http.StatusBadRequest, testserver.LegacyNotInitializedBody)
			return transport.StreamableHTTP{URL: srv.URL}, func() int { return int(srv.Posts.Load()) }
		},
	}
	for name, server := range cases {
		t.Run(name, func(t *testing.T) {
			tr, discovers := server(t)
			p, err := plugin.Connect(context.Background(), tr, plugin.WithRetryConnect(), fast, plugin.WithBreakerCoolDown(time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			defer p.Close()
			err = p.WaitReady(context.Background())
			require.ErrorIs(t, err, plugin.ErrProtocolVersion)
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), "does not speak MCP 2026-07-28")
			st := p.Status()
			assert.Equal(t, actors.Failed, st.State)
			assert.ErrorIs(t, st.LastError, plugin.ErrProtocolVersion)
			_, err = p.CallTool(context.Background(), "t", nil).Await(context.Background())
			assert.ErrorIs(t, err, plugin.ErrProtocolVersion, "calls fail at once with the reason")
			time.Sleep(50 * time.Millisecond) // fifty cool-downs, were it retried
			assert.Equal(t, 1, discovers())
			assert.Zero(t, p.Status().Restarts)

			err = p.Reconnect(context.Background())
			require.ErrorIs(t, err, plugin.ErrProtocolVersion)
			assert.Equal(t, 2, discovers(), "asked again, it is started once more, and no more")
			assert.Equal(t, actors.Failed, p.Status().State)
		})
	}
}

// A server that crashes at every start costs the restart budget plus one
// spawn per cool-down: the breaker opens when the budget is spent, says
// how many restarts failed and when the next try is, and each try after a
// cool-down is one spawn.
func TestServerThatCrashesAtEveryStartCostsBoundedSpawns(t *testing.T) {
	spawns := filepath.Join(t.TempDir(), "spawns")
	var log errorLog
	p, err := plugin.Connect(context.Background(), transportSh("echo start >> '"+spawns+"'; echo 'bad config' >&2; exit 3"), plugin.WithRetryConnect(), fast,
		plugin.WithRestartBudget(2, time.Minute), plugin.WithBreakerCoolDown(200*time.Millisecond, time.Hour),
		plugin.WithStatusHandler(log.handler))
	require.NoError(t, err)
	defer p.Close()

	require.Eventually(t, func() bool { return log.count(plugin.ErrCircuitOpen) >= 1 }, 10*time.Second, time.Millisecond)
	first := p.Status().LastError
	require.ErrorIs(t, first, plugin.ErrCircuitOpen)
	assert.Contains(t, first.Error(), "2 restarts failed within")
	assert.Contains(t, first.Error(), "next try at")
	assert.Contains(t, first.Error(), "exit status 3", "the last cause is kept")
	assert.NotContains(t, first.Error(), "2026-07-28")
	// The first breaker opened after the first start and two restarts; the
	// second after one try more, following the cool-down of 200ms.
	require.Eventually(t, func() bool { return log.count(plugin.ErrCircuitOpen) >= 2 }, 10*time.Second, time.Millisecond)
	require.NoError(t, p.Close())
	n := starts(t, spawns, "start")
	assert.Equal(t, 4, n, "budget plus one, plus one per cool-down (the test closed within the next cool-down of 200ms)")

	_, err = p.CallTool(context.Background(), "t", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
}

// A good Streamable HTTP server that is down for longer than the restart
// budget lasts is not lost for good: the breaker opens, calls fail at once
// with ErrCircuitOpen, and within one cool-down of the server's return
// the plugin serves again.
func TestHTTPServerBackAfterALongOutageServesWithinOneCoolDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		srv := &http.Server{Handler: testserver.NewHTTPHandler(testserver.NewServer())}
		go func() { _ = srv.Serve(ln) }()
		return srv
	}
	srv := serve(ln)
	var log errorLog
	p := connect(t, transport.StreamableHTTP{URL: "http://" + addr}, fast,
		plugin.WithRestartBudget(2, time.Minute), plugin.WithBreakerCoolDown(50*time.Millisecond, 50*time.Millisecond),
		plugin.WithStatusHandler(log.handler), plugin.WithReconnectWait(time.Hour))
	require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))

	require.NoError(t, srv.Close())
	_, err = p.CallTool(context.Background(), "add", nil).Await(context.Background())
	// Sent on the connection the server closed, the call is lost; if the
	// POST found no connection at all, it waited until the breaker opened.
	require.ErrorIs(t, err, plugin.ErrInternal)
	if !errors.Is(err, plugin.ErrCircuitOpen) {
		require.ErrorIs(t, err, plugin.ErrConnectionLost)
	}
	require.Eventually(t, func() bool { return log.count(plugin.ErrCircuitOpen) >= 1 }, 10*time.Second, time.Millisecond)
	// Open, or half-open and failing again while the server stays down: a
	// call fails with the breaker's error, which keeps the last cause.
	_, err = p.CallTool(context.Background(), "add", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrCircuitOpen)
	assert.Contains(t, err.Error(), "connection refused")

	ln2, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	srv2 := serve(ln2)
	defer srv2.Close()
	require.Eventually(t, func() bool { return p.Status().State == actors.Ready }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))

	// Recovered, the status carries no error of the past; the last
	// failure, the breaker's, stays readable apart with its time.
	st := p.Status()
	assert.Equal(t, actors.Ready, st.State)
	assert.NoError(t, st.LastError)
	require.Error(t, st.LastFailure)
	assert.ErrorIs(t, st.LastFailure, plugin.ErrCircuitOpen)
	assert.False(t, st.LastFailureAt.IsZero())
	assert.True(t, st.LastFailureAt.Before(time.Now()))
}

// A connection that failed and recovered reports Ready with no error,
// and its last failure apart, with when it happened: for a stdio child
// killed and restarted.
func TestStatusAfterRecoveryCarriesNoErrorOfThePast(t *testing.T) {
	var seen []plugin.Status
	var mu sync.Mutex
	p := connect(t, testserver.Stdio(t), fast, plugin.WithStatusHandler(func(s plugin.Status) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}))
	assert.Nil(t, p.Status().LastFailure, "no failure yet")
	before := time.Now()
	killServer(t, p)
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.State == actors.Ready && st.Restarts == 1
	}, 10*time.Second, time.Millisecond)
	st := p.Status()
	assert.NoError(t, st.LastError, "ready: no error of the past")
	require.Error(t, st.LastFailure)
	assert.ErrorIs(t, st.LastFailure, plugin.ErrInternal)
	assert.Contains(t, st.LastFailure.Error(), "killed")
	assert.False(t, st.LastFailureAt.Before(before))
	assert.False(t, st.LastFailureAt.After(time.Now()))

	mu.Lock()
	defer mu.Unlock()
	var reconnecting *plugin.Status
	for i := range seen {
		if seen[i].State == actors.Reconnecting {
			reconnecting = &seen[i]
		}
		if seen[i].State == actors.Ready {
			assert.NoError(t, seen[i].LastError, "no ready status carries an error")
		}
	}
	require.NotNil(t, reconnecting, "a reconnecting status came")
	assert.Equal(t, reconnecting.LastFailure, reconnecting.LastError, "while reconnecting, the failure is the present one")
}
