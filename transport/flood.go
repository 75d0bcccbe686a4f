package transport

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// The notification budget of a connection. go-sdk queues every message a
// connection's Read returns for its handlers without a bound, and reads on
// while they run, so a server that floods notifications would grow the
// client's memory without end (about 600 bytes a notification). Each
// connection of this package lets through 512 notifications and server
// requests at once, and 1,024 a second after that:
//
//   - a progress or logging notification (notifications/progress,
//     notifications/message) beyond the budget is dropped, and counted
//     (an info line at most once a second says how many): they are lossy by
//     nature, and the answers behind them are not held up;
//   - any other notification (a list_changed, a task's status) and a
//     server's request wait for the budget: the connection stops reading,
//     and the server's writes block, until the handlers' pace allows. None
//     is lost.
//
// Answers to the client's own requests are never counted nor held. With
// these figures a flood costs the client a few MiB at most.
const (
	notificationBurst = 512
	notificationRate  = 1024 // a second
)

// floodGate is one connection's notification budget: a token bucket.
type floodGate struct {
	logger *zap.Logger

	mu       sync.Mutex
	tokens   float64
	last     time.Time
	lastWarn time.Time
	pending  int64 // dropped since the last warning

	dropped atomic.Int64
}

func newFloodGate(logger *zap.Logger) *floodGate {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &floodGate{logger: logger, tokens: notificationBurst, last: time.Now()}
}

// lossy reports whether a notification of method may be dropped.
func lossy(method string) bool {
	return method == "notifications/progress" || method == "notifications/message"
}

// admit reports whether msg goes on to the session: an answer always does;
// a lossy notification does while the budget lasts; any other message
// waits for the budget, or until ctx ends (then admit returns ctx's error).
func (g *floodGate) admit(ctx context.Context, msg jsonrpc.Message) (bool, error) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return true, nil
	}
	for {
		wait, pass := g.take(time.Now(), lossy(req.Method) && !req.IsCall())
		if pass {
			return true, nil
		}
		if wait == 0 {
			g.drop()
			return false, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
	}
}

// take takes a token if there is one at now. Otherwise it returns 0 for a
// lossy message, and for another how long until a token is due: never 0,
// which would drop it, even when a token is due in less than a nanosecond.
func (g *floodGate) take(now time.Time, isLossy bool) (time.Duration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tokens = min(notificationBurst, g.tokens+now.Sub(g.last).Seconds()*notificationRate)
	g.last = now
	if g.tokens >= 1 {
		g.tokens--
		return 0, true
	}
	if isLossy {
		return 0, false
	}
	return max(time.Nanosecond, time.Duration((1-g.tokens)/notificationRate*float64(time.Second))), false
}

// drop counts a dropped notification and warns at most once a second.
func (g *floodGate) drop() {
	total := g.dropped.Add(1)
	g.mu.Lock()
	g.pending++
	now := time.Now()
	if now.Sub(g.lastWarn) < time.Second {
		g.mu.Unlock()
		return
	}
	n := g.pending
	g.pending, g.lastWarn = 0, now
	g.mu.Unlock()
	g.logger.Info("mcp server sends notifications faster than they are handled; dropped progress and log notifications",
		zap.Int64("dropped", n), zap.Int64("dropped_total", total))
}

// Dropped returns how many notifications were dropped.
func (g *floodGate) Dropped() int64 { return g.dropped.Load() }

// gatedConn is a connection whose Read passes through a flood gate.
type gatedConn struct {
	mcp.Connection
	gate *floodGate
}

func (c gatedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		pass, err := c.gate.admit(ctx, msg)
		if err != nil {
			return nil, err
		}
		if pass {
			return msg, nil
		}
	}
}

// DroppedNotifications implements transportext.NotificationDropper.
func (c gatedConn) DroppedNotifications() int64 { return c.gate.Dropped() }

// gatedTransport is a transport whose connections pass through a flood
// gate: go-sdk's own Streamable HTTP connection (without the direct path)
// and its HTTP+SSE one, which read every message for go-sdk as the direct
// path's does.
type gatedTransport struct {
	mcp.Transport
	logger *zap.Logger
}

// Connect connects the wrapped transport and gates its connection.
func (t gatedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return gatedConn{c, newFloodGate(t.logger)}, nil
}
