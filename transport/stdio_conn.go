package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// stdioConn is the mcp.Connection under a stdio server's ClientSession, in
// place of go-sdk's: it reads newline-delimited JSON-RPC through one reused
// buffer and decodes it without a decoder per message; it skips a line that
// is no JSON-RPC message instead of ending the session; it drops a line over
// [MaxMessageBytes] as it streams, failing only the call it answered; and
// its Close ends the server's whole process group.
type stdioConn struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	td     time.Duration
	tail   *stderrTail
	logger *zap.Logger

	// Read's own: go-sdk reads from one goroutine.
	lines *lineReader
	sent  directcall.SentIDs // shared by Write and Read, under its own lock

	out lineWriter // stdin's writes, batched

	direct *directcall.Lines // the tools/call requests sent beside go-sdk's

	strays     strayLines
	gate       *floodGate // the notification budget (flood.go)
	stderrDone chan struct{}
	stderrID   int32 // its watch by the stderr poller (Linux); 0 for none
	stderrFd   int   // the descriptor the poller watches
	closing    atomic.Bool
	closeOnce  sync.Once
	closeErr   error
	exit       atomic.Pointer[string] // how the child exited, once known
}

// exitStatus says how the child exited, waiting up to wait; "" while it
// runs.
func (c *stdioConn) exitStatus(wait time.Duration) string {
	if s := c.exit.Load(); s != nil {
		return *s
	}
	s := exitOf(c.cmd, wait)
	if s != "" {
		c.exit.CompareAndSwap(nil, &s)
	}
	if s := c.exit.Load(); s != nil {
		return *s
	}
	return s
}

// reasonTooLarge says why an over-long line was skipped.
const reasonTooLarge = "over the size limit"

// reasonTooDeep says why a line nested too deep was skipped.
const reasonTooDeep = "nested too deep"

// maxKeptWriteBuffer bounds the write buffer kept between messages: a call
// with megabytes of arguments does not leave them allocated.
const maxKeptWriteBuffer = 64 << 10

// startStdio spawns path as the leader of a new process group, with pipes
// of its own for stdin, stdout and stderr (no goroutine of os/exec's copies
// them), and has its stderr read into tail (see watchStderr).
func startStdio(path string, cfg Stdio, td time.Duration, tail *stderrTail, logger *zap.Logger) (*stdioConn, error) {
	cmd := exec.Command(path, cfg.Args...)
	cmd.Env = append(DefaultEnv(), cfg.Env...)
	cmd.Dir = cfg.Dir
	inOwnGroup(cmd)

	var ours, theirs []*os.File
	closeAll := func(files []*os.File) {
		for _, f := range files {
			_ = f.Close()
		}
	}
	var pipes [3][2]*os.File
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ours)
			closeAll(theirs)
			return nil, err
		}
		pipes[i] = [2]*os.File{r, w}
		if i == 0 {
			ours, theirs = append(ours, w), append(theirs, r)
		} else {
			ours, theirs = append(ours, r), append(theirs, w)
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0][0], pipes[1][1], pipes[2][1]
	err := cmd.Start()
	closeAll(theirs) // the child holds its ends now
	if err != nil {
		closeAll(ours)
		return nil, err
	}
	if err := started(cmd); err != nil {
		closeAll(ours)
		return nil, err
	}
	cmd.Env, cmd.Args = nil, nil // the child has them; an idle connection need not
	c := &stdioConn{
		cmd: cmd, stdin: pipes[0][1], stdout: pipes[1][0], stderr: pipes[2][0],
		td: td, tail: tail, logger: logger,
		lines:      newLineReader(pipes[1][0], MaxMessageBytes),
		out:        lineWriter{w: pipes[0][1], raw: rawWriterOf(pipes[0][1])},
		stderrDone: make(chan struct{}),
		gate:       newFloodGate(logger),
	}
	c.direct = directcall.NewLines(c)
	c.out.lost = c.lostWrite
	watchStderr(c)
	return c, nil
}

// readStderr copies the child's stderr into the tail until it closes, on
// a goroutine of its own where the stderr poller cannot take it.
func (c *stdioConn) readStderr() {
	defer close(c.stderrDone)
	buf := make([]byte, 512)
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			_, _ = c.tail.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// DroppedNotifications implements transportext.NotificationDropper.
func (c *stdioConn) DroppedNotifications() int64 { return c.gate.Dropped() }

// SessionID is empty: a stdio connection has no session id.
func (c *stdioConn) SessionID() string { return "" }

// Read returns the next JSON-RPC message from the server's stdout, skipping
// every line that is none.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for {
		l, err := c.lines.next()
		if err != nil {
			if c.closing.Load() || errors.Is(err, os.ErrClosed) {
				err = io.EOF
			} else if c.stderrDone != nil {
				// The server ended its output: what it said on stderr
				// as it went (read by another goroutine) belongs in the
				// errors of the calls that end with it.
				within(c.stderrDone, stderrSettle)
			}
			c.direct.End(err)
			return nil, err
		}
		if l.tooLong {
			d := c.decoder()
			id, ok := d.IDFromStart(l.text)
			putDecoder(d)
			c.skipped(l, reasonTooLarge, ok)
			if ok {
				r := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
					Code: jsonrpc.CodeInternalError, Message: ErrMessageTooLarge.Error(),
				}}
				if c.direct.Deliver(r) {
					continue
				}
				return r, nil
			}
			continue
		}
		if len(bytes.TrimLeft(l.text, " \t\r")) == 0 {
			continue // a blank line separates nothing from nothing
		}
		d := c.decoder()
		msg, why := d.Decode(l.text, l.owned)
		if why == directcall.ReasonAnswered {
			putDecoder(d)
			if c.lines.drained() {
				// The answer's caller was just made ready on this
				// processor, and the next read would find nothing: this
				// goroutine steps aside, so that the caller runs now, on
				// this thread, rather than once another thread has been
				// woken to take it. This goroutine's way back to its read
				// then runs beside the caller: holding the answer back
				// until that read finds nothing lost calls per second
				// (docs/benchmarks.md).
				runtime.Gosched()
			}
			continue
		}
		var id jsonrpc.ID
		deep := msg == nil && directcall.NestedDeeperThan(l.text, MaxNesting)
		if deep {
			id, deep = d.IDFromStart(l.text)
		}
		putDecoder(d)
		if msg != nil {
			if r, ok := msg.(*jsonrpc.Response); ok && c.direct.Deliver(r) {
				continue
			}
			if pass, err := c.gate.admit(ctx, msg); err != nil {
				return nil, err
			} else if !pass {
				continue // see flood.go
			}
			return msg, nil
		}
		if deep {
			// An answer too deep to decode fails its call at once, as
			// one too large does, rather than leave it to its deadline.
			c.skipped(l, reasonTooDeep, true)
			r := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
				Code: jsonrpc.CodeInternalError, Message: ErrMessageTooDeep.Error(),
			}}
			if c.direct.Deliver(r) {
				continue
			}
			return r, nil
		}
		c.skipped(l, why, false)
	}
}

// decoders are lent to a stdio connection's Read for a line each: an idle
// connection holds none.
var decoders = sync.Pool{New: func() any { return new(directcall.Decoder) }}

// decoder borrows a decoder that knows c's sent ids; putDecoder returns it.
func (c *stdioConn) decoder() *directcall.Decoder {
	d := decoders.Get().(*directcall.Decoder)
	d.Sent, d.Lines = &c.sent, c.direct
	return d
}

func putDecoder(d *directcall.Decoder) {
	d.Sent, d.Lines = nil, nil
	decoders.Put(d)
}

// Write sends msg as one line, with one write (shared with the lines of
// other writers ready at the same moment; see lineWriter).
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bp := writeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxKeptWriteBuffer {
			*bp = (*bp)[:0]
			writeBuffers.Put(bp)
		}
	}()
	b, err := directcall.AppendMessage((*bp)[:0], msg)
	*bp = b
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	b = append(b, '\n')
	*bp = b
	var before func()
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		before = func() {
			c.sent.Remember(req.ID)
			c.direct.Learn(req)
		}
	}
	if err := c.out.write(b, before); err != nil {
		// The pipe is closed at the child's end: it exited, or closed its
		// stdin, and reads nothing more, a part of this line included.
		return fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	return nil
}

// WriteLine writes line, a whole message and its newline, as Write does:
// the direct calls' way out ([directcall.LineWriter]).
func (c *stdioConn) WriteLine(line []byte) error {
	if err := c.out.write(line, nil); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	return nil
}

// PostLine queues line for FlushLines, without waiting: the direct calls'
// way out from a connection's mailbox ([directcall.LinePoster]).
func (c *stdioConn) PostLine(line []byte) { c.out.post(line) }

// FlushLines writes the lines posted, without waiting on the pipe.
func (c *stdioConn) FlushLines() { c.out.flush() }

// AfterLines runs fn once the lines queued have been written, or their
// write has failed, without waiting on the pipe.
func (c *stdioConn) AfterLines(fn func()) { c.out.afterWrites(fn) }

// lostWrite: a write that carried posted lines failed, the server's stdin
// closed at its end, and unsent are the lines it did not write. Nobody
// waits for that write: the direct calls among them are told, as calls
// never sent.
func (c *stdioConn) lostWrite(unsent []byte, err error) {
	c.direct.Unsent(unsent, fmt.Errorf("%w: %w", ErrNotSent, err))
}

// Close ends the server: it closes stdin, which asks the server to exit;
// after TerminateTimeout it sends SIGTERM to the server's process group, and
// after another, SIGKILL. Once the server has exited, whatever is left of
// its group gets SIGTERM, and SIGKILL if it outlives another
// TerminateTimeout. The server is reaped; the error is its exit status.
// Close may be called many times, concurrently; all get the first's error.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *stdioConn) close() error {
	c.closing.Store(true)
	c.direct.Close()
	c.reportStrays()
	_ = c.stdin.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = awaitExit(c.cmd)
		close(exited)
	}()
	if !within(exited, c.td) {
		_ = signalGroup(c.cmd, syscall.SIGTERM)
		if !within(exited, c.td) {
			_ = signalGroup(c.cmd, syscall.SIGKILL)
			if !within(exited, c.td) {
				endGroup(c.cmd)
				c.release()
				return fmt.Errorf("transport: %s did not exit after SIGKILL", c.cmd.Path)
			}
		}
	}
	// The server is gone. What it started goes too; its group id is still
	// ours to signal, held by the server's unreaped zombie.
	_ = signalGroup(c.cmd, syscall.SIGTERM)
	err := waitErr
	if !awaitReaps {
		err = c.cmd.Wait()
	}
	if st := exitText(err); st != "" {
		c.exit.CompareAndSwap(nil, &st)
	}
	if !c.groupEnded() {
		_ = signalGroup(c.cmd, syscall.SIGKILL)
		c.groupEnded()
	}
	endGroup(c.cmd)
	c.release()
	return err
}

// groupEnded waits up to TerminateTimeout for the rest of the server's
// process group to exit, and reports whether it did.
func (c *stdioConn) groupEnded() bool {
	deadline := time.Now().Add(c.td)
	for delay := time.Millisecond; groupAlive(c.cmd); delay = min(2*delay, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
	}
	return true
}

// release closes the pipes: stdout at once (it wakes a blocked Read), stderr
// once the child's last words are read, or after TerminateTimeout when a
// process that left the group still holds it open.
func (c *stdioConn) release() {
	_ = c.stdout.Close()
	if !within(c.stderrDone, c.td) {
		unwatchStderr(c)
	}
	_ = c.stderr.Close()
	<-c.stderrDone
}

// within waits for ch to close, at most d, and reports whether it did.
// stderrSettle bounds the wait, once a server's stdout ended, for the end
// of its stderr (which a process it left behind may hold open).
const stderrSettle = 200 * time.Millisecond

func within(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// strayLines counts the lines skipped, for a warning at most once a second.
type strayLines struct {
	mu         sync.Mutex
	total      int
	unreported int
	reason     string // of the last one skipped
	lastWarn   time.Time
}

// strayQuoteBytes is how much of a skipped line is quoted at debug level.
const strayQuoteBytes = 512

// skipped counts a line that is not a message, quoting it at debug level
// only: it may be tool output. answered says an over-long line's call was
// failed in its place.
func (c *stdioConn) skipped(l line, reason string, answered bool) {
	if ce := c.logger.Check(zap.DebugLevel, "mcp server stdout line skipped"); ce != nil {
		fields := []zap.Field{zap.String("reason", reason), zap.ByteString("line", l.text[:min(len(l.text), strayQuoteBytes)])}
		if l.tooLong {
			fields = append(fields, zap.Bool("call_failed", answered))
		} else {
			fields = append(fields, zap.Int("bytes", len(l.text)))
		}
		ce.Write(fields...)
	}
	s := &c.strays
	s.mu.Lock()
	s.total++
	s.unreported++
	s.reason = reason
	now := time.Now()
	if now.Sub(s.lastWarn) < time.Second {
		s.mu.Unlock()
		return
	}
	n, total := s.unreported, s.total
	s.unreported, s.lastWarn = 0, now
	s.mu.Unlock()
	c.warnStrays(n, total, reason)
}

// reportStrays warns of the lines skipped since the last warning.
func (c *stdioConn) reportStrays() {
	s := &c.strays
	s.mu.Lock()
	n, total, reason := s.unreported, s.total, s.reason
	s.unreported = 0
	s.mu.Unlock()
	if n > 0 {
		c.warnStrays(n, total, reason)
	}
}

func (c *stdioConn) warnStrays(n, total int, reason string) {
	c.logger.Warn("mcp server wrote lines to stdout that are not JSON-RPC messages; skipped them",
		zap.Int("skipped", n), zap.Int("skipped_total", total), zap.String("last_reason", reason))
}

// exitText is how cmd.Wait's err says the child exited: "exit status 3",
// "killed by signal SIGKILL"; "exit status 0" for nil.
func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by signal " + signalName(ws.Signal())
		}
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	return ""
}
