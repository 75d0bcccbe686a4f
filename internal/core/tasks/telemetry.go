package tasks

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/messages"
)

// A task's telemetry: one INTERNAL span per task, "mcp task <tool>", from
// the task answer to the task's end, child of the caller's span like the
// tools/call span; each later description of the task (a tasks/get answer,
// a status notification) is an event of it, with the task's id, status and
// the count so far; and the task's duration in the histogram
// instrument.MetricTaskDuration.

// telemetry is a session's telemetry of tasks; nil records nothing.
type telemetry struct {
	t        *extension.Telemetry
	duration metric.Float64Histogram
}

func newTelemetry(t *extension.Telemetry) *telemetry {
	if t == nil {
		return nil
	}
	h, _ := t.Meter.Float64Histogram(instrument.MetricTaskDuration, metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(instrument.TaskDurationBuckets...),
		metric.WithDescription("Time from a tool call's task answer (SEP-2663) to the task's end."))
	if h == nil {
		h = metricnoop.Float64Histogram{}
	}
	return &telemetry{t: t, duration: h}
}

// trace is the telemetry of one task being driven; nil records nothing.
type taskTrace struct {
	tel    *telemetry
	span   trace.Span
	attrs  []attribute.KeyValue // the tool and the peer: the span's and the metric's
	id     string
	status Status
	polls  int
	start  time.Time
	// handed is set when the call went back to resume the task on the
	// next session, whose own span and duration follow.
	handed bool
}

// start starts the span of task, which answered a call of tool; ctx is
// the call's, with the caller's trace context. It returns ctx with the
// span.
func (tel *telemetry) start(ctx context.Context, tool string, task *Task) (context.Context, *taskTrace) {
	if tel == nil {
		return ctx, nil
	}
	attrs := make([]attribute.KeyValue, 0, len(tel.t.Peer)+3)
	attrs = append(attrs, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool, semconv.McpProtocolVersion(tel.t.ProtocolVersion))
	attrs = append(attrs, tel.t.Peer...)
	ctx, span := tel.t.Tracer.Start(ctx, instrument.SpanTask+" "+tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...), trace.WithAttributes(instrument.AttrTaskID.String(task.ID), instrument.AttrTaskStatus.String(string(task.Status))))
	return ctx, &taskTrace{tel: tel, span: span, attrs: attrs, id: task.ID, status: task.Status, start: time.Now()}
}

// seen wraps seen, Config.Seen, so that each description of the task is
// also an event of its span.
func (tr *taskTrace) seen(seen func(*Task)) func(*Task) {
	if tr == nil {
		return seen
	}
	return func(task *Task) {
		tr.polls++
		tr.status = task.Status
		tr.span.AddEvent(instrument.EventTaskPoll, trace.WithAttributes(instrument.AttrTaskID.String(task.ID),
			instrument.AttrTaskStatus.String(string(task.Status)), instrument.AttrTaskPolls.Int(tr.polls)))
		if seen != nil {
			seen(task)
		}
	}
}

// resumed notes that the task goes on from the next session: the span
// ends with an event saying so, and no duration is recorded for this part.
func (tr *taskTrace) resumed() {
	if tr != nil {
		tr.handed = true
	}
}

// end ends the span with the call's reply (nil when the caller gave up,
// ctx ended) and records the task's duration.
func (tr *taskTrace) end(ctx context.Context, reply *messages.CallToolReply) {
	if tr == nil {
		return
	}
	if tr.handed {
		tr.span.SetAttributes(instrument.AttrTaskStatus.String(string(tr.status)), instrument.AttrTaskPolls.Int(tr.polls))
		tr.span.AddEvent(instrument.EventTaskResumed, trace.WithAttributes(instrument.AttrTaskID.String(tr.id)))
		tr.span.End()
		return
	}
	attrs := append(tr.attrs[:len(tr.attrs):len(tr.attrs)], instrument.AttrTaskStatus.String(string(tr.status)))
	tr.span.SetAttributes(instrument.AttrTaskStatus.String(string(tr.status)), instrument.AttrTaskPolls.Int(tr.polls))
	if errType, code, msg := outcome(ctx, reply); errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
		tr.span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		if code != "" {
			tr.span.SetAttributes(semconv.RPCResponseStatusCode(code))
		}
		tr.span.SetStatus(codes.Error, msg)
	}
	tr.span.End()
	tr.tel.duration.Record(context.WithoutCancel(ctx), time.Since(tr.start).Seconds(), metric.WithAttributes(attrs...))
}

// outcome is the error.type of a task's call ("" for success), the
// JSON-RPC code of a failed task, and the span's status text.
func outcome(ctx context.Context, reply *messages.CallToolReply) (errType, code, msg string) {
	switch {
	case reply == nil:
		errType = instrument.ErrorTypeCancelled // the caller gave up
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			errType = instrument.ErrorTypeTimeout
		}
		return errType, "", "the caller gave up"
	case reply.Failure == nil:
		if reply.Result != nil && reply.Result.IsError {
			return instrument.ErrorTypeToolError, "", instrument.ErrorTypeToolError
		}
		return "", "", ""
	}
	f := reply.Failure
	var rpc *jsonrpc.Error
	switch {
	case f.Cause == messages.CauseTaskLost:
		errType = instrument.ErrorTypeTaskLost
	case f.Cause == messages.CauseDeadline:
		errType = instrument.ErrorTypeTimeout
	case f.Cause == messages.CauseCanceled:
		errType = instrument.ErrorTypeCancelled
	case f.Cause == messages.CauseConnectionLost:
		errType = instrument.ErrorTypeConnection
	case errors.As(f, &rpc):
		code = strconv.FormatInt(rpc.Code, 10)
		errType = code
	default:
		errType = string(mcpconv.ErrorTypeOther)
	}
	return errType, code, f.Error()
}
