package benchmarks

import (
	"fmt"
	"time"
)

// taskDue is when a task's result is due after its completion: one poll
// interval plus 10%.
const taskDue = TaskCompletionInterval + TaskCompletionInterval/10

// taskTargets: a task's result reaches the caller at most one poll
// interval plus 10% after the task completes; a poll's CPU is reported
// beside a quick call's.
func (r *Report) taskTargets() []Target {
	var out []Target
	if c := r.find(ScenarioTask, SubjectTaskCompletion, 0); c != nil {
		out = append(out, Target{
			Goal: fmt.Sprintf("%s: a task's result at most one poll interval + 10%% (%s) after its completion", ScenarioTask, Dur(taskDue)),
			Got:  fmt.Sprintf("max %s, p99 %s, p50 %s over %d tasks", Dur(c.Latency.Max), Dur(c.Latency.P99), Dur(c.Latency.P50), c.Latency.N),
			Met:  c.Latency.Max <= taskDue,
		})
	}
	if c := r.find(ScenarioTask, SubjectTaskNotified, 0); c != nil {
		out = append(out, Target{
			Goal: fmt.Sprintf("%s: a notified task's result well under one poll interval (p99 at most 10%%, %s) after its completion", ScenarioTask, Dur(TaskCompletionInterval/10)),
			Got:  fmt.Sprintf("max %s, p99 %s, p50 %s over %d tasks", Dur(c.Latency.Max), Dur(c.Latency.P99), Dur(c.Latency.P50), c.Latency.N),
			Met:  c.Latency.P99 <= TaskCompletionInterval/10,
		})
	}
	if poll, quick := r.find(ScenarioTask, SubjectTaskPoll, 0), r.find(ScenarioTask, SubjectTaskQuick, 0); poll != nil && quick != nil {
		out = append(out, Target{
			Goal: ScenarioTask + ": the client's CPU per poll, beside a quick call's",
			Got: fmt.Sprintf("%s vs %s (%.2fx), %s vs %s allocs", Dur(poll.CPUPerOp), Dur(quick.CPUPerOp),
				float64(poll.CPUPerOp)/float64(max(quick.CPUPerOp, time.Nanosecond)), num(poll.AllocsPerOp), num(quick.AllocsPerOp)),
			Reported: true,
		})
	}
	return out
}

// taskNote is the last column of [ScenarioTask]'s rows.
func (r *Report) taskNote(row *Row) string {
	switch row.Subject {
	case SubjectTaskCompletion:
		return fmt.Sprintf("max %.0f%% of one interval + 10%% (%s); CPU and allocs per task", 100*float64(row.Latency.Max)/float64(taskDue), Dur(taskDue))
	case SubjectTaskNotified, SubjectTaskListened:
		return fmt.Sprintf("the server notifies the completion; p50 %.1f%% of one interval (%s); CPU and allocs per task", 100*float64(row.Latency.P50)/float64(TaskCompletionInterval), Dur(TaskCompletionInterval))
	case SubjectTaskPoll:
		if q := r.find(ScenarioTask, SubjectTaskQuick, 0); q != nil {
			return fmt.Sprintf("latency: wall time per poll, %s interval included; CPU %.2fx, %+.1f allocs vs a quick call",
				Dur(TaskPollInterval), float64(row.CPUPerOp)/float64(max(q.CPUPerOp, time.Nanosecond)), row.AllocsPerOp-q.AllocsPerOp)
		}
	}
	return ""
}
