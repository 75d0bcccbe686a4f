package transport

import (
	"bytes"
	"io"
)

// readBufferSize is the line buffer a stdio connection reads into, enough
// for a tool call's usual answer. A longer line grows the buffer, and is
// copied out to a message of its own size; the connection goes back to
// this size. On Unix, a connection waiting for its server holds no buffer:
// it borrows one of this size for each read (see fillEmpty).
const readBufferSize = 2 << 10

// headBytes is how much of an over-long line is searched for its id.
const headBytes = 64 << 10

// lineReader splits a stream into newline-terminated lines through one
// reused buffer. It is not safe for concurrent use.
type lineReader struct {
	r     io.Reader
	limit int // the longest line delivered, in bytes without its newline

	buf        []byte // buf[start:end] is read and not yet delivered
	start, end int
	scanned    int  // buf[start:start+scanned] holds no newline
	discarding bool // the rest of an over-long line is being dropped
	err        error

	raw *rawReader // how r is waited on with no buffer, if it can be
}

func newLineReader(r io.Reader, limit int) *lineReader {
	return &lineReader{r: r, limit: limit, raw: rawReaderOf(r)}
}

// line is one delivered line, without its newline.
type line struct {
	// text is the line, valid until the next call of next unless owned.
	text []byte
	// owned says the memory of text is never reused: a message decoded
	// from it may keep pointing into it.
	owned bool
	// tooLong says the line exceeded the limit: text is its first bytes
	// (at most headBytes) and the rest is being dropped unread.
	tooLong bool
}

// next returns the next line. A last line without a newline is delivered
// when the stream ends; then the stream's error (io.EOF) is returned.
func (lr *lineReader) next() (line, error) {
	for {
		if lr.discarding {
			if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
				lr.start += i + 1
				lr.discarding = false
				lr.shrink()
				continue
			}
			lr.start, lr.end = 0, 0
		} else if l, ok := lr.complete(); ok {
			return l, nil
		}
		if lr.err != nil {
			return lr.finish()
		}
		lr.fill()
	}
}

// drained reports whether every byte read has been delivered.
func (lr *lineReader) drained() bool { return lr.start == lr.end }

// complete returns a buffered line, or a line over the limit.
func (lr *lineReader) complete() (line, bool) {
	pending := lr.buf[lr.start:lr.end]
	if i := bytes.IndexByte(pending[lr.scanned:], '\n'); i >= 0 {
		n := lr.scanned + i
		lr.scanned = 0
		if n > lr.limit {
			lr.start += n + 1
			return lr.tooLong(pending[:n]), true
		}
		text := pending[:n:n]
		lr.start += n + 1
		if len(lr.buf) > readBufferSize {
			// The buffer grew for this line: the message gets a copy of
			// its own, of the line's size (whatever of it the message
			// keeps, e.g. a tool list's schemas, holds no more), and the
			// connection reads on into a buffer of the usual size.
			text = bytes.Clone(text)
			lr.shrink()
			return line{text: text, owned: true}, true
		}
		return line{text: text}, true
	}
	lr.scanned = len(pending)
	if len(pending) > lr.limit {
		lr.discarding = true
		lr.start, lr.end, lr.scanned = 0, 0, 0
		return lr.tooLong(pending), true
	}
	return line{}, false
}

// tooLong reports an over-long line by its head: its first bytes, as many
// whatever the reads were (the line has more than limit). The head is
// copied: the buffer it lies in is about to be read into again.
func (lr *lineReader) tooLong(text []byte) line {
	head := bytes.Clone(text[:min(len(text), lr.limit+1, headBytes)])
	lr.shrink()
	return line{text: head, tooLong: true, owned: true}
}

// finish delivers what is left when the stream has ended.
func (lr *lineReader) finish() (line, error) {
	if lr.discarding || lr.start == lr.end {
		lr.discarding = false
		lr.start, lr.end, lr.scanned = 0, 0, 0
		lr.buf = nil
		return line{}, lr.err
	}
	text := lr.buf[lr.start:lr.end:lr.end]
	lr.start, lr.end, lr.scanned = 0, 0, 0
	lr.buf = nil
	return line{text: text, owned: true}, nil
}

// fill reads once into the buffer, making room first: by moving the
// pending bytes to the front, or by doubling the buffer up to one byte over
// the limit (enough to know a line is too long).
func (lr *lineReader) fill() {
	if lr.start == lr.end && lr.fillEmpty() {
		return
	}
	if lr.buf == nil {
		lr.buf = make([]byte, readBufferSize)
	}
	if lr.end == len(lr.buf) {
		if lr.start > 0 {
			lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
			lr.start = 0
		} else {
			// complete has seen no more than limit bytes pending, so
			// this always grows.
			grown := make([]byte, min(2*len(lr.buf), lr.limit+1))
			lr.end = copy(grown, lr.buf[:lr.end])
			lr.buf = grown
		}
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.err = err
	}
}

// shrink goes back to a buffer of the usual size once an over-long line is
// done with, keeping what is pending.
func (lr *lineReader) shrink() {
	if len(lr.buf) <= readBufferSize || lr.end-lr.start > readBufferSize {
		return
	}
	rest := lr.buf[lr.start:lr.end]
	buf := make([]byte, readBufferSize)
	lr.end = copy(buf, rest)
	lr.start = 0
	lr.buf = buf
}
