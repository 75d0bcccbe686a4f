//go:build unix

package transport

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// readBuffers lends the read buffer of the usual size to the stdio
// connections that are reading: one that waits for its server to write
// holds none.
var readBuffers = sync.Pool{New: func() any {
	b := make([]byte, readBufferSize)
	return &b
}}

// rawReader is how a lineReader waits on a pipe with no buffer: the
// runtime's poller says when it is readable.
type rawReader struct {
	raw  syscall.RawConn
	lent *[]byte // the buffer lent by readBuffers, if any

	// The last read: read is the function given to raw.Read, made once so
	// that a read allocates nothing.
	read func(fd uintptr) bool
	n    int
	err  error
}

// rawReaderOf returns a rawReader for r if r is a file the runtime polls
// (a pipe), else nil.
func rawReaderOf(r io.Reader) *rawReader {
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	rr := &rawReader{raw: raw}
	rr.read = rr.readFd
	return rr
}

// readFd reads fd into a buffer borrowed from readBuffers, and reports
// false, the buffer given back, when there is nothing to read yet.
func (rr *rawReader) readFd(fd uintptr) bool {
	b := readBuffers.Get().(*[]byte)
	for {
		rr.n, rr.err = syscall.Read(int(fd), *b)
		if !errors.Is(rr.err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(rr.err, syscall.EAGAIN) {
		readBuffers.Put(b)
		return false
	}
	rr.lent = b
	return true
}

// fillEmpty is fill for an empty buffer: the usual-size buffer goes back
// to readBuffers, and one is taken from there only when there is something
// to read. It reports false when the read failed in a way the file's own
// Read should report (a closed file): fill then reads as usual.
func (lr *lineReader) fillEmpty() bool {
	rr := lr.raw
	if rr == nil {
		return false
	}
	lr.start, lr.end, lr.scanned = 0, 0, 0
	if rr.lent != nil {
		readBuffers.Put(rr.lent)
		rr.lent = nil
	}
	lr.buf = nil
	err := rr.raw.Read(rr.read)
	n, rerr := rr.n, rr.err
	rr.err = nil
	if rr.lent != nil {
		lr.buf = *rr.lent
	}
	switch {
	case err != nil:
		return false
	case n > 0:
		lr.end = n
		return true
	case rerr != nil:
		lr.err = &os.PathError{Op: "read", Path: "stdout", Err: rerr}
	default:
		lr.err = io.EOF
	}
	// Nothing was read, and nothing more will be: the buffer goes back.
	readBuffers.Put(rr.lent)
	rr.lent, lr.buf = nil, nil
	return true
}

// rawWriter writes to a pipe without waiting: what the pipe takes at once.
// One writer at a time (the lineWriter's busy one) uses it.
type rawWriter struct {
	raw syscall.RawConn

	// The write under way: fn is the function given to raw.Write, made
	// once so that a write allocates nothing.
	fn  func(fd uintptr) bool
	b   []byte
	n   int
	err error
}

// rawWriterOf returns a rawWriter for w if w is a file the runtime polls
// (a pipe), else nil.
func rawWriterOf(w io.Writer) *rawWriter {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	rw := &rawWriter{raw: raw}
	rw.fn = rw.writeFd
	return rw
}

// write writes what of b the pipe takes now, and returns how much that
// was; the error is the pipe's (closed at the other end) or the file's
// (closed here).
func (rw *rawWriter) write(b []byte) (int, error) {
	rw.b, rw.n, rw.err = b, 0, nil
	err := rw.raw.Write(rw.fn)
	n := rw.n
	if err == nil {
		err = rw.err
	}
	rw.b, rw.err = nil, nil
	return n, err
}

// writeFd writes rw.b to fd until the pipe is full; it never asks the
// poller to wait.
func (rw *rawWriter) writeFd(fd uintptr) bool {
	for rw.n < len(rw.b) {
		n, err := syscall.Write(int(fd), rw.b[rw.n:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return true
		case err != nil:
			rw.err = &os.PathError{Op: "write", Path: "stdin", Err: err}
			return true
		}
		rw.n += n
	}
	return true
}
