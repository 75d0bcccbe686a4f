package plugin

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// WithTracerProvider records a client span per MCP request the plugin's
// connection sends (`tools/call add`, `tools/list`, `server/discover`),
// following OpenTelemetry's MCP semantic conventions, and a span per
// connection attempt with the restart count. A tool call's span is the
// child of the span in the ctx given to [McpPlugin.OnStreamChunk] or
// [McpPlugin.CallTool], across the actor hop and, for a grain, across
// members; its W3C traceparent, tracestate and baggage go into the
// request's params._meta, so a server that reads them continues the trace.
// Logs written while such a span is active carry trace_id and span_id.
// Without it (and without [WithMeterProvider]) nothing is recorded and a
// call costs what it did before.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return newOption("WithTracerProvider", common, func(o *options) {
		o.TracerProvider = tp
	})
}

// WithMeterProvider records the MCP conventions' histograms
// mcp.client.operation.duration and mcp.client.session.duration (seconds,
// with the conventions' buckets), and this module's
// mcpconnector.calls.in_flight, mcpconnector.restarts and
// mcpconnector.reconnection.duration. See the README's Observability
// section for the attributes.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return newOption("WithMeterProvider", common, func(o *options) {
		o.MeterProvider = mp
	})
}
