package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// The host controls: approval before a call, progress and an idle timeout
// during it, a cap on what the model reads of its result, and a tool list
// kept live. Each is off until its option is given, and then costs nothing
// on the calls it does not touch.

// controls holds the options of this file.
type controls struct {
	approve        func(context.Context, ApprovalRequest) error
	onProgress     func(Progress)
	idleTimeout    time.Duration
	maxResultBytes int
	toolRefresh    bool
}

// ApprovalRequest is what [WithApproval]'s function decides on: one tool
// call, before anything of it reaches the server.
type ApprovalRequest struct {
	// Server names the server as errors do ([McpPlugin.Server]), e.g.
	// `stdio "srv"`, or `server "github" (stdio "npx")` in a toolbox.
	Server string
	// Tool is the server's own name of the tool (in a toolbox, not the
	// exposed name).
	Tool string
	// CallID is the ID of the model's ToolCall block when the call comes
	// from [McpPlugin.OnStreamChunk] (or a toolbox's), empty for CallTool.
	CallID string
	// Arguments is the JSON object that would be sent, or empty for none.
	Arguments json.RawMessage
}

// WithApproval has approve decide on every tool call before it is sent,
// from the hook and from CallTool alike. A nil error lets the call go; any
// other error denies it: nothing reaches the server, the hook's ToolResult
// carries the reason with IsError, and the Future fails with [ErrDenied]
// wrapping the error. approve may block (a person deciding) but must
// return when ctx, the call's context, ends; a call whose ctx ended while
// it decided fails as any abandoned call does ([ErrInternal] wrapping
// ctx's error) and is not sent. The time spent deciding counts against
// ctx's deadline but not against [WithDefaultCallTimeout] or [WithCallTimeoutCap],
// which bound the server's part. approve may run on several goroutines at
// once, one per call (calls in one chunk are decided concurrently). A nil
// approve turns approval off, e.g. after a host-wide one for a trusted
// server.
func WithApproval(approve func(ctx context.Context, req ApprovalRequest) error) Option {
	return func(o *options) {
		o.note("WithApproval", roleCall)
		o.approve = approve
	}
}

// Progress is one notifications/progress of the server for a call.
type Progress struct {
	// Server, Tool and CallID are as in [ApprovalRequest].
	Server, Tool, CallID string
	// Progress is the server's count so far; Total is zero when the
	// server does not know it.
	Progress, Total float64
	// Message is the server's text, if any.
	Message string
}

// WithProgress gives every tool call a progress token and passes each
// notifications/progress the server sends for it to h, in the order sent:
// every progress sent before the call's result reaches h before the call
// returns (through a toolbox and across a cluster too). Progress that the
// server sends after the call's result is dropped. h runs on the goroutine
// that reads the session's messages, one at a time; it must return quickly
// (every reply of the session waits for it) and must not close the plugin,
// whose Close waits for those replies. Across a cluster ([Attach]) the
// progress travels to the facade's member as a message, ahead of the
// result.
func WithProgress(h func(Progress)) Option {
	return func(o *options) {
		o.note("WithProgress", roleCall)
		o.onProgress = h
	}
}

// WithIdleTimeout fails a tool call with [ErrInternal] ("idle timeout")
// and cancels it on the server once d passes without progress from the
// server: from the call's start, and again from each notifications/progress
// for it. Every call then carries a progress token. The call's ctx deadline
// (or [WithDefaultCallTimeout], [WithCallTimeoutCap]) stays the hard limit however
// often the server reports progress. Zero or negative means no idle
// timeout (the default).
func WithIdleTimeout(d time.Duration) Option {
	return func(o *options) {
		o.note("WithIdleTimeout", roleCall)
		o.idleTimeout = max(d, 0)
	}
}

// WithMaxResultBytes caps the text the model reads of a tool call (the
// ToolResult's Content, rendered or error text) at n bytes: a longer text
// is cut at a UTF-8 character boundary and ends with a marker such as
// "[… 1.2 MiB more cut]" saying how much was cut, marker included in the n
// bytes. n smaller than the marker leaves the marker alone. Zero or
// negative renders whole, as by default. CallTool's result is not cut;
// [Future.ToolResult] and the hook are.
func WithMaxResultBytes(n int) Option {
	return func(o *options) {
		o.note("WithMaxResultBytes", roleCall)
		o.maxResultBytes = max(n, 0)
	}
}

// WithToolRefresh keeps the tool list live. The connection subscribes to
// the server's tools/list_changed (SEP-2575 subscriptions/listen, when the
// server declares tools.listChanged) and lists the tools again on each;
// and when a tools/list result carries a TTL (ttlMs > 0), the first use of
// the plugin after it expires (Tools, HasTool, ToolDefinitions, a hook,
// CallTool) starts a new listing without waiting for it. The new list
// replaces the old one atomically: a hook sees one or the other, never a
// mix. Tools added and removed are logged and reported to the status
// handlers ([Status] ToolsAdded, ToolsRemoved). A listing that fails
// keeps the list in force and is tried again after another TTL. For a
// cluster grain, give it to the grain's kind too (the hosting member
// subscribes) and to the facade (which watches the grain's list).
func WithToolRefresh() Option {
	return func(o *options) {
		o.note("WithToolRefresh", roleAll)
		o.toolRefresh = true
	}
}

// ToolResult awaits the call and returns the [ToolResult] block that
// replaces the call in a stream: the rendered result ([RenderResult]) or
// the error text with IsError, cut at [WithMaxResultBytes]. ToolCallID and
// Name are those of the call: the ToolCall's for [McpPlugin.StartToolCall],
// empty and the tool's name for CallTool.
func (f *Future) ToolResult(ctx context.Context) ToolResult {
	res, err := f.Await(ctx)
	out := ToolResult{ToolCallID: f.callID, Name: f.name}
	limit := 0
	if f.p != nil {
		limit = f.p.maxResultBytes
	}
	if err != nil {
		out.Content, out.IsError = capText(err.Error(), limit), true
	} else {
		out.Content, out.IsError = capText(RenderResult(res), limit), res != nil && res.IsError
	}
	return out
}

// StartToolCall starts the call of a model's ToolCall block as
// [McpPlugin.OnStreamChunk] does, and returns at once: call.Name is the
// server's tool, call.Arguments must be a JSON object, empty or null (else
// [ErrValidation]), and call.ID is the CallID of approval and progress.
// [Future.ToolResult] gives the block that replaces it. It is the seam for
// facades that route blocks to plugins (a toolbox).
func (p *McpPlugin) StartToolCall(ctx context.Context, call ToolCall) *Future {
	p.snapshot()
	raw, err := objectText(call.Arguments)
	if err != nil {
		return failedCall(call.ID, call.Name, p.callError(KindValidation, call.Name, err))
	}
	return p.call(ctx, call.ID, call.Name, raw)
}

// capText cuts s to at most n bytes, marker included, on a UTF-8
// boundary. n <= 0 means no cap.
func capText(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	keep := n
	for {
		k := keep
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		m := cutMarker(len(s) - k)
		if k == 0 {
			return m[1:] // nothing kept: no line to end
		}
		if k+len(m) <= n {
			return s[:k] + m
		}
		// The marker did not fit: keep less. Keeping less can lengthen the
		// marker ("1023 B" becomes "1.0 KiB"), so look again.
		keep = min(k-1, max(n-len(m), 0))
	}
}

// cutMarker says that cut bytes were left out.
func cutMarker(cut int) string {
	return fmt.Sprintf("\n[… %s more cut]", sizeOf(int64(cut)))
}

// approvalGate settles the race between a decided call being sent and its
// caller giving up: whichever comes first wins, under mu, so that a call is
// never sent after its caller left, and a cancellation never overtakes its
// call.
type approvalGate struct {
	mu        sync.Mutex
	sent      bool
	abandoned bool
}

// abandon marks the call given up and reports whether it had been sent
// (and so needs cancelling on the connection).
func (g *approvalGate) abandon() (sent bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.abandoned = true
	return g.sent
}

// approveAndSend asks the approval function about f's call and then sends
// it, or answers f with the refusal. It runs on a goroutine of its own.
func (p *McpPlugin) approveAndSend(ctx context.Context, f *Future, args json.RawMessage) {
	req := ApprovalRequest{Server: p.server, Tool: f.name, CallID: f.callID, Arguments: args}
	err := p.decide(ctx, req)
	g := f.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.abandoned {
		return // Await has returned the caller's error already
	}
	switch {
	case ctx.Err() != nil:
		f.ch <- p.callError(KindInternal, f.name, fmt.Errorf("caller gave up: %w", ctx.Err()))
	case err != nil:
		f.ch <- p.callError(KindDenied, f.name, err)
	case p.closed.Load():
		f.ch <- p.callError(KindInternal, f.name, errors.New("plugin is closed"))
	default:
		if err := p.send(ctx, f, args); err != nil {
			f.ch <- err
			return
		}
		g.sent = true
	}
}

// decide runs the approval function; a panic in it denies the call.
func (p *McpPlugin) decide(ctx context.Context, req ApprovalRequest) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("approval panicked: %v", r)
		}
	}()
	return p.approve(ctx, req)
}
