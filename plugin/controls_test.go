package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// controlsTransports reaches the controls server over stdio and over
// loopback Streamable HTTP.
func controlsTransports(t *testing.T, o testserver.ControlsOptions) map[string]transport.McpTransport {
	srv := testserver.NewHTTPServer(testserver.NewControlsServer(o))
	t.Cleanup(srv.Close)
	return map[string]transport.McpTransport{
		"stdio": testserver.Controls(t, o),
		"http":  transport.StreamableHTTP{URL: srv.URL},
	}
}

// stats asks the controls server what reached it, bypassing approval.
func stats(t *testing.T, p *plugin.McpPlugin) testserver.ControlsStats {
	t.Helper()
	var s testserver.ControlsStats
	require.NoError(t, json.Unmarshal([]byte(callText(t, p, "stats", nil)), &s))
	return s
}

// hookCall runs one ToolCall block through the hook and returns its result.
func hookCall(ctx context.Context, p host.Plugin, id, name, args string) host.ToolResult {
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
	_ = p.OnStreamChunk(ctx, chunk)
	r, _ := chunk.Blocks[0].(host.ToolResult)
	return r
}

// approvals records the requests an approval function saw.
type approvals struct {
	mu   sync.Mutex
	seen []plugin.ApprovalRequest
}

func (a *approvals) add(r plugin.ApprovalRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, r)
}

func (a *approvals) all() []plugin.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]plugin.ApprovalRequest(nil), a.seen...)
}

func TestApprovalThatDeniesSendsNothing(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			var seen approvals
			p := connect(t, tr, plugin.WithApproval(func(_ context.Context, r plugin.ApprovalRequest) error {
				seen.add(r)
				if r.Tool == "stats" {
					return nil
				}
				return errors.New("not on a Sunday")
			}))

			out := hookCall(context.Background(), p, "call-1", "text", `{"unit":"x","times":3}`)
			assert.True(t, out.IsError)
			assert.Equal(t, "call-1", out.ToolCallID)
			assert.Equal(t, "text", out.Name)
			assert.Contains(t, out.Content, "denied")
			assert.Contains(t, out.Content, "not on a Sunday")

			_, err := p.CallTool(context.Background(), "text", map[string]any{"unit": "y", "times": 1}).Await(context.Background())
			require.ErrorIs(t, err, plugin.ErrDenied)
			assert.NotErrorIs(t, err, plugin.ErrInternal)
			assert.ErrorContains(t, err, "not on a Sunday")

			assert.Equal(t, int64(0), stats(t, p).Calls, "a denied call never reaches the server")
			got := seen.all()
			require.Len(t, got, 3)
			assert.Equal(t, plugin.ApprovalRequest{Server: p.Server(), Tool: "text", CallID: "call-1",
				Arguments: json.RawMessage(`{"unit":"x","times":3}`)}, got[0])
			assert.Equal(t, "", got[1].CallID, "CallTool has no ToolCall ID")
			assert.JSONEq(t, `{"unit":"y","times":1}`, string(got[1].Arguments))
			assert.Equal(t, "stats", got[2].Tool)
		})
	}
}

func TestApprovalThatBlocksEndsWithTheCallersContext(t *testing.T) {
	leakCheck(t)
	deciding := make(chan struct{}, 4)
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithApproval(func(ctx context.Context, r plugin.ApprovalRequest) error {
		if r.Tool == "stats" {
			return nil
		}
		deciding <- struct{}{}
		<-ctx.Done() // a person who never answers
		return ctx.Err()
	}))

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, "text", map[string]any{"unit": "x", "times": 1}).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, plugin.ErrDenied, "the caller left; nobody denied")

	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan host.ToolResult)
	go func() { done <- hookCall(ctx2, p, "c2", "text", `{"unit":"x","times":1}`) }()
	<-deciding
	<-deciding
	cancel2()
	select {
	case out := <-done:
		assert.True(t, out.IsError)
		assert.Contains(t, out.Content, "caller gave up")
	case <-time.After(10 * time.Second):
		t.Fatal("the hook still waits after its ctx was cancelled")
	}
	assert.Equal(t, int64(0), stats(t, p).Calls, "an undecided call never reaches the server")
}

func TestApprovalThatAllowsSendsTheCall(t *testing.T) {
	leakCheck(t)
	var seen approvals
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithApproval(func(_ context.Context, r plugin.ApprovalRequest) error {
		seen.add(r)
		return nil
	}))
	out := hookCall(context.Background(), p, "c1", "text", `{"unit":"ab","times":2}`)
	assert.False(t, out.IsError)
	assert.Equal(t, "abab", out.Content)
	assert.Equal(t, "abab", callText(t, p, "text", map[string]any{"unit": "ab", "times": 2}))
	assert.Equal(t, int64(2), stats(t, p).Calls)
	assert.Len(t, seen.all(), 3, "every call is decided, stats included")
}

func TestApprovalDecidesTheCallsOfAChunkConcurrently(t *testing.T) {
	leakCheck(t)
	// Each decision waits for the other: decided one after the other, the
	// chunk would never finish.
	var arrived sync.WaitGroup
	arrived.Add(2)
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithApproval(func(ctx context.Context, r plugin.ApprovalRequest) error {
		if r.Tool == "stats" {
			return nil
		}
		arrived.Done()
		arrived.Wait()
		if r.CallID == "b" {
			return errors.New("b is not allowed")
		}
		return nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "a", Name: "text", Arguments: json.RawMessage(`{"unit":"a","times":1}`)},
		host.Text{Text: "between"},
		host.ToolCall{ID: "b", Name: "text", Arguments: json.RawMessage(`{"unit":"b","times":1}`)},
	}}
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	a, b := chunk.Blocks[0].(host.ToolResult), chunk.Blocks[2].(host.ToolResult)
	assert.Equal(t, host.ToolResult{ToolCallID: "a", Name: "text", Content: "a"}, a)
	assert.True(t, b.IsError)
	assert.Contains(t, b.Content, "b is not allowed")
	assert.Equal(t, host.Text{Text: "between"}, chunk.Blocks[1])
	assert.Equal(t, int64(1), stats(t, p).Calls)
}

// progressLog records progress events.
type progressLog struct {
	mu     sync.Mutex
	events []plugin.Progress
}

func (l *progressLog) add(p plugin.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, p)
}

func (l *progressLog) of(callID string) []plugin.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []plugin.Progress
	for _, e := range l.events {
		if e.CallID == callID {
			out = append(out, e)
		}
	}
	return out
}

func TestProgressReachesTheHandlerInOrder(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			var log progressLog
			p := connect(t, tr, plugin.WithProgress(log.add))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// Two calls at once: each hears only its own progress.
			chunk := &host.Chunk{Blocks: []host.Block{
				host.ToolCall{ID: "first", Name: "progress", Arguments: json.RawMessage(`{"steps":5,"ms":20}`)},
				host.ToolCall{ID: "second", Name: "progress", Arguments: json.RawMessage(`{"steps":3,"ms":30}`)},
			}}
			require.NoError(t, p.OnStreamChunk(ctx, chunk))
			for i, n := range map[string]int{"first": 5, "second": 3} {
				got := log.of(i)
				require.Len(t, got, n, "call %s", i)
				for k, e := range got {
					assert.Equal(t, plugin.Progress{Server: p.Server(), Tool: "progress", CallID: i,
						Progress: float64(k + 1), Total: float64(n), Message: fmt.Sprintf("step %d", k+1)}, e)
				}
			}
			res, err := p.CallTool(ctx, "progress", map[string]any{"steps": 2, "ms": 10}).Await(ctx)
			require.NoError(t, err)
			assert.Equal(t, "done", plugin.RenderResult(res))
			assert.Len(t, log.of(""), 2, "CallTool's progress has no CallID")
		})
	}
}

func TestEveryCallCarriesAProgressTokenOnlyWhenAsked(t *testing.T) {
	leakCheck(t)
	tr := testserver.Controls(t, testserver.ControlsOptions{})
	plain := connect(t, tr)
	assert.Equal(t, "null", callText(t, plain, "token", nil), "no token by default: a call carries only what the protocol asks")
	for name, opt := range map[string]plugin.Option{
		"progress":     plugin.WithProgress(func(plugin.Progress) {}),
		"idle timeout": plugin.WithIdleTimeout(time.Minute),
	} {
		p := connect(t, tr, opt)
		a, b := callText(t, p, "token", nil), callText(t, p, "token", nil)
		assert.True(t, strings.HasPrefix(a, `"`), "%s: a string token, got %s", name, a)
		assert.NotEqual(t, a, b, "%s: each call has its own token", name)
	}
}

func TestIdleTimeout(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			// What must not expire has an idle timeout forty times the
			// server's gaps between progress notifications (a busy machine
			// stretches them); what must expire is a server that sends none.
			lively := connect(t, tr, plugin.WithIdleTimeout(2*time.Second))
			p := connect(t, tr, plugin.WithIdleTimeout(400*time.Millisecond))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()

			// Progress every 50ms keeps a 3s call alive past the 2s.
			start := time.Now()
			res, err := lively.CallTool(ctx, "progress", map[string]any{"steps": 60, "ms": 50}).Await(ctx)
			require.NoError(t, err, "progress keeps the call alive")
			assert.Equal(t, "done", plugin.RenderResult(res))
			assert.Greater(t, time.Since(start), 2*time.Second)

			// A silent call is timed out (not finished: the error says so),
			// and cancelled on the server.
			out := hookCall(ctx, p, "quiet", "silent", `{"ms":3000}`)
			assert.True(t, out.IsError)
			assert.Contains(t, out.Content, "internal")
			assert.Contains(t, out.Content, "idle timeout: no progress from the server for 400ms")
			if name == "stdio" {
				assert.Eventually(t, func() bool { return stats(t, p).Cancelled >= 1 }, 10*time.Second, 20*time.Millisecond)
			} else {
				// go-sdk's stateless HTTP handler does not pass the
				// cancellation on: the call runs out its 3s there.
				assert.Eventually(t, func() bool { return stats(t, p).Running == 0 }, 10*time.Second, 20*time.Millisecond)
			}

			// The ctx deadline stays the hard limit, progress or not.
			short, cancelShort := context.WithTimeout(ctx, 700*time.Millisecond)
			defer cancelShort()
			_, err = lively.CallTool(short, "progress", map[string]any{"steps": 80, "ms": 50}).Await(ctx)
			require.ErrorIs(t, err, plugin.ErrInternal)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.NotContains(t, err.Error(), "idle timeout")
			assert.Eventually(t, func() bool { return stats(t, lively).Running == 0 }, 10*time.Second, 20*time.Millisecond)
		})
	}
}

func TestResultCapThroughTheHook(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			whole := connect(t, tr)
			full := hookCall(context.Background(), whole, "w", "text", `{"unit":"aé€😀","times":1000}`).Content
			require.Len(t, full, 10*1000, "1+2+3+4 bytes a unit")

			for _, n := range []int{len(full), len(full) + 1} {
				p := connect(t, tr, plugin.WithMaxResultBytes(n))
				assert.Equal(t, full, hookCall(context.Background(), p, "c", "text", `{"unit":"aé€😀","times":1000}`).Content, "n=%d", n)
			}
			for _, n := range []int{len(full) - 1, 4000, 4001, 4002, 4003, 100, 25} {
				p := connect(t, tr, plugin.WithMaxResultBytes(n))
				out := hookCall(context.Background(), p, "c", "text", `{"unit":"aé€😀","times":1000}`)
				assert.False(t, out.IsError)
				checkCut(t, full, out.Content, n)
				// CallTool's result is the server's, whole.
				assert.Equal(t, full, callText(t, p, "text", map[string]any{"unit": "aé€😀", "times": 1000}))
			}
			// Below the marker's own size, the marker is all that is left.
			p := connect(t, tr, plugin.WithMaxResultBytes(5))
			assert.Equal(t, "[… 9.8 KiB more cut]", hookCall(context.Background(), p, "c", "text", `{"unit":"aé€😀","times":1000}`).Content)
		})
	}
}

// checkCut checks that got is full cut to at most n bytes on a character
// boundary, with a marker that says how many bytes were cut.
func checkCut(t *testing.T, full, got string, n int) {
	t.Helper()
	assert.LessOrEqual(t, len(got), n, "n=%d", n)
	assert.True(t, utf8.ValidString(got), "n=%d: cut inside a character", n)
	i := strings.LastIndex(got, "\n[… ")
	require.GreaterOrEqual(t, i, 0, "n=%d: no marker in %q", n, got)
	kept, marker := got[:i], got[i+1:]
	assert.True(t, strings.HasPrefix(full, kept), "n=%d: the kept text is the result's start", n)
	assert.Greater(t, len(kept), n-30, "n=%d: no more cut than the marker needs", n)
	cut := len(full) - len(kept)
	want := fmt.Sprintf("[… %d B more cut]", cut)
	if cut >= 1024 {
		want = fmt.Sprintf("[… %.1f KiB more cut]", float64(cut)/1024)
	}
	assert.Equal(t, want, marker, "n=%d", n)
}

func TestResultCapCutsErrorsToo(t *testing.T) {
	leakCheck(t)
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{}),
		plugin.WithMaxResultBytes(40),
		plugin.WithApproval(func(context.Context, plugin.ApprovalRequest) error {
			return errors.New(strings.Repeat("no ", 100))
		}))
	out := hookCall(context.Background(), p, "c", "text", `{}`)
	assert.True(t, out.IsError)
	assert.LessOrEqual(t, len(out.Content), 40)
	assert.Contains(t, out.Content, "more cut]")
}

// Every progress the server sends before its result reaches the handler
// before the call returns, even when the result follows the last progress
// at once.
func TestProgressSentBeforeTheResultArrivesBeforeTheCallReturns(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			var log progressLog
			p := connect(t, tr, plugin.WithProgress(log.add))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for i := range 30 {
				id := fmt.Sprintf("call-%d", i)
				chunk := &host.Chunk{Blocks: []host.Block{
					host.ToolCall{ID: id, Name: "progress", Arguments: json.RawMessage(`{"steps":3,"ms":0}`)},
				}}
				require.NoError(t, p.OnStreamChunk(ctx, chunk))
				require.Equal(t, "done", chunk.Blocks[0].(host.ToolResult).Content)
				require.Len(t, log.of(id), 3, "call %d: every step before the result", i)
			}
		})
	}
}

func TestCloseWaitsForTheApprovalsUnderWay(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	deciding := make(chan struct{}, 1)
	var decided atomic.Bool
	p, err := plugin.Connect(context.Background(), testserver.Controls(t, testserver.ControlsOptions{}),
		plugin.WithApproval(func(ctx context.Context, r plugin.ApprovalRequest) error {
			deciding <- struct{}{}
			<-ctx.Done() // a person who never answers; Close ends the wait
			decided.Store(true)
			return ctx.Err()
		}))
	require.NoError(t, err)

	// The caller's ctx never ends: only Close can end the approval.
	f := p.CallTool(context.Background(), "text", map[string]any{"unit": "x", "times": 1})
	<-deciding
	require.NoError(t, p.Close())

	assert.True(t, decided.Load(), "Close returned before the approval function did")
	_, err = f.Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.ErrorContains(t, err, "plugin is closed")
	assert.NotErrorIs(t, err, plugin.ErrDenied, "the plugin closed; nobody denied")
	assert.NotErrorIs(t, err, context.Canceled, "the caller did not give up")
	goleak.VerifyNone(t, ignore, goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
