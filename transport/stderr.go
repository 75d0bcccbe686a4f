package transport

import (
	"bytes"
	"sync"

	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"go.uber.org/zap"
)

// maxStderrLine bounds one logged line; a child that writes megabytes without
// a newline costs no more than this.
const maxStderrLine = 4096

// stderrTail is the io.Writer a child's stderr goes to: each line is logged
// and the last few are kept in a ring, and so is the first line that reads
// as an error (transportext.ReadsAsError), which is often the one that says why.
type stderrTail struct {
	mu      sync.Mutex
	logger  *zap.Logger
	partial []byte
	ring    []string // made at the first line: a quiet child costs nothing
	size    int      // the ring's length
	next    int
	full    bool
	total   int    // lines flushed so far
	first   string // the first line that reads as an error
	firstAt int    // its number, from 0; -1 before there is one
}

func newStderrTail(n int, logger *zap.Logger) *stderrTail {
	return &stderrTail{logger: logger, firstAt: -1, size: max(n, 0)} // the ring is made by the first line
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxStderrLine - len(t.partial)
			if len(p) > room {
				t.partial = append(t.partial, p[:room]...)
				t.flush()
				p = p[room:]
				continue
			}
			t.partial = append(t.partial, p...)
			break
		}
		if room := maxStderrLine - len(t.partial); i > room {
			t.partial = append(t.partial, p[:room]...)
		} else {
			t.partial = append(t.partial, p[:i]...)
		}
		t.flush()
		p = p[i+1:]
	}
	return n, nil
}

// flush logs and keeps the pending line; the caller holds mu.
func (t *stderrTail) flush() {
	line := string(bytes.TrimRight(t.partial, "\r"))
	t.partial = t.partial[:0]
	t.logger.Info("mcp server stderr", zap.String("line", line))
	if t.firstAt < 0 && transportext.ReadsAsError(line) {
		t.first, t.firstAt = line, t.total
	}
	t.total++
	if t.size == 0 {
		return
	}
	if t.ring == nil {
		t.ring = make([]string, t.size)
	}
	t.ring[t.next] = line
	t.next = (t.next + 1) % len(t.ring)
	if t.next == 0 {
		t.full = true
	}
}

// Lines returns the kept lines, oldest first, including an unterminated last
// line: the first line that reads as an error when it is no longer among
// the last ones, then the last ones.
func (t *stderrTail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	if len(t.ring) > 0 && t.firstAt >= 0 && t.firstAt < t.total-len(t.ring) {
		out = append(out, t.first)
	}
	if t.full {
		out = append(out, t.ring[t.next:]...)
	}
	out = append(out, t.ring[:t.next]...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	return out
}
