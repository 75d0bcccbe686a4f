package plugin_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// transportSh runs a shell script as the "server": for servers that die or
// hang before speaking MCP.
func transportSh(script string) transport.Stdio {
	return transport.NewStdio("sh", "-c", script)
}

// fast restarts keep the fault tests short.
var fast = plugin.WithBackoff(10*time.Millisecond, 50*time.Millisecond)

// killServer SIGKILLs the stdio child of p and returns its pid.
func killServer(t *testing.T, p *plugin.McpPlugin) int {
	t.Helper()
	pid, err := strconv.Atoi(callText(t, p, "pid", nil))
	require.NoError(t, err)
	require.NoError(t, proc.Kill(pid))
	return pid
}

// awaitRestarts waits until p has restarted n times and is ready again.
// (A call made between a crash and its detection is a call in flight at the
// crash: it fails.)
func awaitRestarts(t *testing.T, p *plugin.McpPlugin, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.Restarts >= n && st.State == actors.Ready
	}, 10*time.Second, time.Millisecond)
}

// lines reads the record file.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Fields(string(b))
}

// statusLog collects every status change.
type statusLog struct {
	mu     sync.Mutex
	states []actors.State
}

func (l *statusLog) handler(s plugin.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.states = append(l.states, s.State)
}

func (l *statusLog) get() []actors.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]actors.State(nil), l.states...)
}

func TestKilledServerIsRestartedAndNothingRunsTwice(t *testing.T) {
	var log statusLog
	p := connect(t, testserver.Stdio(t), fast, plugin.WithStatusHandler(log.handler))
	record := filepath.Join(t.TempDir(), "record")
	ctx := context.Background()

	inflight := p.CallTool(ctx, "record", map[string]any{"path": record, "tag": "slow", "ms": 60000})
	require.Eventually(t, func() bool { b, _ := os.ReadFile(record); return len(b) > 0 }, 10*time.Second, 5*time.Millisecond)
	oldPid := killServer(t, p)

	_, err := inflight.Await(ctx)
	require.ErrorIs(t, err, plugin.ErrInternal, "the call in flight fails at once")
	assert.ErrorIs(t, err, plugin.ErrConnectionLost)

	// The next call succeeds on a new process.
	awaitRestarts(t, p, 1)
	assert.Equal(t, "recorded next", callText(t, p, "record", map[string]any{"path": record, "tag": "next", "ms": 0}))
	newPid, err := strconv.Atoi(callText(t, p, "pid", nil))
	require.NoError(t, err)
	assert.NotEqual(t, oldPid, newPid)

	assert.Equal(t, []string{"slow", "next"}, lines(t, record), "the killed call was never re-sent")
	st := p.Status()
	assert.Equal(t, actors.Ready, st.State)
	assert.Equal(t, 1, st.Restarts)
	assert.NoError(t, st.LastError, "ready again: no error of the past")
	require.Error(t, st.LastFailure, "the lost session stays readable apart")
	assert.Equal(t, []actors.State{actors.Connecting, actors.Ready, actors.Reconnecting, actors.Ready}, log.get())
}

func TestServerThatExitsIsRestarted(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	p := connect(t, testserver.Stdio(t), fast, plugin.WithLogger(zap.New(core)))
	for i := range 3 {
		_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
		require.ErrorIs(t, err, plugin.ErrInternal)
		awaitRestarts(t, p, i+1)
		assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}), "after exit %d", i+1)
	}
	assert.Equal(t, 3, p.Status().Restarts)
	restored := logs.FilterMessage("mcp connection restored").All()
	require.Len(t, restored, 3, "each restart logs the new tool snapshot")
	assert.Equal(t, int64(len(testserver.ToolNames)), restored[0].ContextMap()["tools"])
	assert.Len(t, p.Tools(), len(testserver.ToolNames))
}

func TestConnectInAHostActorSystem(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	p := connect(t, testserver.Stdio(t), plugin.WithActorSystem(system))
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	require.NoError(t, p.Close())
	// The host's system is still the host's: it keeps running actors.
	echo := system.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		if s, ok := ctx.Message().(string); ok {
			ctx.Respond(s)
		}
	}))
	res, err := system.Root.RequestFuture(echo, "still here", 5*time.Second).Result()
	require.NoError(t, err)
	assert.Equal(t, "still here", res)
	require.NoError(t, system.Root.StopFuture(echo).Wait())
}

func TestServerThatNeverStartsFailsConnectWithoutARestartLoop(t *testing.T) {
	var log statusLog
	start := time.Now()
	_, err := plugin.Connect(context.Background(),
		transportSh("echo 'cannot open database' >&2; exit 1"), fast, plugin.WithStatusHandler(log.handler))
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "cannot open database", "the child's stderr says why")
	assert.Equal(t, []actors.State{actors.Connecting, actors.Failed, actors.Closed}, log.get())
	t.Logf("Connect failed after %s", time.Since(start))

	_, err = plugin.Connect(context.Background(), transport.NewStdio("mcpconnector-no-such-command"), fast)
	require.ErrorIs(t, err, plugin.ErrIO)
}

func TestServerThatHangsAtConnectIsBoundedByCtx(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := plugin.Connect(ctx, transportSh("sleep 60"))
	require.ErrorIs(t, err, plugin.ErrInternal)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestGarbageOnStdoutIsSkippedWithoutARestart(t *testing.T) {
	p := connect(t, testserver.Raw(t, "garbage"), fast)
	// The server answers every call with a line that is not JSON: the line
	// is skipped, so the call ends at its deadline, and the session stays.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, "t", nil).Await(ctx)
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "deadline exceeded")
	assert.Equal(t, actors.Ready, p.Status().State)
	assert.Zero(t, p.Status().Restarts)
}

func TestRestartBudgetSpentFailsFastAndCloseStillWorks(t *testing.T) {
	p := connect(t, testserver.Stdio(t), fast, plugin.WithRestartBudget(1, time.Minute))
	killServer(t, p)
	awaitRestarts(t, p, 1)
	require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	killServer(t, p)
	require.Eventually(t, func() bool { return p.Status().State == actors.Failed }, 10*time.Second, 5*time.Millisecond)
	_, err := p.CallTool(context.Background(), "add", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, plugin.ErrCircuitOpen)
	assert.ErrorIs(t, err, plugin.ErrConnectionLost, "the last cause stays readable")
	assert.Contains(t, err.Error(), "1 restarts failed within")
	assert.Contains(t, err.Error(), "next try at")
	require.NoError(t, p.Close())
	assert.Equal(t, actors.Closed, p.Status().State)
}

func TestCallsWaitForTheReconnectionOrTheirWaitLimit(t *testing.T) {
	p := connect(t, testserver.Stdio(t), plugin.WithBackoff(400*time.Millisecond, 400*time.Millisecond),
		plugin.WithReconnectWait(50*time.Millisecond))
	killServer(t, p)
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	_, err := p.CallTool(context.Background(), "add", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "no connection within the reconnection wait")

	p2 := connect(t, testserver.Stdio(t), plugin.WithBackoff(200*time.Millisecond, 200*time.Millisecond))
	killServer(t, p2)
	require.Eventually(t, func() bool { return p2.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	var futures []*plugin.Future
	for i := range 5 {
		futures = append(futures, p2.CallTool(context.Background(), "add", map[string]any{"a": i, "b": 0}))
	}
	for i, f := range futures {
		res, err := f.Await(context.Background())
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(i), plugin.RenderResult(res))
	}
}

func TestCloseDuringReconnection(t *testing.T) {
	p, err := plugin.Connect(context.Background(), testserver.Stdio(t), plugin.WithBackoff(10*time.Second, 10*time.Second))
	require.NoError(t, err)
	killServer(t, p)
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	waiting := p.CallTool(context.Background(), "add", nil)
	require.NoError(t, p.Close())
	_, err = waiting.Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Equal(t, actors.Closed, p.Status().State)
}

func TestRetryIdempotentIsOptIn(t *testing.T) {
	for _, optIn := range []bool{false, true} {
		t.Run("opt-in="+strconv.FormatBool(optIn), func(t *testing.T) {
			opts := []plugin.Option{fast}
			if optIn {
				opts = append(opts, plugin.WithRetryIdempotent())
			}
			p := connect(t, testserver.Stdio(t), opts...)
			record := filepath.Join(t.TempDir(), "record")
			ctx := context.Background()
			// Not annotated: never re-sent, even with the option.
			plain := p.CallTool(ctx, "record", map[string]any{"path": record, "tag": "plain", "ms": 60000})
			idem := p.CallTool(ctx, "record_idempotent", map[string]any{"path": record, "tag": "idem", "ms": 300})
			require.Eventually(t, func() bool { b, _ := os.ReadFile(record); return len(strings.Fields(string(b))) == 2 },
				10*time.Second, 5*time.Millisecond)
			killServer(t, p)

			_, err := plain.Await(ctx)
			require.ErrorIs(t, err, plugin.ErrInternal)
			res, err := idem.Await(ctx)
			if optIn {
				require.NoError(t, err)
				assert.Equal(t, "recorded idem", plugin.RenderResult(res))
				assert.ElementsMatch(t, []string{"plain", "idem", "idem"}, lines(t, record), "only the idempotent call ran again")
			} else {
				require.ErrorIs(t, err, plugin.ErrInternal)
				assert.ElementsMatch(t, []string{"plain", "idem"}, lines(t, record))
			}
		})
	}
}

func TestHTTPServerStoppedAndRestartedOnTheSamePort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		srv := &http.Server{Handler: testserver.NewHTTPHandler(testserver.NewServer())}
		go func() { _ = srv.Serve(ln) }()
		return srv
	}
	srv := serve(ln)
	p := connect(t, transport.StreamableHTTP{URL: "http://" + addr}, fast, plugin.WithRestartBudget(-1, time.Minute))
	require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))

	require.NoError(t, srv.Close())
	_, err = p.CallTool(context.Background(), "add", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal, "the endpoint is gone")
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)

	ln2, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	srv2 := serve(ln2)
	defer srv2.Close()
	require.Eventually(t, func() bool { return p.Status().State == actors.Ready }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	assert.GreaterOrEqual(t, p.Status().Restarts, 1)
}
