// Package observe turns on the examples' OpenTelemetry output from the
// environment: spans printed as JSON (stdouttrace) and metrics served for
// Prometheus on a loopback address (otel's prometheus exporter).
package observe
