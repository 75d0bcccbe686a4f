// Package observe turns on the examples' OpenTelemetry output from the
// environment: spans printed as JSON (stdouttrace) and metrics served for
// Prometheus on a loopback address (otel's prometheus exporter). [Start]
// returns the providers; an example hands them to the plugin with
// plugin.WithTracerProvider and plugin.WithMeterProvider, as any program
// would hand its own.
//
// It is a helper of the examples, not of the library: a program of yours may
// import it (github.com/cuca-go/mcpconnector/examples/observe) or copy it,
// but it is outside the module's API listing and may change with the
// examples. It imports nothing of this module.
package observe
