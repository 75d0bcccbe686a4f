package plugin_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// telemetry is an in-memory tracer and a manual metric reader.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	tel.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = tel.mp.Shutdown(context.Background())
	})
	return tel
}

func (tel *telemetry) options() []plugin.Option {
	return []plugin.Option{plugin.WithTracerProvider(tel.tp), plugin.WithMeterProvider(tel.mp)}
}

// span returns the one ended span named name.
func (tel *telemetry) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans named %q", name)
	return found[0]
}

func (tel *telemetry) spansNamed(name string) []sdktrace.ReadOnlySpan {
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	return found
}

// metric returns the collected metric named name, or nil.
func (tel *telemetry) metric(t *testing.T, name string) *metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tel.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for i := range sm.Metrics {
			if sm.Metrics[i].Name == name {
				return &sm.Metrics[i]
			}
		}
	}
	return nil
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// histogramPoint returns the data point of histogram m whose attributes
// include want.
func histogramPoint(t *testing.T, m *metricdata.Metrics, want map[string]string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	require.NotNil(t, m)
	h, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "%s is a float64 histogram, not %T", m.Name, m.Data)
	for _, dp := range h.DataPoints {
		got := attrs(dp.Attributes.ToSlice())
		match := true
		for k, v := range want {
			if got[k] != v {
				match = false
			}
		}
		if match {
			return dp
		}
	}
	t.Fatalf("%s has no data point with %v; it has %v", m.Name, want, h.DataPoints)
	return metricdata.HistogramDataPoint[float64]{}
}

func TestTelemetryRecordsOneClientSpanPerRequest(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			tel := newTelemetry(t)
			p, err := plugin.Connect(context.Background(), tr, tel.options()...)
			require.NoError(t, err)

			ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "agent turn")
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "add", Arguments: json.RawMessage(`{"a":21,"b":21}`)}}}
			require.NoError(t, p.OnStreamChunk(ctx, chunk))
			assert.Equal(t, "42", chunk.Blocks[0].(host.ToolResult).Content)
			res, err := p.CallTool(ctx, "fail", nil).Await(ctx)
			require.NoError(t, err)
			assert.True(t, res.IsError)
			turn.End()

			add := tel.span(t, "tools/call add")
			assert.Equal(t, trace.SpanKindClient, add.SpanKind())
			assert.Equal(t, turn.SpanContext().TraceID(), add.SpanContext().TraceID(), "same trace as the caller")
			assert.Equal(t, turn.SpanContext().SpanID(), add.Parent().SpanID(), "child of the span in the hook's ctx, across the actor hop")
			a := attrs(add.Attributes())
			assert.Equal(t, "tools/call", a["mcp.method.name"])
			assert.Equal(t, "add", a["gen_ai.tool.name"])
			assert.Equal(t, "execute_tool", a["gen_ai.operation.name"])
			assert.Equal(t, actors.ProtocolVersion, a["mcp.protocol.version"])
			assert.NotEmpty(t, a["jsonrpc.request.id"])
			_, err = strconv.Atoi(a["jsonrpc.request.id"])
			assert.NoError(t, err, "go-sdk's ids are numbers")
			assert.NotContains(t, a, "error.type")
			assert.Equal(t, codes.Unset, add.Status().Code)
			if name == "stdio" {
				assert.Equal(t, "pipe", a["network.transport"])
				assert.NotContains(t, a, "server.address")
			} else {
				u, err := url.Parse(tr.(transport.StreamableHTTP).URL)
				require.NoError(t, err)
				assert.Equal(t, "tcp", a["network.transport"])
				assert.Equal(t, u.Hostname(), a["server.address"])
				assert.Equal(t, u.Port(), a["server.port"])
			}

			fail := tel.span(t, "tools/call fail")
			assert.Equal(t, turn.SpanContext().SpanID(), fail.Parent().SpanID())
			assert.Equal(t, "tool_error", attrs(fail.Attributes())["error.type"])
			assert.Equal(t, codes.Error, fail.Status().Code)

			conn := tel.span(t, "mcp connect")
			assert.Equal(t, "0", attrs(conn.Attributes())["mcpconnector.restarts"])
			for _, n := range []string{"server/discover", "tools/list"} {
				s := tel.span(t, n)
				assert.Equal(t, conn.SpanContext().SpanID(), s.Parent().SpanID(), "%s is part of the connection attempt", n)
				assert.Equal(t, trace.SpanKindClient, s.SpanKind())
				assert.Equal(t, n, attrs(s.Attributes())["mcp.method.name"])
				assert.NotContains(t, attrs(s.Attributes()), "gen_ai.tool.name")
			}

			op := tel.metric(t, "mcp.client.operation.duration")
			dp := histogramPoint(t, op, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "add"})
			assert.Equal(t, uint64(1), dp.Count)
			assert.Equal(t, instrument.DurationBuckets, dp.Bounds, "the conventions' buckets")
			assert.Equal(t, "s", op.Unit)
			assert.Equal(t, uint64(1), histogramPoint(t, op, map[string]string{"gen_ai.tool.name": "fail", "error.type": "tool_error"}).Count)
			assert.Equal(t, uint64(1), histogramPoint(t, op, map[string]string{"mcp.method.name": "server/discover"}).Count)

			inFlight := tel.metric(t, instrument.MetricCallsInFlight)
			require.NotNil(t, inFlight)
			for _, dp := range inFlight.Data.(metricdata.Sum[int64]).DataPoints {
				assert.Zero(t, dp.Value, "no call is in flight once all are answered")
			}
			assert.Nil(t, tel.metric(t, "mcp.client.session.duration"), "no session has ended yet")

			require.NoError(t, p.Close())
			sess := histogramPoint(t, tel.metric(t, "mcp.client.session.duration"), map[string]string{"mcp.protocol.version": actors.ProtocolVersion})
			assert.Equal(t, uint64(1), sess.Count)
			assert.NotContains(t, attrs(sess.Attributes.ToSlice()), "error.type", "Close is no error")
		})
	}
}

func TestTelemetryRecordsAJSONRPCError(t *testing.T) {
	tel := newTelemetry(t)
	core, logs := observer.New(zapcore.DebugLevel)
	p := connect(t, testserver.Stdio(t), append(tel.options(), plugin.WithLogger(zap.New(core)))...)

	ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "agent turn")
	_, err := p.CallTool(ctx, "no_such_tool", nil).Await(ctx)
	require.Error(t, err)
	turn.End()

	s := tel.span(t, "tools/call no_such_tool")
	a := attrs(s.Attributes())
	require.NotEmpty(t, a["error.type"])
	code, convErr := strconv.Atoi(a["error.type"])
	require.NoError(t, convErr, "error.type is the JSON-RPC code, got %q", a["error.type"])
	assert.Negative(t, code)
	assert.Equal(t, a["error.type"], a["rpc.response.status_code"])
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Contains(t, s.Status().Description, "no_such_tool", "the JSON-RPC error message")

	// Logs written while a span is active carry its ids: the caller's on
	// the facade's side, the client span's inside the request.
	sent := logs.FilterMessage("mcp tools/call").All()
	require.Len(t, sent, 1)
	assert.Equal(t, turn.SpanContext().TraceID().String(), sent[0].ContextMap()["trace_id"])
	assert.Equal(t, turn.SpanContext().SpanID().String(), sent[0].ContextMap()["span_id"])
	failed := logs.FilterMessage("mcp request failed").All()
	require.Len(t, failed, 1)
	assert.Equal(t, s.SpanContext().TraceID().String(), failed[0].ContextMap()["trace_id"])
	assert.Equal(t, s.SpanContext().SpanID().String(), failed[0].ContextMap()["span_id"])
}

// tracingServer is a go-sdk server whose "traced" tool continues the
// client's trace as a server instrumentation would: it extracts the W3C
// fields from params._meta and starts its span under them.
func tracingServer(t *testing.T, serverTP trace.TracerProvider) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1.0.0"}, nil)
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	s.AddTool(&mcp.Tool{Name: "traced", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			carrier := propagation.MapCarrier{}
			for _, k := range prop.Fields() {
				if v, ok := req.Params.Meta[k].(string); ok {
					carrier[k] = v
				}
			}
			ctx := prop.Extract(context.Background(), carrier)
			_, span := serverTP.Tracer("server").Start(ctx, "tools/call traced", trace.WithSpanKind(trace.SpanKindServer))
			span.End()
			tenant := baggage.FromContext(ctx).Member("tenant").Value()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tenant}}}, nil
		})
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestTraceContextReachesTheServer(t *testing.T) {
	tel := newTelemetry(t)
	serverSpans := tracetest.NewSpanRecorder()
	serverTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(serverSpans))
	t.Cleanup(func() { _ = serverTP.Shutdown(context.Background()) })
	p := connect(t, transport.StreamableHTTP{URL: tracingServer(t, serverTP)}, tel.options()...)

	// The caller's trace has vendor state and baggage; both must travel.
	ts, err := trace.ParseTraceState("rojo=00f067aa0ba902b7")
	require.NoError(t, err)
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true,
	})
	member, err := baggage.NewMember("tenant", "acme")
	require.NoError(t, err)
	bag, err := baggage.New(member)
	require.NoError(t, err)
	ctx := baggage.ContextWithBaggage(trace.ContextWithRemoteSpanContext(context.Background(), remote), bag)
	ctx, turn := tel.tp.Tracer("agent").Start(ctx, "agent turn")

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "traced", Arguments: json.RawMessage(`{}`)}}}
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	turn.End()
	assert.Equal(t, "acme", chunk.Blocks[0].(host.ToolResult).Content, "baggage reached the server")

	client := tel.span(t, "tools/call traced")
	require.Len(t, serverSpans.Ended(), 1)
	server := serverSpans.Ended()[0]
	assert.Equal(t, remote.TraceID(), server.SpanContext().TraceID(), "the server continues the caller's trace")
	assert.Equal(t, client.SpanContext().SpanID(), server.Parent().SpanID(), "the server span's parent is our client span")
	assert.True(t, server.Parent().IsRemote())
	assert.Equal(t, "00f067aa0ba902b7", server.SpanContext().TraceState().Get("rojo"), "tracestate reached the server")
}

func TestTelemetryRecordsReconnection(t *testing.T) {
	tel := newTelemetry(t)
	p := connect(t, testserver.Stdio(t), append(tel.options(), plugin.WithBackoff(10*time.Millisecond, 50*time.Millisecond))...)

	_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
	require.Error(t, err, "the server died under the call")
	require.Eventually(t, func() bool {
		st := p.Status()
		return st.State == actors.Ready && st.Restarts == 1
	}, 20*time.Second, 10*time.Millisecond)
	assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))

	conns := tel.spansNamed("mcp connect")
	require.Len(t, conns, 2, "the first connection and one reconnection")
	var restarts []string
	for _, c := range conns {
		restarts = append(restarts, attrs(c.Attributes())["mcpconnector.restarts"])
	}
	assert.ElementsMatch(t, []string{"0", "1"}, restarts)

	exit := tel.span(t, "tools/call exit")
	assert.NotEmpty(t, attrs(exit.Attributes())["error.type"])
	assert.Equal(t, codes.Error, exit.Status().Code)

	sess := histogramPoint(t, tel.metric(t, "mcp.client.session.duration"), map[string]string{"error.type": instrument.ErrorTypeConnection})
	assert.Equal(t, uint64(1), sess.Count, "the session that died ended with an error")
	restartsMetric := tel.metric(t, instrument.MetricRestarts)
	require.NotNil(t, restartsMetric)
	var total int64
	for _, dp := range restartsMetric.Data.(metricdata.Sum[int64]).DataPoints {
		total += dp.Value
	}
	assert.Equal(t, int64(1), total)
	reconnect := histogramPoint(t, tel.metric(t, instrument.MetricReconnectionDuration), map[string]string{"network.transport": "pipe"})
	assert.Equal(t, uint64(1), reconnect.Count)
	assert.Positive(t, reconnect.Sum)
}
