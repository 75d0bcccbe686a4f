package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/messages"
)

// Detached hook calls (TaskOptions.DetachAfter). A hook call of a plugin
// with DetachAfter asks the connection for its task's id
// (tasks.Call.Want, in messages.CallTool.Ext); once the server has answered with a task
// (messages.CallTask) and the task has run DetachAfter, the hook stops
// waiting and puts a ToolResult naming the task in place of the call. The
// call goes on: its ctx no longer ends it once sent (the hook's ctx still
// does while the hook waits), and its reply waits in its Future until
// [McpPlugin.DetachedResult] takes it.

// detacher is a plugin's detached calls, by task id.
type detacher struct {
	after time.Duration
	mu    sync.Mutex
	calls map[string]*detachedCall
}

// detachedCall is a hook call that returned while its task ran on.
type detachedCall struct {
	f      *Future
	info   DetachedTask
	taking sync.Mutex // one DetachedResult at a time
}

func newDetacher(after time.Duration) *detacher {
	if after <= 0 {
		return nil
	}
	return &detacher{after: after, calls: map[string]*detachedCall{}}
}

// futureTask is what a detachable call learns of its task.
type futureTask struct {
	after   time.Duration
	now     chan struct{} // closed DetachAfter after the task started
	once    sync.Once
	mu      sync.Mutex
	id      string
	started time.Time
}

// prepare makes f a detachable call. It is sent without its caller's
// ctx's end or deadline (send), which would end the task after the hook
// has returned; the hook's wait still gives the call up when the caller's
// ctx ends before the call detaches, and the task's own timeout bounds it
// ([TaskOptions.Timeout]). An approval function still sees the caller's
// ctx.
func (d *detacher) prepare(f *Future) {
	f.task = &futureTask{after: d.after, now: make(chan struct{})}
	f.callCtx = context.WithoutCancel(f.callCtx)
}

// detachNow is closed when the call may detach; nil (never) for a call
// that may not.
func (t *futureTask) detachNow() <-chan struct{} {
	if t == nil {
		return nil
	}
	return t.now
}

// start notes the task's id, once, and closes now DetachAfter later.
func (t *futureTask) start(id string) {
	t.once.Do(func() {
		t.mu.Lock()
		t.id, t.started = id, time.Now()
		t.mu.Unlock()
		time.AfterFunc(t.after, func() { close(t.now) })
	})
}

// task hands a call's task id to its Future, if it still waits.
func (r *callRouter) task(m *messages.CallTask) {
	r.mu.Lock()
	c, ok := r.pending[m.ID]
	r.mu.Unlock()
	if ok && c.f != nil && c.f.task != nil {
		c.f.task.start(m.TaskID)
	}
}

// detached registers f, whose task runs on, and returns the block that
// says so in place of its call.
func (f *Future) detached() host.ToolResult {
	t := f.task
	t.mu.Lock()
	info := DetachedTask{TaskID: t.id, Tool: f.name, CallID: f.callID, Started: t.started, Detached: time.Now()}
	t.mu.Unlock()
	d := f.p.detach
	d.mu.Lock()
	d.calls[info.TaskID] = &detachedCall{f: f, info: info}
	d.mu.Unlock()
	return host.ToolResult{ToolCallID: f.callID, Name: f.name, Content: capText(detachedText(info, f.p.server), f.p.maxResultBytes)}
}

// detachedText is what the model reads of a detached call.
func detachedText(info DetachedTask, server string) string {
	return fmt.Sprintf("The tool %q is still running as task %q on %s: it has run for %s and goes on. "+
		"Its result is not here yet; ask for it later with the task id.", info.Tool, info.TaskID, server, ranFor(info.Started))
}

// ranFor is how long since start, rounded for a reader.
func ranFor(start time.Time) time.Duration {
	d := time.Since(start)
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// DetachedTask is a hook call that returned while its task ran on
// ([TaskOptions.DetachAfter]), its result not taken yet.
type DetachedTask struct {
	// TaskID is the server's id of the task.
	TaskID string
	// Tool is the server's tool; CallID the model's ToolCall ID.
	Tool, CallID string
	// Started is when the server answered the call with the task;
	// Detached when the hook returned.
	Started, Detached time.Time
}

// DetachedTasks lists the plugin's detached calls whose results
// [McpPlugin.DetachedResult] has not taken, oldest first; none without
// [TaskOptions.DetachAfter].
func (p *McpPlugin) DetachedTasks() []DetachedTask {
	if p.detach == nil {
		return nil
	}
	p.detach.mu.Lock()
	out := make([]DetachedTask, 0, len(p.detach.calls))
	for _, c := range p.detach.calls {
		out = append(out, c.info)
	}
	p.detach.mu.Unlock()
	slices.SortFunc(out, func(a, b DetachedTask) int { return a.Started.Compare(b.Started) })
	return out
}

// errNoDetachedTask is the cause of a DetachedResult for a task id no
// detached call has.
var errNoDetachedTask = errors.New("no detached call has this task")

// take waits, until ctx ends, for the outcome of the detached call of
// taskID, and forgets the call once it has one (done).
func (p *McpPlugin) take(ctx context.Context, taskID string) (c *detachedCall, res *mcp.CallToolResult, done bool, err error) {
	if p.detach != nil {
		p.detach.mu.Lock()
		c = p.detach.calls[taskID]
		p.detach.mu.Unlock()
	}
	if c == nil {
		return nil, nil, false, p.callError(KindValidation, "", fmt.Errorf("%w: %q (known: %s)", errNoDetachedTask, taskID, p.detachedIDs()))
	}
	c.taking.Lock()
	defer c.taking.Unlock()
	res, err, waiting := c.f.await(context.Background(), ctx.Done())
	if waiting {
		return c, nil, false, nil
	}
	p.detach.mu.Lock()
	delete(p.detach.calls, taskID)
	p.detach.mu.Unlock()
	return c, res, true, err
}

// DetachedResult waits, until ctx ends, for the result of the detached
// call of task taskID ([McpPlugin.DetachedTasks]) and returns it as the
// hook would have (the rendered result or the error text, cut at
// [WithMaxResultBytes], under the call's ToolCallID and tool name), done
// true; the call is then forgotten. When ctx ends first it returns a block
// saying the task is still running and for how long, done false: the task
// is not cancelled, and may be asked for again. A task id no detached call
// has gives an IsError block, done false.
func (p *McpPlugin) DetachedResult(ctx context.Context, taskID string) (host.ToolResult, bool) {
	c, res, done, err := p.take(ctx, taskID)
	if c == nil {
		return host.ToolResult{Content: capText(err.Error(), p.maxResultBytes), IsError: true}, false
	}
	f := c.f
	out := host.ToolResult{ToolCallID: f.callID, Name: f.name}
	switch {
	case !done:
		out.Content = capText(fmt.Sprintf("The tool %q is still running as task %q on %s: it has run for %s.",
			f.name, taskID, p.server, ranFor(c.info.Started)), p.maxResultBytes)
	case err != nil:
		out.Content, out.IsError = capText(err.Error(), p.maxResultBytes), true
	default:
		out.Content, out.IsError = capText(RenderResult(res), p.maxResultBytes), res != nil && res.IsError
	}
	return out, done
}

// DetachedCallResult is [McpPlugin.DetachedResult] as the call's result
// and error, as [Future.Await] gives them (done true); done false and no
// error when ctx ends first. A task id no detached call has is an error of
// kind [KindValidation].
func (p *McpPlugin) DetachedCallResult(ctx context.Context, taskID string) (res *mcp.CallToolResult, done bool, err error) {
	_, res, done, err = p.take(ctx, taskID)
	return res, done, err
}

// detachedIDs lists the detached calls' task ids, for an error.
func (p *McpPlugin) detachedIDs() string {
	var ids []string
	for _, t := range p.DetachedTasks() {
		ids = append(ids, fmt.Sprintf("%q", t.TaskID))
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
