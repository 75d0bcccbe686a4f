package transport

import (
	"bytes"
	"sync"

	"go.uber.org/zap"
)

// maxStderrLine bounds one logged line; a child that writes megabytes without
// a newline costs no more than this.
const maxStderrLine = 4096

// stderrTail is the io.Writer a child's stderr goes to: each line is logged
// and the last few are kept in a ring.
type stderrTail struct {
	mu      sync.Mutex
	logger  *zap.Logger
	partial []byte
	ring    []string
	next    int
	full    bool
}

func newStderrTail(n int, logger *zap.Logger) *stderrTail {
	t := &stderrTail{logger: logger}
	if n > 0 {
		t.ring = make([]string, n)
	}
	return t
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
	if len(t.ring) == 0 {
		return
	}
	t.ring[t.next] = line
	t.next = (t.next + 1) % len(t.ring)
	if t.next == 0 {
		t.full = true
	}
}

// Lines returns the kept lines, oldest first, including an unterminated last
// line.
func (t *stderrTail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	if t.full {
		out = append(out, t.ring[t.next:]...)
	}
	out = append(out, t.ring[:t.next]...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	return out
}
