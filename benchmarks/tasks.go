package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// ScenarioTask is a tool answered with a task (SEP-2663) by the task
// server of internal/fixture/taskserver over stdio, driven by a plugin
// with plugin.WithTasks: how soon the caller has a task's result once the
// task is done on the server, and what each poll costs the client beside
// a quick call.
const ScenarioTask = "task (SEP-2663), stdio"

// Subject names of [ScenarioTask].
const (
	// SubjectTaskCompletion is the time from the task's completion on the
	// server (the file it waits for created) to the caller's result, the
	// server suggesting polls every [TaskCompletionInterval].
	SubjectTaskCompletion = "task completion to result, 100 ms polls"
	// SubjectTaskNotified is the time from a task's completion on a
	// server that notifies it (notifications/tasks/status) to the
	// caller's result, the server suggesting polls every
	// [TaskCompletionInterval]: the notification's delivery, not a poll.
	SubjectTaskNotified = "task completion to result, notified, 100 ms polls"
	// SubjectTaskListened is [SubjectTaskNotified] on a server that speaks
	// the extension as accepted (taskserver.FlagAccepted): the client asks
	// for the task's notifications/tasks on a subscriptions/listen stream,
	// the only place such a server sends them.
	SubjectTaskListened = "task completion to result, notified on a listen stream (accepted), 100 ms polls"
	// SubjectTaskPoll is one tasks/get of a task polled
	// [TaskPollsPerTask] times every [TaskPollInterval]: its CPU and
	// allocations are the client's per poll; its latency is the task's
	// wall time per poll, the interval included.
	SubjectTaskPoll = "task poll (tasks/get)"
	// SubjectTaskQuick is a quick tool's hook call on the same plugin and
	// server, which declares the extension and gets no task.
	SubjectTaskQuick = "quick call, same plugin"
)

// The task scenario's settings.
const (
	// TaskCompletionInterval is the poll interval the server suggests in
	// the completion measurement; the caller's result is due at most one
	// interval plus 10% after the task completes.
	TaskCompletionInterval = 100 * time.Millisecond
	// TaskPollInterval is the interval of the poll measurement: short, so
	// that many polls take little time (the plugin's lower bound set to
	// 1 ms for it).
	TaskPollInterval = 2 * time.Millisecond
	// TaskPollsPerTask are the polls of each task of the poll measurement.
	TaskPollsPerTask = 200
)

// TaskQuickCall is the task server's "quick" tool: answered at once.
var TaskQuickCall = Call{Tool: "quick", Args: json.RawMessage(`{}`), Want: "quick"}

func (r *runner) tasks(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "mcpconnector-bench-tasks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	exe, args, err := taskserver.CommandLine(dir)
	if err != nil {
		return err
	}
	progressed := make(chan struct{}, 1)
	p, err := plugin.Connect(ctx, transport.NewStdio(exe, args...),
		plugin.WithTasks(plugin.TaskOptions{MinPollInterval: time.Millisecond}),
		plugin.WithProgress(func(plugin.Progress) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		return err
	}
	defer p.Close()
	completion, err := TaskCompletion(ctx, p, dir, progressed, r.cfg.TaskRounds)
	if err != nil {
		return err
	}
	notified, err := r.taskNotified(ctx, SubjectTaskNotified, taskserver.FlagNotify)
	if err != nil {
		return err
	}
	listened, err := r.taskNotified(ctx, SubjectTaskListened, taskserver.FlagNotify, taskserver.FlagAccepted)
	if err != nil {
		return err
	}
	poll, err := TaskPolls(ctx, p, r.cfg.TaskPollTasks)
	if err != nil {
		return err
	}
	quick := PluginHook(p, TaskQuickCall)
	quick.Name = SubjectTaskQuick
	res, err := Interleave(ctx, []*Subject{quick}, r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioTask, append([]Result{completion, notified, listened, poll}, res...)...)
	return nil
}

// TaskCompletion measures rounds tasks of p's "work" tool, each waiting on
// a file of dir: once the task has been polled (progressed receives its
// first status message), after a random part of one interval, the file is
// created and the time to the caller's result is the sample. The client's
// CPU and allocations are per task.
func TaskCompletion(ctx context.Context, p *plugin.McpPlugin, dir string, progressed <-chan struct{}, rounds int) (Result, error) {
	samples := make([]time.Duration, 0, rounds)
	var mem memDelta
	for i := range rounds {
		select {
		case <-progressed:
		default:
		}
		file := filepath.Join(dir, fmt.Sprintf("done-%d", i))
		args := map[string]any{"polls": 1, "until": file, "interval": TaskCompletionInterval.Milliseconds(),
			"message": "waiting", "text": "done"}
		mem.start()
		fut := p.CallTool(ctx, "work", args)
		select {
		case <-progressed:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		time.Sleep(rand.N(TaskCompletionInterval))
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			return Result{}, err
		}
		t0 := time.Now()
		res, err := fut.Await(ctx)
		d := time.Since(t0)
		mem.stop()
		if err != nil {
			return Result{}, fmt.Errorf("task %d: %w", i, err)
		}
		if got := plugin.RenderResult(res); got != "done" {
			return Result{}, fmt.Errorf("task %d: result %q, want \"done\"", i, got)
		}
		samples = append(samples, d)
	}
	out := Result{Subject: SubjectTaskCompletion, Latency: Summarize(samples)}
	out.AllocsPerOp, out.BytesPerOp, out.CPUPerOp = mem.perOp(float64(rounds))
	return out, nil
}

// TaskPolls runs tasks tasks of p's "work" tool polled [TaskPollsPerTask]
// times each at [TaskPollInterval], and divides the client's CPU and
// allocations by the polls (each task's tools/call among them); a sample
// is one task's wall time per poll.
func TaskPolls(ctx context.Context, p *plugin.McpPlugin, tasks int) (Result, error) {
	samples := make([]time.Duration, 0, tasks)
	var mem memDelta
	polls := TaskPollsPerTask + 1 // the last one finds the task completed
	args := map[string]any{"polls": TaskPollsPerTask, "interval": TaskPollInterval.Milliseconds(), "text": "done"}
	for i := range tasks {
		mem.start()
		t0 := time.Now()
		res, err := p.CallTool(ctx, "work", args).Await(ctx)
		d := time.Since(t0)
		mem.stop()
		if err != nil {
			return Result{}, fmt.Errorf("task %d: %w", i, err)
		}
		if got := plugin.RenderResult(res); got != "done" {
			return Result{}, fmt.Errorf("task %d: result %q, want \"done\"", i, got)
		}
		samples = append(samples, d/time.Duration(polls))
	}
	out := Result{Subject: SubjectTaskPoll, Latency: Summarize(samples)}
	out.AllocsPerOp, out.BytesPerOp, out.CPUPerOp = mem.perOp(float64(tasks * polls))
	return out, nil
}

// taskNotified runs [TaskNotified] on a task server of its own with flags
// (taskserver.FlagNotify: it sends notifications), as subject.
func (r *runner) taskNotified(ctx context.Context, subject string, flags ...string) (Result, error) {
	dir, err := os.MkdirTemp("", "mcpconnector-bench-tasks-notify-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	exe, args, err := taskserver.CommandLine(dir, flags...)
	if err != nil {
		return Result{}, err
	}
	progressed := make(chan struct{}, 1)
	p, err := plugin.Connect(ctx, transport.NewStdio(exe, args...),
		plugin.WithTasks(plugin.TaskOptions{}),
		plugin.WithProgress(func(plugin.Progress) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}))
	if err != nil {
		return Result{}, err
	}
	defer p.Close()
	out, err := TaskNotified(ctx, p, dir, progressed, r.cfg.TaskRounds)
	out.Subject = subject
	return out, err
}

// TaskNotified measures rounds tasks of p's "work" tool, on a server that
// notifies status changes, each waiting on a file that is never made:
// only the server's "finish" tool ends it, and only its notification
// tells the client before the next poll. Once the task has been polled
// (progressed receives its first status message), after a random part of
// one interval, finish is called; the time from then to the caller's
// result is the sample (finish's request, the server's durable write of
// the task and the notification's delivery). The client's CPU and
// allocations are per task, finish's call included.
func TaskNotified(ctx context.Context, p *plugin.McpPlugin, dir string, progressed <-chan struct{}, rounds int) (Result, error) {
	samples := make([]time.Duration, 0, rounds)
	var mem memDelta
	never := filepath.Join(dir, "never")
	for i := range rounds {
		select {
		case <-progressed:
		default:
		}
		args := map[string]any{"polls": 1, "until": never, "interval": TaskCompletionInterval.Milliseconds(),
			"message": "waiting", "text": "done"}
		mem.start()
		fut := p.CallTool(ctx, "work", args)
		select {
		case <-progressed:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		time.Sleep(rand.N(TaskCompletionInterval))
		t0 := time.Now()
		finish := p.CallTool(ctx, "finish", nil)
		res, err := fut.Await(ctx)
		d := time.Since(t0)
		if _, ferr := finish.Await(ctx); ferr != nil && err == nil {
			err = ferr
		}
		mem.stop()
		if err != nil {
			return Result{}, fmt.Errorf("task %d: %w", i, err)
		}
		if got := plugin.RenderResult(res); got != "done" {
			return Result{}, fmt.Errorf("task %d: result %q, want \"done\"", i, got)
		}
		samples = append(samples, d)
	}
	out := Result{Subject: SubjectTaskNotified, Latency: Summarize(samples)}
	out.AllocsPerOp, out.BytesPerOp, out.CPUPerOp = mem.perOp(float64(rounds))
	return out, nil
}
