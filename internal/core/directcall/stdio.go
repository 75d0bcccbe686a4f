package directcall

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineWriter is a stdio connection's way out: WriteLine writes line, one
// whole JSON-RPC message and its newline, with one write under the
// connection's write lock (so that it never interleaves with go-sdk's
// messages), failing as the connection's Write fails.
type LineWriter interface {
	WriteLine(line []byte) error
}

// Lines are the direct calls of one stdio connection: each is one line
// out, and its answer is the line the connection reads that carries its
// id. The connection hands every request go-sdk writes to [Lines.Learn],
// every response it reads to [Lines.Deliver], and its end to [Lines.End].
// Its zero value is not ready: use [NewLines].
type Lines struct {
	calls
	out LineWriter

	mu      sync.Mutex
	waiting map[int64]chan *jsonrpc.Response

	// bare: the session is an older revision's (initialize went out),
	// whose messages carry no envelope.
	bare atomic.Bool
}

// NewLines returns the direct calls of a connection that writes to out.
func NewLines(out LineWriter) *Lines { return &Lines{out: out} }

// Learn takes the _meta envelope from a request go-sdk writes. An
// initialize makes the session an older revision's (the connection sends
// it only after the server refused server/discover, with
// plugin.WithLegacyFallback): the envelope learnt from server/discover is
// dropped, and the direct calls go as that revision's tools/call, the
// same line without it.
func (l *Lines) Learn(req *jsonrpc.Request) {
	if l.bare.Load() {
		return
	}
	if req.Method == methodInitialize {
		l.bare.Store(true)
		l.env.Store(nil)
		return
	}
	l.learn(req)
}

const methodInitialize = "initialize"

// Deliver hands a response to its direct call, and reports whether it was
// one's (answered, or given up on): such a response is not go-sdk's.
func (l *Lines) Deliver(r *jsonrpc.Response) bool {
	n, ok := r.ID.Raw().(int64)
	if !ok || !l.ours(n) {
		return false
	}
	l.mu.Lock()
	ch := l.waiting[n]
	delete(l.waiting, n)
	l.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return true
}

// End fails every direct call waiting, and every later one, with
// go-sdk's closed-connection error naming err: the connection's output
// ended with err.
func (l *Lines) End(err error) { l.end(err) }

// Close is End for a connection closed on this side: the calls fail as
// go-sdk's fail on a session closed.
func (l *Lines) Close() { l.end(errClosed) }

// CallsDirect is true: a stdio connection takes every call.
func (l *Lines) CallsDirect() bool { return true }

// CallTool implements [Caller].
func (l *Lines) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	return l.call(ctx, l, params, attempted)
}

// lineBuffers are the buffers the lines of direct calls are made in.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxKeptLine bounds a buffer put back in lineBuffers: a call with
// megabytes of arguments does not leave them allocated.
const maxKeptLine = 64 << 10

// writeLine writes the line add makes.
func (l *Lines) writeLine(add func(b []byte) ([]byte, error)) error {
	bp := lineBuffers.Get().(*[]byte)
	b, err := add((*bp)[:0])
	if err == nil {
		err = l.out.WriteLine(append(b, '\n'))
	}
	if cap(b) <= maxKeptLine {
		*bp = b[:0]
		lineBuffers.Put(bp)
	}
	return err
}

// roundTrip writes the line of call n and waits for its answer.
func (l *Lines) roundTrip(ctx context.Context, n int64, params *mcp.CallToolParams, env *envelope, sent func()) (*jsonrpc.Response, error) {
	ch := replyChans.Get().(chan *jsonrpc.Response)
	l.mu.Lock()
	if l.waiting == nil {
		l.waiting = map[int64]chan *jsonrpc.Response{}
	}
	l.waiting[n] = ch
	l.mu.Unlock()
	done := l.doneChan()
	sent()
	err := l.writeLine(func(b []byte) ([]byte, error) { return appendCall(b, n, params, env) })
	if err != nil {
		l.forget(n)
		return nil, err
	}
	select {
	case r := <-ch:
		replyChans.Put(ch)
		return r, nil
	case <-done:
		select {
		case r := <-ch: // answered as the connection ended
			replyChans.Put(ch)
			return r, nil
		default:
		}
		return nil, closedError(l.ended())
	case <-ctx.Done():
		l.forget(n)
		return nil, errCancelled
	}
}

// replyChans are the channels direct calls wait on for their answer. A
// channel goes back only once its one answer has been taken: Deliver takes
// it out of waiting before it sends, and sends once. One a call gave up on
// is left to the collector, as an answer may still come to it.
var replyChans = sync.Pool{New: func() any { return make(chan *jsonrpc.Response, 1) }}

func (l *Lines) forget(n int64) {
	l.mu.Lock()
	delete(l.waiting, n)
	l.mu.Unlock()
}

// notify writes the notifications/cancelled line of call n.
func (l *Lines) notify(_ context.Context, n int64, reason string, env *envelope) {
	_ = l.writeLine(func(b []byte) ([]byte, error) { return appendCancelled(b, n, reason, env), nil })
}
