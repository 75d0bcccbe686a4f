package plugin

import "github.com/cuca-go/mcpconnector/actors"

// An option's type says where it takes effect, so that one given where it
// means nothing does not compile. There are three places:
//
//   - [Connect] and [ConnectStdio] take an [Option]: a plugin that spawns
//     its own connection. Every option but [WithLossGrace] is one.
//   - [Follow] (and so grid.Connect) takes a [FacadeOption]: a facade over
//     a connection actor that lives elsewhere. The options of calls are
//     ([CallOption]); those of the connection itself are not, since its
//     host owns it.
//   - [SupervisorConfigOf] (and so grid.WithPluginOptions) takes a
//     [HostOption]: the connection and supervision of a supervisor that
//     another package spawns, such as a grain's. The options of the
//     connection are ([ConnectionOption]); those of calls are not.
//
// [ServerOption] is an Option that configures one server's connection or
// its calls and not where the actors live: a toolbox passes those on to
// each of its servers. [CommonOption] is each of the kinds.

// Option configures [Connect] and [ConnectStdio].
type Option interface {
	apply(*options)
	local()
}

// ServerOption configures one server's connection or its calls, not where
// its actors live: a toolbox's WithPluginOptions takes them and passes them
// on to each server, as an [Option] when the toolbox starts the server, as a
// [FacadeOption] when the server is a cluster's grain. Every option is one
// but [WithActorSystem], [WithSpawn], [WithoutSupervision] and
// [WithRetryConnect], which the toolbox sets itself.
type ServerOption interface {
	apply(*options)
	server()
}

// FacadeOption configures [Follow]'s facade over a connection actor it did
// not spawn (grid.Connect's over a grain).
type FacadeOption interface {
	apply(*options)
	facade()
}

// HostOption configures the supervisor that [SupervisorConfigOf] describes,
// for a host that spawns it (package grid, for its grains).
type HostOption interface {
	apply(*options)
	host()
}

// CallOption configures calls, wherever the connection lives: it is an
// [Option], a [ServerOption] and a [FacadeOption].
type CallOption interface {
	Option
	ServerOption
	FacadeOption
}

// ConnectionOption configures the connection and its supervision, wherever
// it is spawned: it is an [Option], a [ServerOption] and a [HostOption].
type ConnectionOption interface {
	Option
	ServerOption
	HostOption
}

// FacadeServerOption is a [FacadeOption] that a toolbox over a cluster's
// grains passes on to its facades ([WithLossGrace]); a toolbox that starts
// its servers refuses it.
type FacadeServerOption interface {
	ServerOption
	FacadeOption
}

// CommonOption takes effect in every place: it is a [CallOption] and a
// [ConnectionOption].
type CommonOption interface {
	CallOption
	ConnectionOption
}

// The kinds of option, each a func over the options with the methods of
// the places where it takes effect.
type (
	localOption      func(*options)
	facadeOnlyOption func(*options)
	callOption       func(*options)
	connectionOption func(*options)
	commonOption     func(*options)
)

func (f localOption) apply(o *options)      { f(o) }
func (f facadeOnlyOption) apply(o *options) { f(o) }
func (f callOption) apply(o *options)       { f(o) }
func (f connectionOption) apply(o *options) { f(o) }
func (f commonOption) apply(o *options)     { f(o) }

func (localOption) local()       {}
func (facadeOnlyOption) facade() {}
func (facadeOnlyOption) server() {}

func (callOption) local()  {}
func (callOption) server() {}
func (callOption) facade() {}

func (connectionOption) local()  {}
func (connectionOption) server() {}
func (connectionOption) host()   {}

func (commonOption) local()  {}
func (commonOption) server() {}
func (commonOption) facade() {}
func (commonOption) host()   {}

// applyOptions applies opts in order over empty options and builds the
// telemetry they describe.
func applyOptions[O interface{ apply(*options) }](opts []O) *options {
	o := &options{}
	for _, opt := range opts {
		if any(opt) != nil {
			opt.apply(o)
		}
	}
	o.telemetry = actors.NewTelemetry(o.tracerProvider, o.meterProvider)
	return o
}
