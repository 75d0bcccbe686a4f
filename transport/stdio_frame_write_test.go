package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/goroutine"
)

// gatedWriter records each Write; the first one blocks until release.
type gatedWriter struct {
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	writes  []string
	err     error
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	first := len(g.writes) == 0
	g.writes = append(g.writes, string(p))
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	return len(p), g.err
}

func (lw *lineWriter) queuedLines() int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return bytes.Count(lw.queued, []byte("\n"))
}

// Lines handed over while a write is under way leave together, in one
// Write, in the order they came; a lone line is written at once.
func TestLineWriterBatches(t *testing.T) {
	g := &gatedWriter{entered: make(chan struct{}), release: make(chan struct{})}
	lw := &lineWriter{w: g}
	first := make(chan error, 1)
	go func() { first <- lw.write([]byte("a\n"), nil) }()
	<-g.entered
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- lw.write(fmt.Appendf(nil, "l%d\n", i), nil) }()
	}
	for lw.queuedLines() < n {
		runtime.Gosched() // until every line is queued behind the write
	}
	close(g.release)
	require.NoError(t, <-first)
	for range n {
		require.NoError(t, <-errs)
	}
	require.Len(t, g.writes, 2, "the queued lines go out in one write")
	assert.Equal(t, "a\n", g.writes[0])
	lines := strings.Split(strings.TrimSuffix(g.writes[1], "\n"), "\n")
	require.Len(t, lines, n)
	sort.Strings(lines)
	for i, l := range lines {
		assert.Equal(t, fmt.Sprintf("l%d", i), l)
	}
	// Free again: a lone line goes at once, in a write of its own.
	require.NoError(t, lw.write([]byte("z\n"), nil))
	assert.Equal(t, []string{"a\n", g.writes[1], "z\n"}, g.writes)
}

// Every writer of a batch gets the error of the write that carried its
// line.
func TestLineWriterBatchError(t *testing.T) {
	boom := errors.New("broken pipe")
	g := &gatedWriter{entered: make(chan struct{}), release: make(chan struct{}), err: boom}
	lw := &lineWriter{w: g}
	first := make(chan error, 1)
	go func() { first <- lw.write([]byte("a\n"), nil) }()
	<-g.entered
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- lw.write([]byte("b\n"), nil) }()
	}
	for lw.queuedLines() < 2 {
		runtime.Gosched()
	}
	close(g.release)
	require.ErrorIs(t, <-first, boom)
	require.ErrorIs(t, <-errs, boom)
	require.ErrorIs(t, <-errs, boom)
}

// Posted lines wait for a flush, and leave together, in one write, in the
// order they were posted; a writer that comes first takes them ahead of
// its own line.
func TestLineWriterPostedLinesLeaveTogether(t *testing.T) {
	g := &gatedWriter{entered: make(chan struct{}), release: make(chan struct{})}
	close(g.release)
	lw := &lineWriter{w: g}
	lw.post([]byte("a\n"))
	lw.post([]byte("b\n"))
	assert.Equal(t, 2, lw.queuedLines(), "nothing leaves before the flush")
	lw.flush()
	require.Eventually(t, func() bool { return lw.queuedLines() == 0 && !lw.isBusy() }, time.Minute, time.Millisecond)
	lw.post([]byte("c\n"))
	require.NoError(t, lw.write([]byte("d\n"), nil))
	g.mu.Lock()
	defer g.mu.Unlock()
	assert.Equal(t, []string{"a\nb\n", "c\nd\n"}, g.writes)
}

// A flush never waits on a pipe nobody reads: what the pipe does not take
// goes on a goroutine, and every line arrives, in order, once the server
// reads again. A failed write of posted lines is told to lost.
func TestLineWriterFlushNeverWaits(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	lost := make(chan []byte, 1)
	lw := &lineWriter{w: w, raw: rawWriterOf(w), lost: func(unsent []byte, err error) {
		assert.Error(t, err)
		lost <- bytes.Clone(unsent)
	}}
	line := append(bytes.Repeat([]byte("x"), 1023), '\n')
	const n = 512 // 512 KiB: far more than a pipe holds
	for range n {
		lw.post(line)
		lw.flush() // returns though nobody reads
	}
	got, err := io.ReadAll(io.LimitReader(r, int64(n*len(line))))
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat(line, n), got)
	require.Eventually(t, func() bool { return !lw.isBusy() }, time.Minute, time.Millisecond)

	require.NoError(t, r.Close())
	lw.post(line)
	lw.flush()
	assert.Equal(t, line, <-lost, "the line never left")
	require.NoError(t, w.Close())
}

func (lw *lineWriter) isBusy() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.busy
}

// afterWrites runs its function at once on a free pipe; while a write is
// under way, only after that write and the lines queued behind it are
// done, and after lost has been told of the posted lines that failed: a
// connection that ended learns that way which calls left.
func TestLineWriterAfterWritesWaitsForTheWriteUnderWay(t *testing.T) {
	g := &gatedWriter{entered: make(chan struct{}), release: make(chan struct{}), err: errors.New("broken pipe")}
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	lw := &lineWriter{w: failedWriter{g}, lost: func(unsent []byte, err error) { record("lost " + string(unsent)) }}
	ran := make(chan struct{})
	lw.afterWrites(func() { close(ran) })
	select {
	case <-ran:
	default:
		t.Fatal("afterWrites on a free pipe waited")
	}

	first := make(chan error, 1)
	go func() { first <- lw.write([]byte("a\n"), nil) }()
	<-g.entered
	lw.post([]byte("p\n"))
	done := make(chan struct{})
	lw.afterWrites(func() { record("after"); close(done) })
	select {
	case <-done:
		t.Fatal("afterWrites ran while a write was under way")
	default:
	}
	close(g.release)
	require.Error(t, <-first)
	<-done
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"lost p\n", "after"}, events, "the failed posted line is told before the function runs")
	assert.False(t, lw.isBusy())
}

// failedWriter is a gatedWriter whose failed writes write nothing.
type failedWriter struct{ g *gatedWriter }

func (f failedWriter) Write(p []byte) (int, error) {
	n, err := f.g.Write(p)
	if err != nil {
		n = 0
	}
	return n, err
}

// The lines queued while a flush writes leave from that flush, in its next
// write, on the flushing goroutine (not on a goroutine it starts), until
// nothing more is queued; past flushRounds writes the rest is left to a
// goroutine, and still arrives, in order.
func TestLineWriterFlushWritesWhatCameMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		posted int // lines posted during the flush's writes
		writes int // writes on the flushing goroutine
	}{
		{"until nothing is queued", 2, 3},
		{"at most flushRounds writes", flushRounds, flushRounds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer func() { _ = r.Close(); _ = w.Close() }()
			lw := &lineWriter{w: w, raw: rawWriterOf(w)}
			if lw.raw == nil {
				t.Skip("the runtime does not poll pipes here: a flush hands its lines to a goroutine")
			}
			me := goroutine.ID()
			var on []string
			lines := 1
			lw.flushed = func() {
				on = append(on, goroutine.ID())
				if lines <= tc.posted {
					lw.post(fmt.Appendf(nil, "l%d\n", lines)) // as a caller posting while the write was under way
					lines++
				}
			}
			lw.post([]byte("l0\n"))
			lw.flush()
			assert.Equal(t, slices.Repeat([]string{me}, tc.writes), on)
			assert.Equal(t, tc.posted+1, lines, "lines posted")
			var want strings.Builder
			for i := range lines {
				fmt.Fprintf(&want, "l%d\n", i)
			}
			got := make([]byte, want.Len())
			_, err = io.ReadFull(r, got)
			require.NoError(t, err)
			assert.Equal(t, want.String(), string(got))
			require.Eventually(t, func() bool { return !lw.isBusy() }, time.Minute, time.Millisecond)
		})
	}
}
