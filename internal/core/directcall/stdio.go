package directcall

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
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
	out  LineWriter
	post LinePoster // out's, when it has one

	mu      sync.Mutex
	waiting map[int64]Answerer

	// bare: the session is an older revision's (initialize went out),
	// whose messages carry no envelope.
	bare atomic.Bool
}

// LinePoster is a stdio connection's way out that never waits: PostLine
// queues line (copied), one whole message and its newline, behind the
// lines before it; FlushLines writes what is queued, what the pipe takes
// at once, and leaves the rest to a goroutine that waits for the pipe;
// AfterLines runs fn once what is queued has been written, or its write
// has failed (the calls among its lines told Unsent first).
type LinePoster interface {
	PostLine(line []byte)
	FlushLines()
	AfterLines(fn func())
}

// Answerer takes the answer of a call posted with [Lines.Post], on the
// goroutine that reads the connection, or, from the goroutine whose write
// failed, the news that its line never left (Unsent, with the write's
// error, which wraps transport.ErrNotSent): it must not wait.
type Answerer interface {
	// Answer takes the call's result (nil when the answer is an error),
	// or werr, the error the server answered with. result may be the
	// bytes of the line read, which are reused once Answer returns.
	Answer(result json.RawMessage, werr error)
	Unsent(err error)
}

// Poster runs direct calls without a goroutine waiting for each: a
// connection's mailbox posts a call (Post), and its answer goes to the
// call's [Answerer]; whatever else becomes of the call (its caller gave
// up, its deadline passed, the connection ended) the mailbox decides by
// taking the call back (Withdraw) before an answer takes it. Lines posted
// go out at the next Flush, together.
type Poster interface {
	// Post queues tools/call c (the line [Caller]'s CallTool sends) and
	// returns its id; its answer goes to a unless the call is withdrawn
	// first. Its failures are CallTool's before the wire: a connection
	// that ended (mcp.ErrConnectionClosed), arguments that are no JSON.
	Post(c Call, a Answerer) (int64, error)
	// Withdraw takes call n back: true when it was still waiting, and
	// no answer will reach its Answerer; false when one has, or is on
	// its way.
	Withdraw(n int64) bool
	// Cancel queues the notifications/cancelled of call n, which was
	// withdrawn, saying reason.
	Cancel(n int64, reason string)
	// Flush writes the lines queued, without waiting on the pipe.
	Flush()
	// AfterWrites runs fn once every line posted so far has been
	// written, or told its call Unsent: at once, or on the goroutine
	// whose write ends last. A call still waiting then was sent.
	AfterWrites(fn func())
}

// NewLines returns the direct calls of a connection that writes to out
// (and posts to it, if out is a [LinePoster]).
func NewLines(out LineWriter) *Lines {
	p, _ := out.(LinePoster)
	return &Lines{out: out, post: p}
}

// PosterOf is the [Poster] of a stdio transport's connection (see
// [CallerOf]), or nil when t has none: another transport, direct calls
// turned off, or no connection yet.
func PosterOf(t mcp.Transport) Poster {
	if h, ok := t.(interface{ DirectPoster() Poster }); ok {
		return h.DirectPoster()
	}
	return nil
}

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
	a := l.waiting[n]
	delete(l.waiting, n)
	l.mu.Unlock()
	switch a := a.(type) {
	case nil:
	case replyChan:
		a <- r
	default:
		a.Answer(r.Result, r.Error)
	}
	return true
}

// answerPosted hands m, a line's members, to the posted call it answers,
// and reports whether it did (or dropped it, the call given up): m is a
// response, read as build reads one, to one of the calls given out. Any
// other line, and the answer of a call a goroutine waits for, is left to
// build and Deliver.
func (l *Lines) answerPosted(m *members) bool {
	if m.method != nil || len(m.id) == 0 || m.id[0] != '-' || string(m.version) != `"2.0"` {
		return false
	}
	f, ok := numberValue(m.id)
	n := int64(f)
	if !ok || float64(n) != f || !l.ours(n) {
		return false
	}
	var werr error
	if m.err != nil && string(m.err) != "null" {
		e := new(jsonrpc.Error)
		if json.Unmarshal(m.err, e) != nil {
			return false // no JSON-RPC message: build says so
		}
		werr = e
	}
	l.mu.Lock()
	a := l.waiting[n]
	if _, waits := a.(replyChan); waits {
		l.mu.Unlock()
		return false
	}
	delete(l.waiting, n)
	l.mu.Unlock()
	if a != nil {
		a.Answer(json.RawMessage(m.result), werr)
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

// wait makes a the answerer of call n.
func (l *Lines) wait(n int64, a Answerer) {
	l.mu.Lock()
	if l.waiting == nil {
		l.waiting = map[int64]Answerer{}
	}
	l.waiting[n] = a
	l.mu.Unlock()
}

// Post implements [Poster]. Without a [LinePoster] (a test's writer), the
// line is written at once.
func (l *Lines) Post(c Call, a Answerer) (int64, error) {
	if err := l.ended(); err != nil {
		return 0, closedError(methodToolsCall, err)
	}
	n := l.id()
	env := l.env.Load()
	bp := lineBuffers.Get().(*[]byte)
	b, err := appendPosted((*bp)[:0], n, &c, env)
	if err == nil {
		b = append(b, '\n')
		l.wait(n, a)
		if l.post != nil {
			l.post.PostLine(b)
		} else if err = l.out.WriteLine(b); err != nil {
			l.forget(n)
		}
	}
	if cap(b) <= maxKeptLine {
		*bp = b[:0]
		lineBuffers.Put(bp)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Unsent tells the posted calls whose lines are among lines, which a
// failed write did not write, that they were never sent: err, the write's.
func (l *Lines) Unsent(lines []byte, err error) {
	for len(lines) > 0 {
		line := lines
		if i := bytes.IndexByte(lines, '\n'); i >= 0 {
			line, lines = lines[:i], lines[i+1:]
		} else {
			lines = nil
		}
		rest, ok := bytes.CutPrefix(line, callPrefix)
		if !ok {
			continue
		}
		end := bytes.IndexByte(rest, ',')
		if end < 0 {
			continue
		}
		n, perr := strconv.ParseInt(string(rest[:end]), 10, 64)
		if perr != nil || !l.ours(n) {
			continue
		}
		l.mu.Lock()
		a := l.waiting[n]
		delete(l.waiting, n)
		l.mu.Unlock()
		if a != nil {
			a.Unsent(err)
		}
	}
}

// callPrefix starts the line of every direct call (appendCall), up to its
// id.
var callPrefix = []byte(`{"jsonrpc":"2.0","id":`)

// Withdraw implements [Poster].
func (l *Lines) Withdraw(n int64) bool {
	l.mu.Lock()
	_, ok := l.waiting[n]
	delete(l.waiting, n)
	l.mu.Unlock()
	return ok
}

// Cancel implements [Poster]; a connection that ended is told nothing.
func (l *Lines) Cancel(n int64, reason string) {
	if l.ended() != nil {
		return
	}
	if l.post == nil {
		l.notify(context.Background(), n, reason, l.env.Load())
		return
	}
	bp := lineBuffers.Get().(*[]byte)
	b := append(appendCancelled((*bp)[:0], n, reason, l.env.Load()), '\n')
	l.post.PostLine(b)
	*bp = b[:0]
	lineBuffers.Put(bp)
}

// Flush implements [Poster].
func (l *Lines) Flush() {
	if l.post != nil {
		l.post.FlushLines()
	}
}

// AfterWrites implements [Poster]. Without a [LinePoster], every line was
// written when Post returned.
func (l *Lines) AfterWrites(fn func()) {
	if l.post == nil {
		fn()
		return
	}
	l.post.AfterLines(fn)
}

// roundTrip writes the line of request n and waits for its answer.
func (l *Lines) roundTrip(ctx context.Context, n int64, rq request, env *envelope, attempted func(id jsonrpc.ID)) (*jsonrpc.Response, error) {
	ch := replyChans.Get().(replyChan)
	l.wait(n, ch)
	done := l.doneChan()
	markAttempted(attempted, n)
	err := l.writeLine(func(b []byte) ([]byte, error) { return rq.appendTo(b, n, env) })
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
		return nil, closedError(rq.method, l.ended())
	case <-ctx.Done():
		l.forget(n)
		return nil, errCancelled
	}
}

// replyChans are the channels direct calls wait on for their answer. A
// channel goes back only once its one answer has been taken: Deliver takes
// it out of waiting before it sends, and sends once. One a call gave up on
// is left to the collector, as an answer may still come to it.
var replyChans = sync.Pool{New: func() any { return make(replyChan, 1) }}

// replyChan is the [Answerer] of a call a goroutine waits for.
type replyChan chan *jsonrpc.Response

// Answer is never called: Deliver sends on ch the response it has.
func (ch replyChan) Answer(result json.RawMessage, werr error) {
	ch <- &jsonrpc.Response{Result: bytes.Clone(result), Error: werr}
}

// Unsent does nothing: the call's own write returns the error.
func (replyChan) Unsent(error) {}

func (l *Lines) forget(n int64) {
	l.mu.Lock()
	delete(l.waiting, n)
	l.mu.Unlock()
}

// notify writes the notifications/cancelled line of call n.
func (l *Lines) notify(_ context.Context, n int64, reason string, env *envelope) {
	_ = l.writeLine(func(b []byte) ([]byte, error) { return appendCancelled(b, n, reason, env), nil })
}
