// Package instrument holds the names under which the module records its
// OpenTelemetry spans and metrics beside the conventions' own (the
// instrumentation scope and version, this module's metrics and attributes,
// the values of error.type, the duration buckets) and how a call's trace
// context travels. Package actors records with them; package plugin puts
// a call's trace context on its message, and its tests read them.
// docs/observability.md lists them for users, as strings; no user needs
// this package.
package instrument

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
)

// Scope is the instrumentation scope of every span and metric this module
// records.
const Scope = "github.com/cuca-go/mcpconnector"

// Version is this module's version: the instrumentation scope's, and the
// client version a connection sends unless configured otherwise.
const Version = "0.1.0"

// DurationBuckets are the explicit bucket boundaries, in seconds, that
// OpenTelemetry's MCP conventions give mcp.client.operation.duration and
// mcp.client.session.duration; the reconnection time uses them too.
var DurationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Metric names of this module beside the conventions' two histograms. They
// are in the module's own namespace: the conventions define no such metrics.
const (
	MetricCallsInFlight        = "mcpconnector.calls.in_flight"
	MetricRestarts             = "mcpconnector.restarts"
	MetricReconnectionDuration = "mcpconnector.reconnection.duration"
	// MetricTaskDuration is the time from a tool call's task answer
	// (SEP-2663) to the task's end, in seconds.
	MetricTaskDuration = "mcpconnector.task.duration"
)

// TaskDurationBuckets are the bucket boundaries, in seconds, of
// MetricTaskDuration: a task may run from under a second to hours.
var TaskDurationBuckets = []float64{0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400}

// The span of a task and the event of each of its polls.
const (
	// SpanTask, followed by a space and the tool's name, names the span
	// of one task, from the task answer to its end: "mcp task add".
	SpanTask = "mcp task"
	// EventTaskPoll is the span event of each description of the task
	// after the first: a tasks/get answer or a notifications/tasks.
	EventTaskPoll = "mcp.task.poll"
	// EventTaskResumed ends the span of a task whose connection was lost:
	// the next connection polls it on under a span of its own.
	EventTaskResumed = "mcp.task.resumed"
)

// Attribute keys of this module (no convention has them).
const (
	// AttrRestarts is the number of restarts before a connect span's attempt.
	AttrRestarts = attribute.Key("mcpconnector.restarts")
	// AttrServer names the server as the plugin does (`stdio "srv"`), so
	// that a toolbox's stdio servers, which have no address, can be told
	// apart.
	AttrServer = attribute.Key("mcpconnector.server")
	// AttrTaskID is a task's id, as its server gave it.
	AttrTaskID = attribute.Key("mcpconnector.task.id")
	// AttrTaskStatus is a task's status: working, input_required,
	// completed, failed, cancelled.
	AttrTaskStatus = attribute.Key("mcpconnector.task.status")
	// AttrTaskPolls is how many descriptions of the task came after the
	// first: polls answered, and status notifications.
	AttrTaskPolls = attribute.Key("mcpconnector.task.polls")
)

// Values of error.type besides JSON-RPC error codes (recorded as their
// number, e.g. "-32602") and mcpconv.ErrorTypeOther.
const (
	ErrorTypeToolError  = "tool_error"  // a CallToolResult with isError
	ErrorTypeTimeout    = "timeout"     // the call's deadline passed
	ErrorTypeCancelled  = "cancelled"   // the caller gave up
	ErrorTypeConnection = "session_end" // the session ended under the call, or ended with an error
	ErrorTypeTaskLost   = "task_lost"   // the server no longer knew the call's task
)

// Propagator is how trace context travels with a call: as W3C trace
// context and baggage, whatever the global propagator is.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Inject returns ctx's trace context and baggage as W3C fields, for
// messages.CallTool's TraceContext; nil when there are none.
func Inject(ctx context.Context) map[string]string {
	c := propagation.MapCarrier{}
	Propagator.Inject(ctx, c)
	if len(c) == 0 {
		return nil
	}
	return c
}
