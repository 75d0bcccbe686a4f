package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The environment variables the examples read.
const (
	// TraceVar set to "stdout" prints every span, as JSON, to the
	// example's output, at the latest when it ends.
	TraceVar = "CUCA_TRACE"
	// MetricsVar is a loopback host:port (e.g. 127.0.0.1:9464) on which
	// the metrics are served for Prometheus at /metrics while the example
	// runs.
	MetricsVar = "CUCA_METRICS_ADDR"
)

// Config says what to turn on; the zero value turns on nothing.
type Config struct {
	// Trace is TraceVar's value: "stdout" or empty.
	Trace string
	// MetricsAddr is MetricsVar's value: a loopback host:port, or empty.
	MetricsAddr string
}

// FromEnv reads [TraceVar] and [MetricsVar].
func FromEnv() Config {
	return Config{Trace: os.Getenv(TraceVar), MetricsAddr: os.Getenv(MetricsVar)}
}

// Telemetry is what [Start] turned on. An example hands the providers to
// the plugin (or, through toolbox.WithPluginOptions, to every server of a
// toolbox) with plugin.WithTracerProvider and plugin.WithMeterProvider;
// nil ones turn nothing on.
type Telemetry struct {
	// TracerProvider records the plugin's spans; nil when tracing is off.
	TracerProvider trace.TracerProvider
	// MeterProvider records the plugin's metrics; nil when they are off.
	MeterProvider metric.MeterProvider
	// Tracer starts the example's own spans, the parents of the plugin's;
	// a no-op tracer when tracing is off.
	Tracer trace.Tracer
	// MetricsURL is where the metrics are served; empty when off.
	MetricsURL string

	shutdown []func(context.Context) error
}

// Start turns on what cfg asks for. Spans are written to out in batches,
// the last by Shutdown.
func Start(cfg Config, out io.Writer) (*Telemetry, error) {
	t := &Telemetry{Tracer: noop.NewTracerProvider().Tracer("")}
	switch cfg.Trace {
	case "":
	case "stdout":
		exp, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
		if err != nil {
			return nil, err
		}
		// Batched, and flushed by Shutdown: the spans come after the
		// example's story instead of through it.
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
		t.TracerProvider = tp
		t.Tracer = tp.Tracer("github.com/cuca-go/mcpconnector/examples")
		t.shutdown = append(t.shutdown, tp.Shutdown)
	default:
		return nil, fmt.Errorf("%s=%q: the only exporter is \"stdout\"", TraceVar, cfg.Trace)
	}
	if cfg.MetricsAddr != "" {
		if err := t.serveMetrics(cfg.MetricsAddr); err != nil {
			_ = t.Shutdown(context.Background())
			return nil, err
		}
	}
	return t, nil
}

// serveMetrics serves a Prometheus registry fed by otel's exporter on addr,
// which must be a loopback address: the example exposes nothing to the
// network.
func (t *Telemetry) serveMetrics(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", MetricsVar, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s=%q: metrics are served on a loopback address only (127.0.0.1, ::1, localhost)", MetricsVar, addr)
	}
	reg := promclient.NewRegistry()
	exp, err := prometheus.New(prometheus.WithRegisterer(reg))
	if err != nil {
		return err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	t.shutdown = append(t.shutdown, mp.Shutdown)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: %w", MetricsVar, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.shutdown = append(t.shutdown, srv.Shutdown)
	t.MetricsURL = "http://" + ln.Addr().String() + "/metrics"
	t.MeterProvider = mp
	return nil
}

// Shutdown stops the metrics server and flushes the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for i := len(t.shutdown) - 1; i >= 0; i-- {
		errs = append(errs, t.shutdown[i](ctx))
	}
	t.shutdown = nil
	return errors.Join(errs...)
}
