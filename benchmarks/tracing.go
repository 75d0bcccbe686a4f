package benchmarks

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cuca-go/mcpconnector/plugin"
)

// SubjectPluginTraced is the plugin hook with tracing on.
const SubjectPluginTraced = "plugin hook, tracing on"

// discardExporter takes every span and keeps none.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// TracingProvider samples every span and exports them in batches to
// nowhere: what tracing costs the client, without an exporter's I/O. The
// caller shuts it down.
func TracingProvider() *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(discardExporter{}))
}

// callerSpan is the span context a traced agent's hook call runs under.
var callerSpan = trace.NewSpanContext(trace.SpanContextConfig{
	TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	TraceFlags: trace.FlagsSampled,
})

// TracedPluginHook is [PluginHook] of a plugin connected with
// plugin.WithTracerProvider, called under a caller's span, so that the
// trace context crosses the actor hop and goes into params._meta as it
// does for a traced agent. Putting the span into ctx costs the caller one
// allocation per op, which the row includes.
func TracedPluginHook(p *plugin.McpPlugin, c Call) *Subject {
	s := PluginHook(p, c)
	s.Name = SubjectPluginTraced
	newOp := s.New
	s.New = func() Op {
		op := newOp()
		return func(ctx context.Context) error {
			return op(trace.ContextWithSpanContext(ctx, callerSpan))
		}
	}
	return s
}
