package plugin_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// A task has one span, "mcp task <tool>", child of the caller's span,
// whose events are its polls, and its duration in a histogram.
func TestTaskTelemetry(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			tel := newTelemetry(t)
			p := connect(t, s.tr, append(tel.options(), plugin.WithTasks(plugin.TaskOptions{}))...)

			ctx, caller := tel.tp.Tracer("test").Start(t.Context(), "caller")
			res, err := callWork(ctx, p, map[string]any{"polls": 3, "text": "finished"})
			caller.End()
			require.NoError(t, err)
			assert.Equal(t, "finished", plugin.RenderResult(res))

			span := tel.span(t, instrument.SpanTask+" work")
			assert.Equal(t, trace.SpanKindInternal, span.SpanKind())
			assert.Equal(t, caller.SpanContext().SpanID(), span.Parent().SpanID(), "the caller's span is the task span's parent")
			assert.Equal(t, caller.SpanContext().TraceID(), span.SpanContext().TraceID())
			a := attrs(span.Attributes())
			taskID := a[string(instrument.AttrTaskID)]
			require.NotEmpty(t, taskID, "the span names the task: %v", a)
			assert.Equal(t, "completed", a[string(instrument.AttrTaskStatus)])
			assert.Equal(t, "work", a["gen_ai.tool.name"])
			assert.NotEqual(t, codes.Error, span.Status().Code)
			assert.NotContains(t, a, "error.type")

			events := span.Events()
			reqs := s.checkTaskRequests(t, true)
			require.Len(t, events, count(reqs, "tasks/get"), "one event per poll (the server sends no status notification)")
			for i, e := range events {
				ea := attrs(e.Attributes)
				assert.Equal(t, instrument.EventTaskPoll, e.Name)
				assert.Equal(t, taskID, ea[string(instrument.AttrTaskID)])
				assert.Equal(t, itoa(i+1), ea[string(instrument.AttrTaskPolls)], "event %d", i)
				want := "working"
				if i == len(events)-1 {
					want = "completed"
				}
				assert.Equal(t, want, ea[string(instrument.AttrTaskStatus)], "event %d", i)
			}
			assert.Equal(t, itoa(len(events)), a[string(instrument.AttrTaskPolls)])

			dp := histogramPoint(t, tel.metric(t, instrument.MetricTaskDuration),
				map[string]string{"gen_ai.tool.name": "work", string(instrument.AttrTaskStatus): "completed"})
			assert.Equal(t, uint64(1), dp.Count)
			assert.NotContains(t, attrs(dp.Attributes.ToSlice()), "error.type")
			// A quick call makes no task span.
			assert.Equal(t, "quick", callText(t, p, "quick", nil))
			assert.Empty(t, tel.spansNamed(instrument.SpanTask+" quick"))
		})
	}
}

// A failed task's span and duration carry the server's error code; a task
// the caller gives up on, "cancelled".
func TestTaskTelemetryFailures(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	tel := newTelemetry(t)
	ended := &spanEnds{ch: make(chan sdktrace.ReadOnlySpan, 16)}
	tel.tp.RegisterSpanProcessor(ended)
	p := connect(t, s.tr, append(tel.options(), plugin.WithTasks(plugin.TaskOptions{}))...)

	_, err := callWork(t.Context(), p, map[string]any{"outcome": "fail"})
	require.Error(t, err)
	code := itoa(taskserver.FailCode)
	span := tel.span(t, instrument.SpanTask+" work")
	a := attrs(span.Attributes())
	assert.Equal(t, "failed", a[string(instrument.AttrTaskStatus)])
	assert.Equal(t, code, a["error.type"])
	assert.Equal(t, code, a["rpc.response.status_code"])
	assert.Equal(t, codes.Error, span.Status().Code)
	histogramPoint(t, tel.metric(t, instrument.MetricTaskDuration), map[string]string{"error.type": code, string(instrument.AttrTaskStatus): "failed"})

	// Given up on: the caller cancels once the task has been polled.
	ctx, cancel := context.WithCancel(t.Context())
	polled := make(chan struct{})
	var once sync.Once
	p2 := connect(t, s.tr, append(tel.options(), plugin.WithTasks(plugin.TaskOptions{}), plugin.WithProgress(func(plugin.Progress) {
		once.Do(func() { close(polled) })
	}))...)
	fut := p2.CallTool(ctx, "work", map[string]any{"outcome": "never", "message": "running"})
	<-polled
	cancel()
	_, err = fut.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	// The task's span ends once the connection has sent tasks/cancel,
	// after the caller has its error.
	var cancelled sdktrace.ReadOnlySpan
	for cancelled == nil {
		select {
		case sp := <-ended.ch:
			if sp.Name() == instrument.SpanTask+" work" && attrs(sp.Attributes())[string(instrument.AttrTaskStatus)] != "failed" {
				cancelled = sp
			}
		case <-t.Context().Done():
			t.Fatal("the given-up task's span never ended")
		}
	}
	a = attrs(cancelled.Attributes())
	assert.Equal(t, instrument.ErrorTypeCancelled, a["error.type"])
	assert.Equal(t, "working", a[string(instrument.AttrTaskStatus)])
	assert.Equal(t, codes.Error, cancelled.Status().Code)
}

// spanEnds passes each ended task span on to ch.
type spanEnds struct{ ch chan sdktrace.ReadOnlySpan }

func (e *spanEnds) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (e *spanEnds) OnEnd(s sdktrace.ReadOnlySpan) {
	if strings.HasPrefix(s.Name(), instrument.SpanTask+" ") {
		e.ch <- s
	}
}
func (e *spanEnds) Shutdown(context.Context) error   { return nil }
func (e *spanEnds) ForceFlush(context.Context) error { return nil }

func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }
