package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/messages"
)

// TaskOptions are how [WithTasks] drives the tasks a server answers tool
// calls with. The zero value uses the default of each field.
type TaskOptions struct {
	// DefaultPollInterval is the wait between two tasks/get when the
	// server suggests none; zero means 1 s.
	DefaultPollInterval time.Duration
	// MinPollInterval and MaxPollInterval bound the server's suggested
	// pollIntervalMs; zero means 50 ms and 30 s. A task's first wait is lengthened by up to
	// 10% (jitter); each later one is the interval exactly.
	MinPollInterval, MaxPollInterval time.Duration
	// Timeout bounds a task's call, from its start, when the call's ctx
	// has no deadline: it replaces [WithDefaultCallTimeout] once the
	// server has answered with a task. Zero means 24 h;
	// [WithCallTimeoutCap] still caps it, and a ctx deadline replaces it.
	Timeout time.Duration
	// DetachAfter, if positive, lets a hook call (OnStreamChunk, a
	// toolbox's) whose task has run this long return a ToolResult naming
	// the task and how long it has run, while the task goes on; its result
	// is asked for later ([McpPlugin.DetachedResult], the tool of
	// toolbox.TaskResultTool). Zero: the hook waits for the end.
	DetachAfter time.Duration
	// Store, if set, keeps every pending task over Streamable HTTP (its id,
	// tool and latest requestState), written before the call's first poll
	// and deleted when the task ends, so that a program that restarts
	// lists them ([McpPlugin.PendingTasks]) and waits on them again
	// ([McpPlugin.ResumeTask]). [DirTaskStore] keeps them on local disk.
	// Nil keeps nothing: a task then lives as long as its call.
	Store TaskStore
}

// TaskStore keeps the pending tasks of tool calls; one store may be
// shared by many plugins and servers, whose records name their server.
// It is internal/core/tasks.Store under this package's name.
type TaskStore = tasks.Store

// TaskRecord is a pending task as a [TaskStore] keeps it: its server (the
// transport's label), its tool and its latest state.
type TaskRecord = tasks.Record

// DirTaskStore is the [TaskStore] on local disk: one file per task in its
// Dir, replaced whole (written, synced, renamed) on every answer.
type DirTaskStore = tasks.DirStore

// WithTasks opts in to the tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks), which is otherwise not declared, so
// that a server's task answer is [ErrNotSupported] as the plugin's
// contract says. With it, every request declares the extension in its
// client capabilities, and a tools/call the server answers with a task is
// driven to its end on the same connection: tasks/get at the server's
// interval (within o's bounds) echoing the latest requestState, until the
// task completes (its result is the call's, rendered like any other),
// fails (the call's error, errors.As finds the server's *jsonrpc.Error),
// or is cancelled. A task that asks for input is answered through
// tasks/update with the handlers of [WithInputRequired]; without one it is
// cancelled and the call fails with [ErrNotSupported]. Status messages
// reach [WithProgress]'s callback and count as progress for
// [WithIdleTimeout]. The call's ctx ending, its timeout or its idle
// timeout sends tasks/cancel once and ends the call with the usual error;
// a task the server no longer knows fails with [ErrTaskLost]. See
// docs/tasks.md.
//
// Over Streamable HTTP a task outlives its connection: when the
// connection is lost while the task runs (the server restarted, the
// network cut), the supervisor's next connection resumes polling the same
// task from its latest requestState, and the tool is not called again.
// Over stdio a child that dies takes its tasks with it: the call fails at
// once with [ErrConnectionLost]. With [TaskOptions.Store] a task outlives
// the process too.
//
// Only this module's stdio and Streamable HTTP transports declare the
// extension: with another transport nothing changes.
//
// In a cluster, the kind's WithTasks (grid.WithPluginOptions) drives the
// tasks on the member hosting a grain; a facade's (grid.Connect) sets its
// calls' task timeout, DetachAfter and a Store for PendingTasks and
// ResumeTask. A Store every member's kind shares lets a grain's tasks
// outlive its member (docs/tasks.md, "In a grid").
func WithTasks(o TaskOptions) Option {
	return newOption("WithTasks", common, func(opts *options) {
		ext := tasks.NewExtension(tasks.Settings{
			DefaultInterval: o.DefaultPollInterval,
			MinInterval:     o.MinPollInterval,
			MaxInterval:     o.MaxPollInterval,
			Store:           o.Store,
		})
		// The last WithTasks is the one: it replaces an earlier one's.
		exts := slices.DeleteFunc(slices.Clone(opts.Supervisor.Connection.Extensions), func(x extension.Extension) bool {
			_, ok := x.(*tasks.Ext)
			return ok
		})
		opts.Supervisor.Connection.Extensions = append(exts, ext)
		opts.detach = newDetacher(o.DetachAfter) // nil unless DetachAfter > 0 (detach.go)
		opts.taskStore = o.Store
		opts.taskTimeout = o.Timeout
		if opts.taskTimeout <= 0 {
			opts.taskTimeout = tasks.DefaultTimeout
		}
	})
}

// taskDeadline sets the deadline of msg's task (tasks.Call.Deadline):
// the caller's deadline when its ctx has one, else the task timeout,
// capped by the tool timeout.
func (p *McpPlugin) taskDeadline(msg *messages.CallTool, ctxDeadline time.Time, hasDeadline bool) {
	if p.taskTimeout <= 0 {
		return
	}
	x := tasks.Set(msg)
	now := time.Now()
	if hasDeadline {
		x.Deadline, x.Limit = ctxDeadline, "the caller's deadline"
	} else {
		x.Deadline, x.Limit = now.Add(p.taskTimeout), "the task timeout of "+p.taskTimeout.String()+" (WithTasks)"
	}
	if p.toolTimeout > 0 {
		if d := now.Add(p.toolTimeout); d.Before(x.Deadline) {
			x.Deadline, x.Limit = d, p.toolTimeoutLimit
		}
	}
}

// PendingTasks lists the tasks of this plugin's server that its
// [TaskOptions.Store] keeps: tasks whose calls have not ended, in this
// process or in one before it. Nil without a store.
func (p *McpPlugin) PendingTasks(ctx context.Context) ([]TaskRecord, error) {
	if p.taskStore == nil {
		return nil, nil
	}
	all, err := p.taskStore.List(ctx)
	if err != nil {
		return nil, p.callError(KindIO, "", fmt.Errorf("listing the task store: %w", err))
	}
	var out []TaskRecord
	for _, r := range all {
		if r.Server == p.label {
			out = append(out, r)
		}
	}
	return out, nil
}

// errNoTask: ResumeTask was given an id its store does not keep.
var errNoTask = errors.New("no pending task of that id in the task store")

// ResumeTask waits again on the pending task id of this plugin's server,
// as its [TaskOptions.Store] keeps it (see [McpPlugin.PendingTasks]): the
// connection polls the task from its latest requestState, without calling
// the tool again, and the future gives its result as [McpPlugin.CallTool]'s
// would. The call is bounded as a task's ([TaskOptions.Timeout], or ctx's
// deadline); ctx ending cancels the task on the server. A server that no
// longer knows the task fails it with [ErrTaskLost]. An id the store does
// not keep fails at once, of kind [KindInternal].
func (p *McpPlugin) ResumeTask(ctx context.Context, id string) *Future {
	if p.taskStore == nil || p.taskTimeout <= 0 {
		return failedCall("", "", p.callError(KindNotSupported, "", errors.New("ResumeTask needs WithTasks with a TaskOptions.Store")))
	}
	recs, err := p.PendingTasks(ctx)
	if err != nil {
		return failedCall("", "", err)
	}
	for _, r := range recs {
		if r.Task.ID != id {
			continue
		}
		if p.closed.Load() {
			return failedCall("", r.Tool, p.callError(KindInternal, r.Tool, errors.New("plugin is closed")))
		}
		st := r.Task
		f := &Future{p: p, id: p.nextID.Add(1), name: r.Tool, callCtx: ctx, resume: &st}
		if err := p.send(ctx, f, nil); err != nil {
			return failedCall("", r.Tool, err)
		}
		return f
	}
	return failedCall("", "", p.callError(KindInternal, "", fmt.Errorf("task %s: %w", id, errNoTask)))
}
