package plugin_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The rows of "What each situation prints" in docs/errors.md: each error
// says first what happened to the server or the call, then the limit that
// ended the wait, and still matches the kinds and causes it matched.
// (internal/docscheck checks that every row names one of these tests.)

// situationText asserts that err reads "mcp-connector: <label>: ..." and
// returns the text after the label.
func situationText(t *testing.T, err error, label string) string {
	t.Helper()
	require.Error(t, err)
	t.Log(err)
	prefix := "mcp-connector: " + label + ": "
	require.True(t, strings.HasPrefix(err.Error(), prefix), "%q does not start with %q", err.Error(), prefix)
	return strings.TrimPrefix(err.Error(), prefix)
}

// a. A call made while an HTTP server is down, the plugin reconnecting,
// ends at its caller's deadline: the error says the server is unreachable
// and being reconnected, with the tries so far and the last cause, then
// that the caller's deadline passed. The hook's block reads the same.
func TestSituationCallWhileTheServerIsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: testserver.NewHTTPHandler(testserver.NewServer())}
	go func() { _ = srv.Serve(ln) }()
	p := connect(t, transport.StreamableHTTP{URL: "http://" + ln.Addr().String()}, fast,
		plugin.WithRestartBudget(1000, time.Minute), plugin.WithReconnectWait(time.Hour))
	require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	require.NoError(t, srv.Close())
	// An HTTP session notices the server's end at its next exchange.
	trigger, stop := context.WithTimeout(t.Context(), 100*time.Millisecond)
	_, _ = p.CallTool(trigger, "add", nil).Await(trigger)
	stop()
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.State == actors.Reconnecting && st.Restarts >= 2 && st.LastError != nil
	}, 30*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = p.CallTool(ctx, "add", nil).Await(ctx)
	rest := situationText(t, err, "server unreachable (internal)")
	assert.Regexp(t, `^http "http://127\.0\.0\.1:\d+": tools/call "add": the server is unreachable, reconnecting \(\d+ tries so far; last: connect: .*connection refused.*\): the caller's deadline passed: context deadline exceeded$`, rest)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, transport.ErrNotSent, "the last cause is told, not matched")
	assert.NotErrorIs(t, err, plugin.ErrConnectionLost)

	hctx, hcancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer hcancel()
	block := p.StartToolCall(hctx, host.ToolCall{ID: "c1", Name: "add"}).ToolResult(hctx)
	assert.True(t, block.IsError)
	assert.True(t, strings.HasPrefix(block.Content, "mcp-connector: server unreachable (internal): "), block.Content)
	assert.Contains(t, block.Content, "reconnecting")
}

// b. A call lost in flight when the child is killed says the server
// exited, with the signal, while the call was in flight.
func TestSituationCallInFlightWhenTheChildIsKilled(t *testing.T) {
	p := connect(t, testserver.Stdio(t), fast)
	pid, err := strconv.Atoi(callText(t, p, "pid", nil))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "ran")
	f := p.CallTool(t.Context(), "record", map[string]any{"path": path, "tag": "x", "ms": 60000})
	require.Eventually(t, func() bool { _, err := os.Stat(path); return err == nil }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, proc.Kill(pid)) // SIGKILL where there are signals
	_, err = f.Await(t.Context())
	rest := situationText(t, err, "server exited (internal)")
	assert.Regexp(t, `^stdio "[^"]*": tools/call "record": the server exited \(killed by signal SIGKILL\) while the call was in flight \(it may have run\)`, rest)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrConnectionLost)
	var mf *messages.Failure
	require.ErrorAs(t, err, &mf)
	assert.Equal(t, messages.CauseConnectionLost, mf.Cause)
	assert.Equal(t, "killed by signal SIGKILL", mf.Exit)
}

// c. A child that exits under a call (exit status 3) says so, its
// stderr after.
func TestSituationChildExitsUnderTheCall(t *testing.T) {
	p := connect(t, testserver.Stdio(t), fast)
	_, err := p.CallTool(t.Context(), "exit", nil).Await(t.Context())
	rest := situationText(t, err, "server exited (internal)")
	assert.Regexp(t, `^stdio "[^"]*": tools/call "exit": the server exited \(exit status 3\) while the call was in flight \(it may have run\)`, rest)
	assert.Contains(t, rest, "exiting on request", "the stderr tail follows")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrConnectionLost)
}

// c. A child that exits at start (exit status 1) says so.
func TestSituationChildExitsAtStart(t *testing.T) {
	_, err := plugin.Connect(t.Context(), transportSh("echo 'bad config' >&2; exit 1"), plugin.WithConnectTimeout(time.Minute))
	rest := situationText(t, err, "server exited (internal)")
	assert.Contains(t, rest, "connect: the server exited before answering server/discover (exit status 1)")
	assert.Contains(t, rest, "bad config")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	var mf *messages.Failure
	require.ErrorAs(t, err, &mf)
	assert.Equal(t, messages.CauseNone, mf.Cause, "the cause stays none")
	assert.Equal(t, "exit status 1", mf.Exit)
}

// c. A server that refuses this protocol revision says so.
func TestSituationProtocolRefused(t *testing.T) {
	_, err := plugin.Connect(t.Context(), testserver.Raw(t, "legacy"), plugin.WithConnectTimeout(time.Minute))
	rest := situationText(t, err, "protocol refused (internal)")
	assert.Contains(t, rest, "connect: ")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
}

// c. An HTTP server gone in the middle of a call: the connection is lost.
func TestSituationHTTPConnectionLostUnderTheCall(t *testing.T) {
	srv := httptest.NewServer(testserver.NewHTTPHandler(testserver.NewServer()))
	defer srv.Close()
	p := connect(t, transport.StreamableHTTP{URL: srv.URL}, fast, plugin.WithReconnectWait(time.Hour))
	before := testserver.Calls.Load()
	f := p.CallTool(t.Context(), "slow", map[string]any{"ms": 10000}) // srv.Close waits for it
	require.Eventually(t, func() bool { return testserver.Calls.Load() > before }, 30*time.Second, 5*time.Millisecond)
	srv.CloseClientConnections()
	_, err := f.Await(t.Context())
	rest := situationText(t, err, "connection lost (internal)")
	assert.Contains(t, rest, `tools/call "slow": connection lost`)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrConnectionLost)
}

// A server that keeps failing opens the breaker: calls say so first.
func TestSituationCircuitOpen(t *testing.T) {
	p, err := plugin.Connect(t.Context(), transportSh("exit 3"), plugin.WithRetryConnect(), fast,
		plugin.WithRestartBudget(1, time.Minute), plugin.WithBreakerCoolDown(time.Hour, time.Hour))
	require.NoError(t, err)
	defer p.Close()
	require.Eventually(t, func() bool { return p.Status().State == actors.Failed && p.Status().Restarts >= 1 }, 30*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(true, isCircuitOpen(p.Status().LastError)) }, 30*time.Second, 5*time.Millisecond)
	_, err = p.CallTool(t.Context(), "t", nil).Await(t.Context())
	rest := situationText(t, err, "circuit open (internal)")
	assert.Contains(t, rest, "exit status 3", "the last cause is kept")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrCircuitOpen)
}

func isCircuitOpen(err error) bool {
	return err != nil && strings.Contains(err.Error(), "restarts failed within")
}

// A limit that passes while the server runs the call: timed out, and the
// limit named.
func TestSituationTimedOut(t *testing.T) {
	p := connect(t, testserver.Stdio(t), plugin.WithCallTimeoutCap(100*time.Millisecond))
	_, err := p.CallTool(t.Context(), "slow", map[string]any{"ms": 60000}).Await(t.Context())
	rest := situationText(t, err, "timed out (internal)")
	assert.Contains(t, rest, `tools/call "slow": deadline exceeded: `)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A caller's deadline that passes while the server, up, runs the call.
func TestSituationCallerDeadlineWhileReady(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, "slow", map[string]any{"ms": 60000}).Await(ctx)
	rest := situationText(t, err, "timed out (internal)")
	assert.Regexp(t, `^stdio "[^"]*": tools/call "slow": the caller's deadline passed: context deadline exceeded$`, rest)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A caller that cancels.
func TestSituationCancelled(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx, cancel := context.WithCancel(t.Context())
	f := p.CallTool(ctx, "slow", map[string]any{"ms": 60000})
	cancel()
	_, err := f.Await(t.Context())
	rest := situationText(t, err, "cancelled (internal)")
	assert.Contains(t, rest, "caller gave up: context canceled")
	assert.ErrorIs(t, err, context.Canceled)
}

// The server's JSON-RPC error.
func TestSituationServerError(t *testing.T) {
	_, err := connect(t, testserver.Raw(t, "call_error")).CallTool(t.Context(), "t", nil).Await(t.Context())
	rest := situationText(t, err, "server error (internal)")
	assert.Contains(t, rest, `tools/call "t": the server answered with error `)
	assert.ErrorIs(t, err, plugin.ErrInternal)
}

// An HTTP server nothing answers at connect: unreachable.
func TestSituationUnreachableAtConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/mcp"
	require.NoError(t, ln.Close())
	_, err = plugin.Connect(t.Context(), transport.StreamableHTTP{URL: url}, plugin.WithConnectTimeout(time.Minute))
	rest := situationText(t, err, "server unreachable (internal)")
	assert.Contains(t, rest, "connect: server/discover could not reach ")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, transport.ErrNotSent)
}

// What is truly the plugin's own keeps "internal".
func TestSituationTrulyInternal(t *testing.T) {
	p, err := plugin.Connect(t.Context(), testserver.Stdio(t))
	require.NoError(t, err)
	require.NoError(t, p.Close())
	_, err = p.CallTool(t.Context(), "add", nil).Await(t.Context())
	rest := situationText(t, err, "internal")
	assert.Contains(t, rest, "plugin is closed")
}

// A call held while the server is down, until the reconnection wait
// passes: what happened to the server first, then the limit.
func TestSituationReconnectWaitPasses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: testserver.NewHTTPHandler(testserver.NewServer())}
	go func() { _ = srv.Serve(ln) }()
	p := connect(t, transport.StreamableHTTP{URL: "http://" + ln.Addr().String()}, fast,
		plugin.WithRestartBudget(1000, time.Minute), plugin.WithReconnectWait(300*time.Millisecond))
	require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	require.NoError(t, srv.Close())
	_, _ = p.CallTool(t.Context(), "add", nil).Await(t.Context()) // the session notices the server's end
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.State == actors.Reconnecting && st.Restarts >= 2 && st.LastError != nil
	}, 30*time.Second, 5*time.Millisecond)

	_, err = p.CallTool(t.Context(), "add", nil).Await(t.Context())
	rest := situationText(t, err, "server unreachable (internal)")
	assert.Regexp(t, `^http "http://127\.0\.0\.1:\d+": tools/call "add": the server is unreachable, reconnecting \(\d+ tries so far; last: connect: server/discover could not reach .*connection refused.*\): deadline exceeded: no connection within the reconnection wait of 300ms \(WithReconnectWait\)`, rest)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, transport.ErrNotSent)
}
