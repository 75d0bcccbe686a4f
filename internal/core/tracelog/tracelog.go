package tracelog

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Fields are the zap fields trace_id and span_id of the span in ctx, or
// none when ctx carries no valid span: logs written while a span is active
// can be found from the trace and back.
func Fields(ctx context.Context) []zap.Field {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []zap.Field{zap.String("trace_id", sc.TraceID().String()), zap.String("span_id", sc.SpanID().String())}
}
