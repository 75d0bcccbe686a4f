package actors

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/core/safetext"
	"github.com/cuca-go/mcpconnector/internal/core/tracelog"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Telemetry is what connections record with OpenTelemetry: a client span
// per MCP request, connect spans, the conventions' metrics and a few of this
// module's. A nil *Telemetry records nothing and costs nothing; it is what
// a connection has when the host gave no provider.
type Telemetry struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	operation mcpconv.ClientOperationDuration
	session   mcpconv.ClientSessionDuration
	inFlight  metric.Int64UpDownCounter
	restarts  metric.Int64Counter
	reconnect metric.Float64Histogram
	meter     metric.Meter // the extensions' (forExtensions)
}

// NewTelemetry returns the telemetry of tp and mp, or nil when both are nil.
// A nil one of the two records nothing of its kind. Trace context travels as
// W3C trace context and baggage, whatever the global propagator is.
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) *Telemetry {
	if tp == nil && mp == nil {
		return nil
	}
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t := &Telemetry{
		tracer: tp.Tracer(instrument.Scope, trace.WithInstrumentationVersion(instrument.Version),
			trace.WithSchemaURL(semconv.SchemaURL)),
		propagator: instrument.Propagator,
	}
	meter := mp.Meter(instrument.Scope, metric.WithInstrumentationVersion(instrument.Version),
		metric.WithSchemaURL(semconv.SchemaURL))
	buckets := metric.WithExplicitBucketBoundaries(instrument.DurationBuckets...)
	// Instrument errors only mean a misconfigured SDK; the instruments are
	// then no-ops, which is the right degradation for telemetry.
	t.operation, _ = mcpconv.NewClientOperationDuration(meter, buckets)
	t.session, _ = mcpconv.NewClientSessionDuration(meter, buckets)
	t.inFlight, _ = meter.Int64UpDownCounter(instrument.MetricCallsInFlight, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls sent to the MCP server and not yet answered."))
	t.restarts, _ = meter.Int64Counter(instrument.MetricRestarts, metric.WithUnit("{restart}"),
		metric.WithDescription("Restarts of the MCP connection after its session ended or a connection attempt failed."))
	t.reconnect, _ = meter.Float64Histogram(instrument.MetricReconnectionDuration, metric.WithUnit("s"), buckets,
		metric.WithDescription("Time from the loss of an MCP session to the next ready session."))
	t.meter = meter
	if t.inFlight == nil {
		t.inFlight = metricnoop.Int64UpDownCounter{}
	}
	if t.restarts == nil {
		t.restarts = metricnoop.Int64Counter{}
	}
	if t.reconnect == nil {
		t.reconnect = metricnoop.Float64Histogram{}
	}
	return t
}

// extract is ctx with the trace context of fields as its remote parent.
func (t *Telemetry) extract(ctx context.Context, fields map[string]string) context.Context {
	if t == nil || len(fields) == 0 {
		return ctx
	}
	return t.propagator.Extract(ctx, propagation.MapCarrier(fields))
}

// metaCarrier puts propagation fields into a request's params._meta, where
// MCP's conventions (SEP-414) carry them, unprefixed.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { s, _ := m[key].(string); return s }
func (m metaCarrier) Set(key, value string) { m[key] = value }
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// peer is what the conventions record of the server's end of a session.
type peer struct {
	server string
	attrs  []attribute.KeyValue // network.transport, server.address, server.port
}

// wrappedTransport is a transport that names another (a toolbox's server).
type wrappedTransport interface {
	Unwrap() transport.McpTransport
}

func peerOf(t transport.McpTransport) peer {
	p := peer{server: t.String()}
	for i := 0; i < 8; i++ { // bounded: a transport that wraps itself is a bug, not a hang
		w, ok := t.(wrappedTransport)
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	switch t := t.(type) {
	case transport.Stdio, *transport.Stdio:
		p.attrs = []attribute.KeyValue{semconv.NetworkTransportPipe}
	case transport.StreamableHTTP:
		p.attrs = httpPeer(t.URL)
	case *transport.StreamableHTTP:
		p.attrs = httpPeer(t.URL)
	}
	p.attrs = append(p.attrs, instrument.AttrServer.String(p.server))
	return p
}

func httpPeer(raw string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http")}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return attrs
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	attrs = append(attrs, semconv.ServerAddress(u.Hostname()))
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPort(n))
	}
	return attrs
}

// middleware is the go-sdk sending middleware that records every request
// the client sends: a client span named `{mcp.method.name} {target}`, child
// of the span in the request's ctx; the W3C fields of that span in
// params._meta; the operation duration; tool calls in flight.
func (t *Telemetry) middleware(p peer, logger *zap.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" || method == "notifications/initialized" {
				return next(ctx, method, req) // refused before the wire; nothing to trace
			}
			name, tool := method, ""
			params := req.GetParams()
			if c, ok := params.(*mcp.CallToolParams); ok && c != nil {
				tool = c.Name
				name = method + " " + tool
			}
			attrs := make([]attribute.KeyValue, 0, len(p.attrs)+5)
			attrs = append(attrs, semconv.McpMethodNameKey.String(method), semconv.McpProtocolVersion(sessionVersion(req)))
			if tool != "" {
				attrs = append(attrs, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool)
			}
			attrs = append(attrs, p.attrs...)
			ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			defer span.End()
			if params != nil {
				m := params.GetMeta()
				if m == nil {
					m = map[string]any{}
				}
				t.propagator.Inject(ctx, metaCarrier(m))
				params.SetMeta(m)
			}
			set := metric.WithAttributes(attrs...)
			if tool != "" {
				t.inFlight.Add(ctx, 1, set)
				defer t.inFlight.Add(ctx, -1, set)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			errType, code := classifyOutcome(ctx, res, err)
			if errType != "" {
				attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
				span.SetAttributes(semconv.ErrorTypeKey.String(errType))
				if code != "" {
					attrs = append(attrs, semconv.RPCResponseStatusCode(code))
					span.SetAttributes(semconv.RPCResponseStatusCode(code))
				}
				span.SetStatus(codes.Error, statusDescription(errType, err))
				if ce := logger.Check(zap.DebugLevel, "mcp request failed"); ce != nil {
					ce.Write(append(tracelog.Fields(ctx), zap.String("method", method), zap.String("error.type", errType), zap.Error(err))...)
				}
			}
			t.operation.Record(ctx, time.Since(start).Seconds(), mcpconv.MethodNameAttr(method), attrs[1:]...)
			return res, err
		}
	}
}

// statusDescription is a failed span's status text: the JSON-RPC error's
// message, as the conventions ask, else the error, else the error type.
func statusDescription(errType string, err error) string {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		return safetext.Clean(rpc.Message)
	case err != nil:
		return err.Error()
	}
	return errType
}

// classifyOutcome is the error.type of a request's outcome ("" for
// success) and, for a JSON-RPC error, its code.
func classifyOutcome(ctx context.Context, res mcp.Result, err error) (errType, code string) {
	if err == nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			return instrument.ErrorTypeToolError, ""
		}
		return "", ""
	}
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		c := strconv.FormatInt(rpc.Code, 10)
		return c, c
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		return instrument.ErrorTypeTimeout, ""
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return instrument.ErrorTypeCancelled, ""
	case errors.Is(err, mcp.ErrConnectionClosed):
		return instrument.ErrorTypeConnection, ""
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return instrument.ErrorTypeTimeout, ""
	}
	return string(mcpconv.ErrorTypeOther), ""
}

// sessionVersion is the revision req's session speaks: 2026-07-28 until
// the session is established (server/discover), an older one on a session
// of ConnectionConfig.LegacyFallback.
func sessionVersion(req mcp.Request) string {
	if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs != nil {
		if ir := cs.InitializeResult(); ir != nil && ir.ProtocolVersion != "" {
			return ir.ProtocolVersion
		}
	}
	return ProtocolVersion
}

// startConnect starts the span of one connection attempt: server/discover
// and tools/list are its children.
func (t *Telemetry) startConnect(ctx context.Context, p peer, restarts int64) (context.Context, trace.Span) {
	attrs := append([]attribute.KeyValue{instrument.AttrRestarts.Int64(restarts), semconv.McpProtocolVersion(ProtocolVersion)}, p.attrs...)
	return t.tracer.Start(ctx, "mcp connect", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
}

// endConnect ends a connect span with the attempt's outcome: the tools
// listed and the revision the session speaks, or the failure.
func endConnect(span trace.Span, tools int, version string, f *messages.Failure) {
	if f != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(string(mcpconv.ErrorTypeOther)))
		span.SetStatus(codes.Error, f.Error())
	} else {
		span.SetAttributes(attribute.Int("mcpconnector.tools", tools), semconv.McpProtocolVersion(version))
	}
	span.End()
}

// recordSession records a session's duration; version is the revision it
// spoke, failed says it ended by an error rather than by Close.
func (t *Telemetry) recordSession(p peer, version string, started time.Time, failed bool) {
	if t == nil || started.IsZero() {
		return
	}
	attrs := append([]attribute.KeyValue{semconv.McpProtocolVersion(version)}, p.attrs...)
	if failed {
		attrs = append(attrs, semconv.ErrorTypeKey.String(instrument.ErrorTypeConnection))
	}
	t.session.Record(context.Background(), time.Since(started).Seconds(), attrs...)
}

// recordRestart counts one restart of the connection to p.
func (t *Telemetry) recordRestart(p peer) {
	if t == nil {
		return
	}
	t.restarts.Add(context.Background(), 1, metric.WithAttributes(p.attrs...))
}

// recordReconnection records the time from a session's loss to the next
// ready session.
func (t *Telemetry) recordReconnection(p peer, lost time.Time) {
	if t == nil || lost.IsZero() {
		return
	}
	t.reconnect.Record(context.Background(), time.Since(lost).Seconds(), metric.WithAttributes(p.attrs...))
}

// requestIDAttr sets jsonrpc.request.id on the span in ctx, which the
// middleware started for the request being written: only the connection
// sees the id go-sdk gave it.
func requestIDAttr(ctx context.Context, id jsonrpc.ID) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || !id.IsValid() {
		return
	}
	var s string
	switch v := id.Raw().(type) {
	case string:
		s = v
	case int64:
		s = strconv.FormatInt(v, 10)
	default:
		s = fmt.Sprint(v)
	}
	span.SetAttributes(semconv.JSONRPCRequestID(s))
}
