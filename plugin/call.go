package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/tracelog"
	"github.com/cuca-go/mcpconnector/messages"
)

// The life of a tool call, top to bottom: a model's ToolCall reaches the
// hook (or a host calls CallTool); its arguments are checked; the approval
// function, if any, decides on it; it is sent to the connection through the
// plugin's link, wherever the connection lives; its Future awaits the reply;
// the reply is rendered into the ToolResult that replaces the call.

// OnStreamChunk replaces every [host.ToolCall] whose name is a discovered tool with
// a [host.ToolResult] of the same ID, carrying the rendered output or the error
// text (cut at [WithMaxResultBytes], when given). Calls in one chunk run
// concurrently, approval included; the hook returns when all have
// answered (with [TaskOptions.DetachAfter], a call whose task runs longer
// is answered by a block naming the task, which goes on). Other blocks pass through untouched, without an actor hop or an
// allocation. It always returns nil.
func (p *McpPlugin) OnStreamChunk(ctx context.Context, chunk *host.Chunk) error {
	if chunk == nil {
		return nil
	}
	s := p.snapshot()
	type pending struct {
		i int
		f *Future
	}
	var buf [4]pending // most chunks call one tool; no allocation for up to four
	calls := buf[:0]
	var reads *resourcetools.Calls // WithResourceTools's (resourcetools.go); nil until one
	for i, b := range chunk.Blocks {
		if tc, ok := b.(host.ToolCall); ok && s.tool(tc.Name) != nil {
			calls = append(calls, pending{i, p.StartToolCall(ctx, tc)})
		} else if ok && p.resourceTools.answers(tc.Name) {
			reads = reads.Start(ctx, p.ResourceToolResult, chunk.Blocks, i, tc)
		}
	}
	for _, c := range calls {
		chunk.Blocks[c.i] = c.f.ToolResult(ctx)
	}
	reads.Wait()
	return nil
}

// StartToolCall starts the call of a model's ToolCall block as
// [McpPlugin.OnStreamChunk] does, and returns at once: call.Name is the
// server's tool, call.Arguments must be a JSON object, empty or null (else
// [ErrValidation]), and call.ID is the CallID of approval and progress.
// [Future.ToolResult] gives the block that replaces it. It is the seam for
// facades that route blocks to plugins (a toolbox).
func (p *McpPlugin) StartToolCall(ctx context.Context, call host.ToolCall) *Future {
	p.snapshot()
	raw, err := objectText(call.Arguments)
	if err != nil {
		return failedCall(call.ID, call.Name, p.callError(KindValidation, call.Name, err))
	}
	return p.call(ctx, call.ID, call.Name, raw)
}

// CallTool starts a call of the tool name with args and returns at once.
// args is anything that marshals to a JSON object; json.RawMessage and []byte
// are taken as JSON text; nil, empty or JSON null mean no arguments. Other
// arguments fail with [ErrValidation] (schema [ArgumentsSchema]) and reach no
// server. ctx's deadline bounds the call on the server; ctx's end cancels it.
// With [WithApproval] the call is decided on before it is sent, and the
// Future fails with [ErrDenied] when it is refused.
func (p *McpPlugin) CallTool(ctx context.Context, name string, args any) *Future {
	p.snapshot()
	raw, err := normalizeArgs(args)
	if err != nil {
		return failedCall("", name, p.callError(KindValidation, name, err))
	}
	return p.call(ctx, "", name, raw)
}

// Arguments.

// normalizeArgs turns CallTool's args into a JSON object's text, or nil for
// no arguments.
func normalizeArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return objectText(a)
	case []byte:
		return objectText(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("arguments do not marshal to JSON: %w", err)
		}
		return objectText(b)
	}
}

var errNotObject = errors.New("arguments must be a JSON object or null")

// objectText accepts a JSON object, or empty/null for no arguments. Only
// JSON's own whitespace is trimmed: text that JSON would reject (a leading
// form feed or no-break space, say) is rejected here too.
func objectText(b []byte) (json.RawMessage, error) {
	t := bytes.Trim(b, " \t\r\n")
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if !json.Valid(t) {
		return nil, fmt.Errorf("%w: invalid JSON", errNotObject)
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("%w: got %s", errNotObject, jsonKind(t[0]))
	}
	return json.RawMessage(t), nil
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// Approval, then sending.

// call starts a call of tool name; callID is the model's ToolCall ID, if
// the call comes from one. With an approval function the call is decided
// on its own goroutine and sent from there.
func (p *McpPlugin) call(ctx context.Context, callID, name string, args json.RawMessage) *Future {
	if p.closed.Load() {
		return failedCall(callID, name, p.callError(KindInternal, name, errors.New("plugin is closed")))
	}
	f := &Future{p: p, id: p.nextID.Add(1), name: name, callID: callID, callCtx: ctx, started: time.Now()}
	if p.detach != nil && callID != "" {
		p.detach.prepare(f) // a hook call that may return while its task runs on (detach.go)
	}
	if p.approve != nil {
		p.approvalsMu.Lock()
		if p.closed.Load() {
			p.approvalsMu.Unlock()
			return failedCall(callID, name, p.callError(KindInternal, name, errors.New("plugin is closed")))
		}
		p.approvals.Add(1) // Close waits for it
		p.approvalsMu.Unlock()
		f.gate = &approvalGate{}
		f.ch = make(chan any, 1)
		p.approving.Add(1) // in flight while decided on (InFlight)
		go p.approveAndSend(ctx, f, args)
		return f
	}
	if err := p.send(ctx, f, args); err != nil {
		return failedCall(callID, name, err)
	}
	return f
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
// it, or answers f with the refusal. It runs on a goroutine of its own,
// which Close waits for: the function's ctx ends with the caller's or
// when the plugin closes.
func (p *McpPlugin) approveAndSend(ctx context.Context, f *Future, args json.RawMessage) {
	defer p.approvals.Done()
	req := ApprovalRequest{Server: p.server, Tool: f.name, CallID: f.callID, Arguments: args}
	actx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(p.closing, cancel)
	err := p.decide(actx, req)
	stop()
	cancel()
	g := f.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.abandoned || ctx.Err() != nil || err != nil || p.closed.Load() {
		p.approving.Add(-1) // decided, never sent: no longer under way
	}
	if g.abandoned {
		return // Await has returned the caller's error already
	}
	switch {
	case ctx.Err() != nil:
		f.ch <- p.callError(KindInternal, f.name, p.callerLeft(ctx.Err()))
	case p.closed.Load():
		f.ch <- p.callError(KindInternal, f.name, errors.New("plugin is closed"))
	case err != nil:
		f.ch <- p.callError(KindDenied, f.name, err)
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

// send registers f for its reply and sends its call through the link.
func (p *McpPlugin) send(ctx context.Context, f *Future, args json.RawMessage) error {
	name := f.name
	if f.task != nil {
		ctx = context.WithoutCancel(ctx) // a detachable call outlives its caller's ctx (detach.go)
	}
	msg := &messages.CallTool{ID: f.id, Name: name, Arguments: args,
		Progress: p.onProgress != nil, IdleTimeout: p.idleTimeout}
	if f.task != nil || f.resume != nil {
		x := tasks.Set(msg)
		x.Want = f.task != nil // detach.go
		x.Resume = f.resume
	}
	if p.tel != nil {
		msg.TraceContext = instrument.Inject(ctx)
	}
	if d, ok := ctx.Deadline(); ok {
		msg.Deadline, msg.Limit = d, "the caller's deadline"
	} else if p.callTimeout > 0 {
		msg.Deadline, msg.Limit = time.Now().Add(p.callTimeout), p.callTimeoutLimit
	}
	if p.toolTimeout > 0 {
		if d := time.Now().Add(p.toolTimeout); msg.Deadline.IsZero() || d.Before(msg.Deadline) {
			msg.Deadline, msg.Limit = d, p.toolTimeoutLimit
		}
	}
	if p.taskTimeout > 0 {
		d, ok := ctx.Deadline()
		p.taskDeadline(msg, d, ok)
		if x := tasks.CallOf(msg); x != nil && x.Resume != nil { // a task resumed is bounded as a task from the start
			msg.Deadline, msg.Limit = x.Deadline, x.Limit
		}
	}
	if ce := p.logger.Check(zap.DebugLevel, "mcp tools/call"); ce != nil {
		ce.Write(append(tracelog.Fields(ctx), zap.String("tool", name), zap.Uint64("id", f.id), zap.ByteString("arguments", args))...)
	}
	var approving *atomic.Int64
	if f.gate != nil {
		approving = &p.approving // counted by the router from now on (InFlight)
	}
	p.router.expect(f, approving)
	if err := p.conn.Send(ctx, msg); err != nil {
		p.router.forget(f.id)
		return p.callError(KindInternal, name, err)
	}
	return nil
}

// Awaiting the reply.

// Future is a tool call in progress, returned by [McpPlugin.CallTool].
type Future struct {
	p       *McpPlugin
	id      uint64
	name    string
	callID  string // the model's host.ToolCall ID, if the call comes from one
	callCtx context.Context
	ch      chan any            // the reply, from the plugin's callRouter
	gate    *approvalGate       // with WithApproval: whether the call was sent
	task    *futureTask         // a hook call that may detach (detach.go); nil otherwise
	resume  *messages.TaskState // the task a ResumeTask future resumes
	started time.Time           // when CallTool was called; zero for other futures

	mu   sync.Mutex
	done bool
	res  *mcp.CallToolResult
	err  error
}

// failedCall is the future of a call of tool name (callID: the model's
// ToolCall ID, if any) that failed before anything was sent; its
// [Future.ToolResult] names the call.
func failedCall(callID, name string, err error) *Future {
	return &Future{done: true, err: err, callID: callID, name: name}
}

// FailedFuture returns a future whose Await returns err at once, for
// facades that route calls and find nowhere to send one (a toolbox asked
// for a tool no server has).
func FailedFuture(err error) *Future { return &Future{done: true, err: err} }

// Await waits for the call's result. It returns when the server answers,
// when ctx (or the ctx given to CallTool) is done — then the call is
// cancelled on the server and the error wraps ctx's error — or when the
// connection fails. Every error is an [*Error], which says why beside its
// kind: a deadline that ended the call (whichever limit: the caller's,
// [WithDefaultCallTimeout], [WithCallTimeoutCap], [WithIdleTimeout]) matches
// context.DeadlineExceeded and is named in the message; a cancellation
// context.Canceled; a session that ended under the call
// [ErrConnectionLost]; a server's JSON-RPC error is a *jsonrpc.Error to
// errors.As. A call that never reached the server (its session was already
// ending) waits for the reconnection instead of failing. Await may be
// called again; it returns the same outcome.
func (f *Future) Await(ctx context.Context) (*mcp.CallToolResult, error) {
	res, err, _ := f.await(ctx, nil)
	return res, err
}

// await is Await that also returns, detached and with nothing settled,
// when stop is closed first (detach.go); a nil stop never is.
func (f *Future) await(ctx context.Context, stop <-chan struct{}) (_ *mcp.CallToolResult, _ error, detached bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return f.res, f.err, false
	}
	var msg any
	select {
	case <-stop:
		select {
		case msg = <-f.ch: // answered meanwhile: the answer wins
			f.received()
			f.res, f.err = f.p.decodeReply(f.name, msg)
		default:
			return nil, nil, true
		}
	case msg = <-f.ch:
		f.received()
		f.res, f.err = f.p.decodeReply(f.name, msg)
		if f.err != nil && f.callerDeadlinePassed(f.err) {
			f.err = f.awaitCallerDeadline(ctx)
		}
	case <-ctx.Done():
		f.err = f.giveUp(ctx.Err())
	case <-f.callCtx.Done():
		f.err = f.giveUp(f.callCtx.Err())
	case <-f.p.done:
		select {
		case msg = <-f.ch:
			f.received()
			f.res, f.err = f.p.decodeReply(f.name, msg)
		default:
			f.p.router.forget(f.id)
			f.err = f.p.callError(KindInternal, f.name, errors.New("plugin closed before the call was answered"))
		}
	}
	f.done = true
	f.logEnd()
	return f.res, f.err, false
}

// received puts f's channel back in replyChans once its reply is taken:
// nothing sends on it again. A channel approval made (approveAndSend may
// send on it) is not the router's to give back. f.mu is held.
func (f *Future) received() {
	if f.gate == nil {
		replyChans.Put(f.ch)
	}
	f.ch = nil
}

// logEnd writes, at debug level, how the call ended: its tool, duration,
// whether it failed or the result is an error, and the result's size (the
// bytes of its text blocks, and its blocks).
func (f *Future) logEnd() {
	if f.p == nil || f.started.IsZero() {
		return
	}
	ce := f.p.logger.Check(zap.DebugLevel, "mcp tools/call ended")
	if ce == nil {
		return
	}
	fields := append(tracelog.Fields(f.callCtx), zap.String("server", f.p.server), zap.String("tool", f.name),
		zap.Uint64("id", f.id), zap.Duration("duration", time.Since(f.started)))
	switch {
	case f.err != nil:
		fields = append(fields, zap.Bool("failed", true), zap.String("error", f.err.Error()))
	case f.res != nil:
		size := 0
		for _, c := range f.res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				size += len(t.Text)
			}
		}
		fields = append(fields, zap.Bool("isError", f.res.IsError), zap.Int("blocks", len(f.res.Content)), zap.Int("text_bytes", size))
	}
	ce.Write(fields...)
}

// callerDeadlinePassed reports whether err, the call's failure, is a
// deadline while the deadline of the ctx the call was made with has passed:
// the call ended for that deadline, by the connection's clock, which may
// run a moment ahead of ctx's own timer.
func (f *Future) callerDeadlinePassed(err error) bool {
	if !errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	d, ok := f.callCtx.Deadline()
	return ok && !time.Now().Before(d)
}

// awaitCallerDeadline waits for the call's ctx to report the deadline that
// ended the call (a moment at most: it has passed) and returns the error
// of a caller whose deadline passed, so that ctx.Err() is set when Await
// returns and a caller that checks it sees ctx's own error, never a
// result text. One deadline, one clock: ctx's.
func (f *Future) awaitCallerDeadline(ctx context.Context) error {
	select {
	case <-f.callCtx.Done():
		return f.p.callError(KindInternal, f.name, f.p.callerLeft(f.callCtx.Err()))
	case <-ctx.Done():
		return f.p.callError(KindInternal, f.name, f.p.callerLeft(ctx.Err()))
	}
}

// callerLeft is why a call ended for its caller's ctx, wrapping ctx's
// error: "the caller's deadline passed: context deadline exceeded", "caller
// gave up: context canceled".
func callerLeft(cause error) error {
	if errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("the caller's deadline passed: %w", cause)
	}
	return fmt.Errorf("caller gave up: %w", cause)
}

// callerLeft is why a call ended for its caller's ctx (the package's
// callerLeft), said after what happened to the server when it was not
// ready meanwhile: "the server is unreachable, reconnecting (6 tries so
// far; last: connect: ...): the caller's deadline passed: context deadline
// exceeded". The server's last failure is told, not wrapped: the error
// matches ctx's error, as before.
func (p *McpPlugin) callerLeft(cause error) error {
	err := callerLeft(cause)
	st := p.Status()
	var last *Error
	if st.State == actors.Ready || st.State == actors.Closed || !errors.As(st.LastError, &last) {
		return err
	}
	label := situationOf(last)
	what := "the server is down"
	switch label {
	case "server unreachable":
		what = "the server is unreachable"
	case "server exited":
		what = "the server exited"
	case "protocol refused":
		what = "the server refused this protocol"
	default:
		label = "server down"
	}
	switch st.State {
	case actors.Reconnecting:
		what += ", reconnecting"
	case actors.Connecting:
		what += ", connecting"
	}
	tries := "tries"
	if st.Restarts == 1 {
		tries = "try"
	}
	lastText := last.Error()
	if last.Err != nil {
		lastText = last.Err.Error()
	}
	return &serverDownError{label: label, err: err,
		words: fmt.Sprintf("%s (%d %s so far; last: %s)", what, st.Restarts, tries, lastText)}
}

// giveUp cancels the call on the connection and forgets its reply. A call
// still being decided on is never sent.
func (f *Future) giveUp(cause error) error {
	if f.gate == nil || f.gate.abandon() {
		f.p.conn.Cancel(f.id)
		f.p.router.forget(f.id)
	}
	return f.p.callError(KindInternal, f.name, f.p.callerLeft(cause))
}

// decodeReply maps a connection actor's reply to a result or an [*Error].
func (p *McpPlugin) decodeReply(tool string, msg any) (*mcp.CallToolResult, error) {
	switch m := msg.(type) {
	case *messages.CallToolReply:
		if m.Failure != nil {
			return nil, p.failure(m.Failure)
		}
		return m.Result, nil
	case *Error: // decided on this side: denied, abandoned, or not sendable
		return nil, m
	case *actor.DeadLetterResponse:
		return nil, p.callError(KindInternal, tool, errors.New("the connection actor is gone"))
	default:
		return nil, p.callError(KindInternal, tool, fmt.Errorf("%w: %T", errUnexpectedReply, msg))
	}
}

// Rendering the result.

// ToolResult awaits the call and returns the [host.ToolResult] block that
// replaces the call in a stream: the rendered result ([RenderResult]) or
// the error text with IsError, cut at [WithMaxResultBytes]. ToolCallID and
// Name are those of the call: the ToolCall's for [McpPlugin.StartToolCall],
// empty and the tool's name for CallTool.
func (f *Future) ToolResult(ctx context.Context) host.ToolResult {
	res, err, detached := f.await(ctx, f.task.detachNow())
	if detached {
		return f.detached() // the task runs on (detach.go)
	}
	out := host.ToolResult{ToolCallID: f.callID, Name: f.name}
	limit := 0
	if f.p != nil {
		limit = f.p.maxResultBytes
	}
	if err != nil {
		out.Content, out.IsError = capText(err.Error(), limit), true
	} else {
		out.Content, out.IsError = capText(renderResult(res, f.p.linkHint()), limit), res != nil && res.IsError
		if f.p != nil {
			f.p.handToolUI(ctx, out) // WithToolUIHandler (apps.go)
		}
	}
	return out
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
	return fmt.Sprintf("\n[… %s more cut]", resourcetools.SizeOf(int64(cut)))
}
