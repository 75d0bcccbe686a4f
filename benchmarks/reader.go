package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"sync"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/transport"
)

// The one-reader floors over pipes: the least a client that lets many
// callers share a pipe must do, against the bare echo and against the
// go-sdk server the hook calls (the floor the hook is measured against).
const (
	SubjectReaderFloor = "one-reader echo (floor of a shared pipe)"
	SubjectReaderGoSDK = "one-reader client of the go-sdk server (floor of the hook)"
)

// ReaderPipe is the floor of a client over pipes that many callers share,
// as the plugin's stdio connection is shared: a child running
// [testserver.ServeEcho]; each op writes one JSON-RPC tools/call line
// (writes in turn), and one goroutine reads the pipe and hands each answer
// line to the caller waiting for its id. No JSON library on either side;
// beside [RawPipe] it costs what the hand-off between goroutines costs.
type ReaderPipe struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	wmu  sync.Mutex // writes and id, in turn
	id   int64
	buf  []byte
	mu   sync.Mutex // waiting
	wait map[int64]chan struct{}
	errs int // answers that were JSON-RPC errors
	done chan struct{}
}

// Errors counts the answers that were JSON-RPC errors, not results.
func (r *ReaderPipe) Errors() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs
}

// StartReaderPipe spawns the echo child of t and its reader goroutine.
func StartReaderPipe(t transport.Stdio) (*ReaderPipe, error) {
	cmd, in, out, err := startPipe(t)
	if err != nil {
		return nil, err
	}
	r := &ReaderPipe{cmd: cmd, in: in, out: out, wait: map[int64]chan struct{}{}, done: make(chan struct{})}
	go r.read()
	return r, nil
}

// read is the one reader: each answer line goes to its caller.
func (r *ReaderPipe) read() {
	defer close(r.done)
	for {
		line, err := r.out.ReadSlice('\n')
		if err != nil {
			return
		}
		id, err := strconv.ParseInt(string(testserver.RequestID(line)), 10, 64)
		if err != nil {
			continue
		}
		r.mu.Lock()
		if bytes.Contains(line, []byte(`"error":`)) {
			r.errs++
		}
		ch := r.wait[id]
		delete(r.wait, id)
		r.mu.Unlock()
		if ch != nil {
			ch <- struct{}{}
		}
	}
}

// Subject returns the pipe's round trip of c as a subject named name.
func (r *ReaderPipe) Subject(name string, c Call) *Subject {
	return &Subject{Name: name, New: func() Op {
		ch := make(chan struct{}, 1)
		return func(ctx context.Context) error { return r.roundTrip(ctx, c, ch) }
	}}
}

func (r *ReaderPipe) roundTrip(ctx context.Context, c Call, ch chan struct{}) error {
	r.wmu.Lock()
	r.id++
	id := r.id
	r.mu.Lock()
	r.wait[id] = ch
	r.mu.Unlock()
	r.buf = appendRequest(r.buf[:0], id, c)
	r.buf = append(r.buf, '\n')
	_, err := r.in.Write(r.buf)
	r.wmu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-r.done:
		return errors.New("the echo child's output ended")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the child and waits for it and the reader.
func (r *ReaderPipe) Close() error {
	_ = r.in.Close()
	err := r.cmd.Wait()
	<-r.done
	return err
}
