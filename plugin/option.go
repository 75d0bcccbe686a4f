package plugin

import (
	"fmt"

	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
)

// Option configures [Connect] and [ConnectStdio], and, passed on, a
// toolbox's servers (toolbox.WithPluginOptions), a facade over a cluster's
// grain (grid.Connect) and the grains of a cluster's kind
// (grid.WithPluginOptions). Each option's doc says where it takes effect;
// one given where it means nothing fails there with [ErrValidation]
// (grid.NewKind's grains answer every call with that error):
//
//   - the options of calls ([WithApproval], [WithProgress],
//     [WithIdleTimeout], [WithMaxResultBytes], [WithDefaultCallTimeout],
//     [WithCallTimeoutCap], [WithStatusHandler], [WithToolUIHandler])
//     everywhere but a kind;
//   - the options of the connection and its supervision
//     ([WithClientInfo], [WithClientOptions], [WithInputRequired],
//     [WithBackoff], [WithRestartBudget], [WithBreakerCoolDown],
//     [WithReconnectWait], [WithRetryIdempotent], [WithListChangeHandler],
//     [WithLegacyFallback])
//     everywhere but a facade,
//     whose connection its kind configures;
//   - [WithLogger], [WithActorSystem], [WithConnectTimeout],
//     [WithToolRefresh], [WithTasks] (a kind's drives the tasks, a
//     facade's bounds and detaches its calls) and the telemetry providers
//     everywhere;
//   - [WithSpawn], [WithoutSupervision] and [WithRetryConnect] in Connect
//     only (a toolbox sets them for its servers itself);
//   - [WithLossGrace] on a facade only (and a toolbox's over grains).
type Option interface {
	apply(*options)
}

// option is every [Option]: its name, where it takes effect and what it
// sets.
type option struct {
	name  string
	where pluginopt.Place
	set   func(*options)
}

// The places of the kinds of option.
const (
	local      = pluginopt.Local
	call       = pluginopt.Local | pluginopt.Server | pluginopt.Facade
	connection = pluginopt.Local | pluginopt.Server | pluginopt.Host
	common     = call | connection
	facadeOnly = pluginopt.Server | pluginopt.Facade
)

func newOption(name string, where pluginopt.Place, set func(*options)) Option {
	return option{name: name, where: where, set: set}
}

func (o option) apply(opts *options) { o.set(opts) }

// Into, Where and Name make an option a pluginopt.Option, for the module's
// packages that pass plugin options on (internal/core/pluginopt): Into
// keeps what the option sets of [pluginopt.Values], not what only this
// package reads.
func (o option) Into(v *pluginopt.Values) {
	opts := options{Values: *v}
	o.set(&opts)
	*v = opts.Values
}

func (o option) Where() pluginopt.Place { return o.where }
func (o option) Name() string           { return "plugin." + o.name }

// misplaced is the [ErrValidation] of the first of opts that does not take
// effect at where, or nil; what says where that is.
func misplaced(opts []Option, at pluginopt.Place, what string) error {
	if name := pluginopt.Misplaced(opts, at); name != "" {
		return &Error{Kind: KindValidation, Op: "connect", Err: fmt.Errorf("option %s has no effect on %s", name, what)}
	}
	return nil
}

// applyOptions applies opts in order over empty options and builds the
// telemetry they describe.
func applyOptions[O interface{ apply(*options) }](opts []O) *options {
	o := &options{}
	for _, opt := range opts {
		if any(opt) != nil {
			opt.apply(o)
			if s, ok := any(opt).(pluginopt.ResultCapSource); ok {
				o.maxResultSource = s.MaxResultSource() // a toolbox entry's cap
			}
		}
	}
	o.Finish()
	return o
}
