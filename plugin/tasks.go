package plugin

import (
	"time"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/messages"
)

// TaskOptions are how [WithTasks] drives the tasks a server answers tool
// calls with. The zero value uses the default of each field.
type TaskOptions struct {
	// DefaultPollInterval is the wait between two tasks/get when the
	// server suggests none; zero means [DefaultTaskPollInterval].
	DefaultPollInterval time.Duration
	// MinPollInterval and MaxPollInterval bound the server's suggested
	// pollIntervalMilliseconds; zero means [MinTaskPollInterval] and
	// [MaxTaskPollInterval]. Each wait varies by up to 10% either way.
	MinPollInterval, MaxPollInterval time.Duration
	// Timeout bounds a task's call, from its start, when the call's ctx
	// has no deadline: it replaces [WithDefaultCallTimeout] once the
	// server has answered with a task. Zero means [DefaultTaskTimeout];
	// [WithCallTimeoutCap] still caps it, and a ctx deadline replaces it.
	Timeout time.Duration
	// DetachAfter, if positive, lets a hook call (OnStreamChunk, a
	// toolbox's) whose task has run this long return a ToolResult naming
	// the task and how long it has run, while the task goes on; its result
	// is asked for later ([McpPlugin.DetachedResult], the tool of
	// toolbox.TaskResultTool). Zero: the hook waits for the end.
	DetachAfter time.Duration
}

// The defaults of [TaskOptions].
const (
	DefaultTaskPollInterval = tasks.DefaultInterval     // 1s
	MinTaskPollInterval     = tasks.MinInterval         // 50ms
	MaxTaskPollInterval     = tasks.MaxInterval         // 30s
	DefaultTaskTimeout      = actors.DefaultTaskTimeout // 24h
)

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
// Only this module's stdio and Streamable HTTP transports declare the
// extension: with another transport nothing changes. The task is not yet
// resumed on a new connection: a connection lost under a task fails its
// call with [ErrConnectionLost], and the tool is not called again.
func WithTasks(o TaskOptions) Option {
	return newOption("WithTasks", connection, func(opts *options) {
		opts.Supervisor.Connection.Tasks = &actors.TaskSettings{
			DefaultInterval: o.DefaultPollInterval,
			MinInterval:     o.MinPollInterval,
			MaxInterval:     o.MaxPollInterval,
		}
		opts.detach = newDetacher(o.DetachAfter) // nil unless DetachAfter > 0 (detach.go)
		opts.taskTimeout = o.Timeout
		if opts.taskTimeout <= 0 {
			opts.taskTimeout = DefaultTaskTimeout
		}
	})
}

// ErrTaskLost: the server no longer knows the task that answered the call
// (tasks/get answered "invalid params"); the tool is not called again. Of
// kind Internal, and distinct from a task that failed, whose error is the
// server's *jsonrpc.Error.
var ErrTaskLost = messages.ErrTaskLost

// taskDeadline sets msg's TaskDeadline: the caller's deadline when its
// ctx has one, else the task timeout, capped by the tool timeout.
func (p *McpPlugin) taskDeadline(msg *messages.CallTool, ctxDeadline time.Time, hasDeadline bool) {
	if p.taskTimeout <= 0 {
		return
	}
	now := time.Now()
	if hasDeadline {
		msg.TaskDeadline, msg.TaskLimit = ctxDeadline, "the caller's deadline"
	} else {
		msg.TaskDeadline, msg.TaskLimit = now.Add(p.taskTimeout), "the task timeout of "+p.taskTimeout.String()+" (WithTasks)"
	}
	if p.toolTimeout > 0 {
		if d := now.Add(p.toolTimeout); d.Before(msg.TaskDeadline) {
			msg.TaskDeadline, msg.TaskLimit = d, p.toolTimeoutLimit
		}
	}
}
