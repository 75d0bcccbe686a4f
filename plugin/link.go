package plugin

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/messages"
)

// Link is how a plugin reaches its connection actor, wherever it lives. A
// plugin from [Connect] speaks to the supervisor it spawned; a
// facade from [Follow] speaks through the Link its caller gives it (package
// grid's follows a cluster grain from member to member). Replies and
// progress of calls, tool lists and what the link observes go to the
// facade's [LinkEvents].
type Link interface {
	// Send sends a call; its reply goes to LinkEvents.Resolve. The error
	// says the call could not be sent (no actor found).
	Send(ctx context.Context, call *messages.CallTool) error
	// Cancel cancels call id on the connection.
	Cancel(id uint64)
	// AwaitReady waits for the connection's tools: the *messages.Ready
	// answer, or an error (a *messages.Failure when the actor answered
	// with one). The tools of a Ready answer go to LinkEvents.StoreTools
	// as well, for a link whose events do not come with its answers.
	AwaitReady(ctx context.Context) (*messages.Ready, error)
	// Reconnect asks for a new connection now and waits for its outcome,
	// answered as AwaitReady's.
	Reconnect(ctx context.Context) (*messages.Ready, error)
	// RefreshTools asks for a new listing, its TTL past, without waiting
	// for it; retry runs if the listing is known to have failed.
	RefreshTools(retry func())
	// Close lets go of the actor: a local one is stopped, one elsewhere
	// is its owner's to stop.
	Close()
}

// LinkEvents is the facade a [Link] serves: what arrives over the link
// goes to it. Its methods do not block and may be called from any
// goroutine.
type LinkEvents interface {
	// Resolve answers the call r.ID with r, if the facade still waits.
	Resolve(r *messages.CallToolReply)
	// Progress passes on a progress notification of a call.
	Progress(m *messages.CallProgress)
	// StoreTools keeps the tool list of m.
	StoreTools(m *messages.Ready)
	// Lost says the actor was lost (the facade is reconnecting, cause
	// the reason); Relocated that it was found again and listed (ready).
	Lost(cause error)
	Relocated()
}

// LinkSetup is what [Follow] gives the function that makes its [Link]:
// where the link's events go and the facade's options that govern it.
type LinkSetup struct {
	Events LinkEvents
	// Logger is the facade's logger (a no-op one without [WithLogger]).
	Logger *zap.Logger
	// LossGrace is how long calls in flight still wait for their answers
	// once the actor they went to is reported lost ([WithLossGrace]).
	LossGrace time.Duration
	// WatchTools asks the link to watch the actor's tool list, every new
	// list going to Events.StoreTools ([WithToolRefresh]).
	WatchTools bool
}

// DefaultLossGrace is how long calls in flight wait for their answers after
// the actor they went to is reported lost ([WithLossGrace]).
const DefaultLossGrace = 4 * time.Second

// WithLossGrace sets how long a facade's calls in flight still wait for
// their answers once the actor they went to is reported lost (default
// [DefaultLossGrace]): a member leaving gracefully is reported before it
// has finished its calls, a member that died never finishes them. Past it
// such a call fails with [ErrInternal]; it is never sent again. It is an
// option of [Follow], for its [Link] ([LinkSetup.LossGrace]).
func WithLossGrace(d time.Duration) FacadeServerOption {
	return facadeOnlyOption(func(o *options) {
		o.lossGrace = d
	})
}

// Follow returns a facade over an MCP connection actor that the plugin did
// not spawn and that may live on another member of a protoactor cluster:
// newLink makes the [Link] that reaches it (package grid's follows a
// cluster grain), given the facade's [LinkSetup]. The facade has the same
// API and guarantees as one from [Connect]: Tools, CallTool futures, the
// hooks, error kinds, cancellation reaching the server. system is the
// facade's actor system; server names the server in errors.
//
// opts are [FacadeOption]s: the options of calls, not those of the
// connection, which its host configures. The host
// controls work as on a plugin from Connect: [WithApproval] and
// [WithMaxResultBytes] act on this side; [WithProgress] and
// [WithIdleTimeout] travel with each call to the actor, whose connection
// sends the progress back and times the call out; with [WithToolRefresh]
// the link watches the actor's tool list and the facade asks for a new
// listing when the list's TTL has passed.
//
// Follow returns once the link's AwaitReady has answered with the tools,
// or fails with its failure. Close closes the link, which leaves the actor
// running: its owner stops it.
func Follow(ctx context.Context, system *actor.ActorSystem, server string, newLink func(LinkSetup) Link, opts ...FacadeOption) (*McpPlugin, error) {
	o := applyOptions(opts)
	if system == nil || newLink == nil {
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("Follow needs an actor system and a link")}
	}
	o.system = system
	p := newFacade(server, server, o)
	grace := DefaultLossGrace
	if o.lossGrace > 0 {
		grace = o.lossGrace
	}
	p.router = newCallRouter(system)
	p.conn = newLink(LinkSetup{Events: (*linkEvents)(p), Logger: p.logger, LossGrace: grace, WatchTools: p.toolRefresh})
	if p.conn == nil {
		p.router.close()
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("the newLink given to plugin.Follow made no link")}
	}
	if o.connectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.connectTimeout)
		defer cancel()
	}
	if _, err := p.conn.AwaitReady(ctx); err != nil {
		_ = p.Close()
		return nil, p.linkError("connect", err)
	}
	p.setState(StateReady, nil)
	return p, nil
}

// linkError is the error of a link's AwaitReady or Reconnect: the
// actor's failure as its [*Error], anything else as an internal one.
func (p *McpPlugin) linkError(op string, err error) error {
	var f *messages.Failure
	if errors.As(err, &f) {
		return p.failure(f)
	}
	return &Error{Kind: KindInternal, Server: p.server, Op: op, Err: err}
}

// linkEvents is the plugin as the [LinkEvents] of its link: the replies
// go to its router, the tools and the states the link observes to the
// plugin.
type linkEvents McpPlugin

func (e *linkEvents) Resolve(r *messages.CallToolReply) { e.router.resolve(r.ID, r) }
func (e *linkEvents) Progress(m *messages.CallProgress) { e.router.progress(m) }
func (e *linkEvents) StoreTools(m *messages.Ready)      { (*McpPlugin)(e).storeTools(m) }
func (e *linkEvents) Relocated()                        { (*McpPlugin)(e).setState(StateReady, nil) }
func (e *linkEvents) Lost(cause error)                  { (*McpPlugin)(e).setState(StateReconnecting, cause) }

// localLink is the link to the actor a plugin spawned.
type localLink struct {
	system *actor.ActorSystem
	pid    *actor.PID // the plugin's top actor: supervisor or connection
	router *actor.PID // the sender of every call
	// direct is the connection actor while it is ready, for a plugin that
	// spawned its own supervisor: calls skip the supervisor's hop.
	direct atomic.Pointer[actor.PID]
}

var _ Link = (*localLink)(nil)

func (l *localLink) Send(_ context.Context, msg *messages.CallTool) error {
	to := l.pid
	if d := l.direct.Load(); d != nil {
		to = d // ready: straight to the connection; reconnecting: queued by the supervisor
	}
	l.system.Root.RequestWithCustomSender(to, msg, l.router)
	return nil
}

func (l *localLink) Cancel(id uint64) { l.system.Root.Send(l.pid, &messages.CancelCall{ID: id}) }

func (l *localLink) AwaitReady(ctx context.Context) (*messages.Ready, error) {
	return l.ask(ctx, &messages.AwaitReady{})
}

func (l *localLink) Reconnect(ctx context.Context) (*messages.Ready, error) {
	return l.ask(ctx, &messages.Reconnect{})
}

// ask sends msg (AwaitReady, Reconnect) and reads the answer: the tools
// are stored already (the supervisor's OnReady), a failure is the error.
func (l *localLink) ask(ctx context.Context, msg any) (*messages.Ready, error) {
	return reply.AskReady(ctx, l.system, l.pid, msg, reply.Codec{})
}

// RefreshTools asks the connection, which publishes the listing, failed or
// not, through the same callback as its first list: storeTools.
func (l *localLink) RefreshTools(func()) { l.system.Root.Send(l.pid, &messages.RefreshTools{}) }

// Close stops the actor. Stop is a system message: it overtakes queued
// calls, which the stopped actor drops; the plugin's done answers their
// futures.
func (l *localLink) Close() { _ = l.system.Root.StopFuture(l.pid).Wait() }
