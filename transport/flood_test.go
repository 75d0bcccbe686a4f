package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/httppool"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

// floodRun is what one flooded call cost.
type floodRun struct {
	heapGrowth uint64 // live heap after the call, over before it (test), or its peak (benchmark)
	handled    int64
	dropped    int64
	closeTook  time.Duration
}

// dropper is what a connection of this package counts.
type dropper interface{ DroppedNotifications() int64 }

// heapObjects is the heap's live and not yet swept object bytes.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// flood connects through tr to a server with the "flood" tool, calls it with n progress
// notifications, and measures. block holds the progress handler until the
// call returned, as a slow host would; peak samples the heap meanwhile.
func flood(t testing.TB, tr mcp.Transport, n int, block, peak bool) floodRun {
	release := make(chan struct{})
	var run floodRun
	var handled atomic.Int64
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		handled.Add(1)
		if block {
			<-release
		}
	}}
	var conn mcp.Connection
	client := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, capture{tr, &conn}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	runtime.GC()
	base := heapObjects()
	var top atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapObjects(); h > top.Load() {
				top.Store(h)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	params := &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"n": n}}
	params.SetProgressToken("flood")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	require.Equal(t, "flooded", res.Content[0].(*mcp.TextContent).Text)
	close(stop)
	<-sampled
	if peak {
		run.heapGrowth = top.Load() - min(base, top.Load())
	} else {
		runtime.GC()
		run.heapGrowth = heapObjects() - min(base, heapObjects())
	}
	if d, ok := conn.(dropper); ok {
		run.dropped = d.DroppedNotifications()
	}
	close(release)
	start := time.Now()
	require.NoError(t, cs.Close())
	run.closeTook = time.Since(start)
	run.handled = handled.Load()
	return run
}

// stdioFlood is the transport of the "flood" child.
func stdioFlood(t testing.TB) mcp.Transport {
	tr, err := child(t, "flood").Open(zap.NewNop())
	require.NoError(t, err)
	return tr
}

// httpFlood is a transport to a stateless go-sdk server with the "flood"
// tool on loopback, its answers event streams.
func httpFlood(t testing.TB) mcp.Transport { return httpFloodOf(t, false) }

// httpFloodOf is httpFlood, on go-sdk's own connection when sessionPath
// (DisableDirectCalls).
func httpFloodOf(t testing.TB, sessionPath bool) mcp.Transport {
	s := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "0"}, nil)
	type floodArgs struct {
		N int `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, a floodArgs) (*mcp.CallToolResult, any, error) {
		for i := range a.N {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(a.N)})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flooded"}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	t.Cleanup(httppool.CloseIdle)
	tr, err := StreamableHTTP{URL: srv.URL, DisableDirectCalls: sessionPath}.Open(zap.NewNop())
	require.NoError(t, err)
	return tr
}

// capture is a transport keeping the connection it made.
type capture struct {
	mcp.Transport
	conn *mcp.Connection
}

func (c capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	*c.conn = conn
	return conn, err
}

// A flood of progress notifications during a call, with a host whose
// handler does not keep up, costs a bounded heap: what is beyond the
// connection's budget is dropped and counted, and the call's answer comes.
func TestANotificationFloodStaysBounded(t *testing.T) {
	noLeaks(t)
	const n = 200_000 // about 120 MiB if every one were kept
	run := flood(t, stdioFlood(t), n, true, false)
	t.Logf("%d notifications: heap +%d KiB with the handler held, %d dropped, %d handled, Close %v",
		n, run.heapGrowth>>10, run.dropped, run.handled, run.closeTook)
	assert.Positive(t, run.dropped, "beyond the budget, progress is dropped")
	assert.Less(t, run.heapGrowth, uint64(32<<20), "the queue behind a slow handler is bounded")
}

// The same over Streamable HTTP, the notifications on the call's event
// stream.
func TestANotificationFloodOverHTTPStaysBounded(t *testing.T) {
	for _, sessionPath := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct path", true: "DisableDirectCalls"}[sessionPath], func(t *testing.T) {
			noLeaks(t)
			const n = 100_000
			run := flood(t, httpFloodOf(t, sessionPath), n, true, false)
			t.Logf("%d notifications: heap +%d KiB with the handler held, %d dropped, %d handled, Close %v",
				n, run.heapGrowth>>10, run.dropped, run.handled, run.closeTook)
			assert.Positive(t, run.dropped, "beyond the budget, progress is dropped")
			assert.Less(t, run.heapGrowth, uint64(32<<20), "the queue behind a slow handler is bounded")
		})
	}
}

// A message that is not lossy waits for a token, however soon it is due:
// a wait that rounded to nothing read as a drop (a list_changed was lost
// on a busy machine, when the budget stood a hair under one token).
func TestTheFloodGateNeverDropsAMessageThatWaits(t *testing.T) {
	g := newFloodGate(nil)
	now := time.Now()
	g.tokens, g.last = 1-1e-13, now
	wait, pass := g.take(now, false)
	assert.False(t, pass)
	assert.Positive(t, wait, "a message that is not lossy waits, and is not dropped")
	wait, pass = g.take(now, true)
	assert.False(t, pass)
	assert.Zero(t, wait, "a lossy one is dropped")
}

// Beyond the budget, progress and log notifications are dropped; any other
// notification and a server's request wait, and are never lost.
func TestTheFloodGateDropsOnlyLossyNotifications(t *testing.T) {
	g := newFloodGate(nil)
	ctx := context.Background()
	progress := &jsonrpc.Request{Method: "notifications/progress"}
	changed := &jsonrpc.Request{Method: "notifications/tools/list_changed"}
	answer := &jsonrpc.Response{}
	passed := 0
	for range notificationBurst * 2 {
		ok, err := g.admit(ctx, progress)
		require.NoError(t, err)
		if ok {
			passed++
		}
	}
	assert.Less(t, passed, notificationBurst*2)
	assert.EqualValues(t, notificationBurst*2-passed, g.Dropped())
	for range notificationBurst {
		ok, err := g.admit(ctx, changed)
		require.NoError(t, err)
		require.True(t, ok, "a list_changed waits for the budget, and goes on")
		ok, err = g.admit(ctx, answer)
		require.NoError(t, err)
		require.True(t, ok, "an answer is never held")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for {
		// Spend what refilled meanwhile, then a wait ends with ctx.
		ok, err := g.admit(cancelled, changed)
		if err != nil {
			assert.ErrorIs(t, err, context.Canceled)
			assert.False(t, ok)
			break
		}
	}
}

// BenchmarkNotificationFlood measures a call during which a stdio server
// sends one million progress notifications (a Streamable HTTP one, on the
// call's event stream, 200,000): the peak growth of the live
// heap, how many were dropped, and how long Close takes after.
func BenchmarkNotificationFlood(b *testing.B) {
	for _, c := range []struct {
		name string
		tr   func(testing.TB) mcp.Transport
		n    int
	}{
		{"stdio", stdioFlood, 1_000_000},
		// The server runs in the benchmark's process, and its encoding
		// of the events weighs in the heap: a smaller flood.
		{"http", httpFlood, 200_000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				run := flood(b, c.tr(b), c.n, false, true)
				b.ReportMetric(float64(run.heapGrowth)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(run.dropped), "dropped")
				b.ReportMetric(float64(run.closeTook.Milliseconds()), "close-ms")
			}
		})
	}
}
