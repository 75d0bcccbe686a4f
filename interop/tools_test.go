package interop

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The tools every interop server offers, in each SDK's own idiom:
//
//   - add {a, b}: the sum as text ("42").
//   - echo {any}: the arguments it received, as JSON text ("{}" for none);
//     records "echo".
//   - fail: an isError result, text "boom".
//   - image, audio, resource, link: one content block of that kind
//     (imageContent and so on below).
//   - structured {a, b}: structuredContent {"sum": a+b} and no content.
//   - slow {ms}: waits ms milliseconds, then "done"; records "slow started",
//     and "slow cancelled" when the call is cancelled first.
//   - gather {n}: waits until n calls of gather are in flight at once
//     (they come in batches of n), then "together"; "alone" after 10 s.
//   - exit (stdio servers only): the server process exits with status 3.
//
// The Go servers list them in pages of pageSize, and record "list" for each
// tools/list, so that the tests see pagination from the server's side.

// pageSize makes the tool list three pages long where the SDK pages.
const pageSize = 4

// toolNames are the tools every server lists, sorted; stdio servers add
// "exit".
var toolNames = strings.Fields("add audio echo fail gather image link resource slow structured")

// expectedTools is the sorted tool list of a server on the given transport.
func expectedTools(transport string) []string {
	names := slices.Clone(toolNames)
	if transport == stdio {
		names = append(names, "exit")
		slices.Sort(names)
	}
	return names
}

// The content of the content-kind tools, the same in every SDK.
const (
	imageMIME, imageBytes = "image/png", 2048
	audioMIME, audioBytes = "audio/wav", 10
	resourceURI           = "file:///notes.txt"
	resourceMIME          = "text/plain"
	resourceText          = "hello"
	linkURI               = "file:///big.bin"
	linkName              = "big"
	linkMIME              = "application/octet-stream"
)

// recorder appends lines to a file the test reads: the server may be
// another process.
type recorder struct {
	path string
	mu   sync.Mutex
}

// note appends line. A failure to record is the server's to report: it
// panics, which the SDK turns into an error the test sees.
func (r *recorder) note(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		panic(err)
	}
}

// slow is the slow tool's body, shared by the Go servers.
func (r *recorder) slow(ctx context.Context, ms float64) (string, error) {
	r.note("slow started")
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
		return "done", nil
	case <-ctx.Done():
		r.note("slow cancelled")
		return "", ctx.Err()
	}
}

// barrier is the gather tool's body, shared by the Go servers: the k-th
// arrival waits for the last arrival of its batch of n.
type barrier struct {
	arrived atomic.Int64
}

func (b *barrier) gather(ctx context.Context, n float64) (string, error) {
	size := max(int64(n), 1)
	k := b.arrived.Add(1)
	target := ((k-1)/size + 1) * size
	deadline := time.After(10 * time.Second)
	for b.arrived.Load() < target {
		select {
		case <-time.After(time.Millisecond):
		case <-deadline:
			return "alone", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "together", nil
}
