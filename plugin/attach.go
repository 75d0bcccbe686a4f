package plugin

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/messages"
)

// Locator finds the actor an attached facade speaks to (see [Attach]): a
// supervisor, or anything that speaks [messages] as one does. It is called
// at Attach, and again whenever the actor is lost (its member left or died,
// or a call came back as a dead letter), so it may return a new PID each
// time: a cluster grain's current activation.
type Locator = attach.Locator

// DefaultLossGrace is how long calls in flight wait for their answers after
// the actor they went to is reported lost ([WithLossGrace]).
const DefaultLossGrace = 4 * time.Second

// WithLossGrace sets how long an attached facade's calls in flight still
// wait for their answers once the actor they went to is reported lost
// (default [DefaultLossGrace]): a member leaving gracefully is reported
// before it has finished its calls, a member that died never finishes them.
// Past it such a call fails with [ErrInternal]; it is never sent again.
func WithLossGrace(d time.Duration) Option {
	return func(o *options) {
		o.note("WithLossGrace", roleFacade)
		o.lossGrace = d
	}
}

// Attach returns a facade over an MCP connection actor that the plugin did
// not spawn and that may live on another member of a protoactor cluster:
// locate finds it (package grid locates cluster grains). The facade has the
// same API and guarantees as one from [Connect]: Tools, CallTool futures,
// the hooks, error kinds, cancellation reaching the server. Messages to a
// remote actor travel in their wire forms (package messages). server names
// the server in errors.
//
// The host controls work as on a plugin from Connect: [WithApproval] and
// [WithMaxResultBytes] act on this side; [WithProgress] and
// [WithIdleTimeout] travel with each call to the hosting member, whose
// connection sends the progress back here and times the call out; with
// [WithToolRefresh] the facade watches the actor's tool list (every new
// list reaches it) and asks for a new listing when the list's TTL has
// passed. The hosting member subscribes to list_changed only if its
// connection was given WithToolRefresh too (package grid's NewKind).
//
// Attach returns once the actor has answered with its tools, or with its
// failure. When the actor is lost, calls in flight wait [WithLossGrace] for
// their answers and then fail with [ErrInternal]; a call that never reached
// it (a dead letter) is sent to its next home; the next call locates it
// again, and the tools are refreshed from there. Close leaves the actor
// running: its owner stops it.
//
// Deprecated: the facade over a cluster grain is package grid's: use
// grid.Connect. Attach builds the same facade.
func Attach(ctx context.Context, system *actor.ActorSystem, server string, locate Locator, opts ...Option) (*McpPlugin, error) {
	return attachFacade(ctx, system, server, locate, opts)
}

func init() {
	attach.Facade = func(ctx context.Context, system *actor.ActorSystem, server string, locate attach.Locator, opts any) (any, error) {
		o, _ := opts.([]Option)
		p, err := attachFacade(ctx, system, server, locate, o)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// attachFacade is [Attach]: a plugin whose link is an *attach.Link.
func attachFacade(ctx context.Context, system *actor.ActorSystem, server string, locate Locator, opts []Option) (*McpPlugin, error) {
	if system == nil || locate == nil {
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("Attach needs an actor system and a locator")}
	}
	o := applyOptions(opts)
	if err := o.misplaced(roleFacade, server, "connect"); err != nil {
		return nil, err
	}
	o.system = system
	p := newFacade(server, server, o)
	grace := DefaultLossGrace
	if o.lossGrace > 0 {
		grace = o.lossGrace
	}
	p.router = newCallRouter(system)
	l := attach.New(attach.Config{System: system, Locate: locate, Grace: grace, Logger: p.logger,
		WatchTools: p.toolRefresh, Owner: (*linkOwner)(p)})
	p.conn = l
	if err := l.Start(ctx); err != nil {
		_ = p.Close()
		var f *messages.Failure
		if errors.As(err, &f) {
			return nil, p.failure(f)
		}
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: err}
	}
	p.setState(StateReady, nil)
	return p, nil
}

// linkOwner is the plugin as the Owner of its *attach.Link: the replies go
// to its router, the tools and the states the link observes to the plugin.
type linkOwner McpPlugin

func (o *linkOwner) Resolve(id uint64, msg any)        { o.router.resolve(id, msg) }
func (o *linkOwner) Progress(m *messages.CallProgress) { o.router.progress(m) }
func (o *linkOwner) StoreTools(m *messages.Ready)      { (*McpPlugin)(o).storeTools(m) }
func (o *linkOwner) Relocated()                        { (*McpPlugin)(o).setState(StateReady, nil) }
func (o *linkOwner) Lost(cause error)                  { (*McpPlugin)(o).setState(StateReconnecting, cause) }

// Both ways to a connection are links.
var (
	_ link = (*localLink)(nil)
	_ link = (*attach.Link)(nil)
)
