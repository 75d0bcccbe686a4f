package transport

import (
	"io"
	"sync"
)

// lineWriter writes whole lines to a stdio server's stdin for many writers
// at once: a writer that finds the pipe free writes its line at once; lines
// that come while a write is under way are queued, and the writer that was
// writing, once done, writes all of them with one Write before it returns.
// So calls made together leave together (one write system call for what
// was ready), and a lone call waits for nothing: no timer, no goroutine.
// Lines leave in the order they were handed over, never interleaved.
type lineWriter struct {
	w io.Writer

	mu     sync.Mutex
	busy   bool       // a writer is writing
	queued []byte     // lines handed over while it writes
	batch  *lineBatch // what the writers of queued wait on; nil when none
	spare  []byte     // the buffer the next queue goes to
}

// lineBatch is one write of queued lines: its writers wait for done, then
// read err.
type lineBatch struct {
	done chan struct{}
	err  error
}

// write writes line, one whole message and its newline, and returns the
// error of the Write that carried it. before, if not nil, runs under the
// writer's lock just before line is queued or written, in the order lines
// leave.
func (lw *lineWriter) write(line []byte, before func()) error {
	lw.mu.Lock()
	if before != nil {
		before()
	}
	if lw.busy {
		lw.queued = append(lw.queued, line...)
		b := lw.batch
		if b == nil {
			b = &lineBatch{done: make(chan struct{})}
			lw.batch = b
		}
		lw.mu.Unlock()
		<-b.done
		return b.err
	}
	lw.busy = true
	lw.mu.Unlock()
	_, err := lw.w.Write(line)
	lw.drain()
	return err
}

// drain writes what was queued while the caller wrote, batch by batch,
// until nothing is; then the pipe is free again.
func (lw *lineWriter) drain() {
	lw.mu.Lock()
	for len(lw.queued) > 0 {
		buf, b := lw.queued, lw.batch
		lw.queued, lw.batch = lw.spare[:0], nil
		lw.spare = nil
		lw.mu.Unlock()
		_, b.err = lw.w.Write(buf)
		close(b.done)
		lw.mu.Lock()
		if cap(buf) <= maxKeptWriteBuffer {
			lw.spare = buf[:0]
		}
	}
	lw.busy = false
	lw.mu.Unlock()
}

// writeBuffers are the buffers go-sdk's messages are encoded in before
// they are written.
var writeBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
