// Package pluginopt is what package plugin's options set that the module's
// other packages read: a toolbox reads the logger, actor system, connect
// timeout, breaker cool-down and approval function of the plugin options
// it passes on to its servers, and package grid builds its grains'
// supervisors from them. plugin's options write into [Values], whose
// actors.SupervisorConfig is the one place the connection's and its
// supervision's values live; [Of] reads a list of them. No user needs it.
package pluginopt

import (
	"context"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/cuca-go/mcpconnector/actors"
)

// Values is what plugin options set beside what only package plugin
// reads.
type Values struct {
	// Supervisor is the connection (without a transport) and its
	// supervision, as the options set them. Its Connection's
	// ClientOptions, Roots and Telemetry are those [Values.Finish] makes.
	Supervisor actors.SupervisorConfig
	// System is plugin.WithActorSystem's actor system.
	System *actor.ActorSystem
	// Approve is plugin.WithApproval's function, nil for none, its
	// request's fields as arguments.
	Approve func(ctx context.Context, server, tool, callID string, args json.RawMessage) error
	// LossGrace is plugin.WithLossGrace's, a facade's (zero for the
	// default): a package that starts its servers refuses it.
	LossGrace time.Duration
	// BaseClientOptions is plugin.WithClientOptions's; Input is
	// plugin.WithInputRequired's handlers, nil without it.
	BaseClientOptions *mcp.ClientOptions
	Input             *InputHandlers
	// TracerProvider and MeterProvider are the telemetry providers.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// InputHandlers is plugin.InputHandlers, field for field.
type InputHandlers struct {
	Elicit func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	Sample func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error)
	Roots  []*mcp.Root
}

// Place is where a plugin option takes effect, a set of these bits.
type Place int

const (
	// Local: plugin.Connect of a connection the plugin spawns.
	Local Place = 1 << iota
	// Server: each server of a toolbox (toolbox.WithPluginOptions).
	Server
	// Facade: a facade over a cluster's grain (grid.Connect).
	Facade
	// Host: the grains of a cluster's kind (grid.WithPluginOptions).
	Host
)

// Option is implemented by every plugin option: Into applies it to v,
// Where says where it takes effect, Name is its name for errors, such as
// "plugin.WithBackoff".
type Option interface {
	Into(v *Values)
	Where() Place
	Name() string
}

// ResultCapSource is implemented by a plugin option whose result cap came
// from elsewhere than the program's code: package toolbox gives an mcp.json
// entry's "maxResultBytes" as plugin.WithMaxResultBytes embedded in a value
// of its own that names the entry. The plugin names MaxResultSource, such
// as `"maxResultBytes" of server "docs"`, in the errors the cap causes, in
// place of the option's name.
type ResultCapSource interface {
	MaxResultSource() string
}

// Misplaced is the name of the first of opts that does not take effect in
// every place of at, or "" when each does: an option given where it means
// nothing fails there rather than being ignored.
func Misplaced[O any](opts []O, at Place) string {
	for _, opt := range opts {
		if o, ok := any(opt).(Option); ok && o.Where()&at != at {
			return o.Name()
		}
	}
	return ""
}

// Of applies the plugin options of opts in order (any element that is
// none is skipped) and finishes the values.
func Of[O any](opts []O) *Values {
	v := &Values{}
	for _, opt := range opts {
		if o, ok := any(opt).(Option); ok {
			o.Into(v)
		}
	}
	v.Finish()
	return v
}

// ConnectTimeout is the connect timeout the options set, else
// actors.DefaultConnectTimeout.
func (v *Values) ConnectTimeout() time.Duration {
	if d := v.Supervisor.Connection.ConnectTimeout; d > 0 {
		return d
	}
	return actors.DefaultConnectTimeout
}

// Finish makes what the options' values derive: the go-sdk client options
// (the base with the input handlers applied, whatever the order the
// options came in), the roots, and the telemetry of the providers.
func (v *Values) Finish() {
	conn := &v.Supervisor.Connection
	conn.ClientOptions = clientOptions(v.BaseClientOptions, v.Input)
	conn.Roots = nil
	if v.Input != nil {
		conn.Roots = v.Input.Roots
	}
	conn.Telemetry = actors.NewTelemetry(v.TracerProvider, v.MeterProvider)
}

// clientOptions are base with h applied.
func clientOptions(base *mcp.ClientOptions, h *InputHandlers) *mcp.ClientOptions {
	if h == nil {
		return base
	}
	var c mcp.ClientOptions
	if base != nil {
		c = *base
	}
	if c.Capabilities == nil {
		// go-sdk's nil default declares roots, which this client does not
		// serve; the handlers below add what they implement.
		c.Capabilities = &mcp.ClientCapabilities{}
	} else {
		caps := *c.Capabilities // the caller's stays as it was
		c.Capabilities = &caps
	}
	if len(h.Roots) > 0 && c.Capabilities.RootsV2 == nil {
		c.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	if h.Elicit != nil {
		c.ElicitationHandler = h.Elicit
	}
	if h.Sample != nil {
		c.CreateMessageHandler = nil // go-sdk panics when both are set
		c.CreateMessageWithToolsHandler = h.Sample
	}
	c.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: false}
	return &c
}
