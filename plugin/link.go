package plugin

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/messages"
)

// defaultLossGrace is how long calls in flight wait for their answers after
// the actor they went to is reported lost ([WithLossGrace]).
const defaultLossGrace = 4 * time.Second

// WithLossGrace sets how long a facade's calls in flight still wait for
// their answers once the actor they went to is reported lost (default 4
// seconds): a member leaving gracefully is reported before it
// has finished its calls, a member that died never finishes them. Past it
// such a call fails with [ErrInternal]; it is never sent again. It is an
// option of a facade (grid.Connect): a plugin that spawns its connection
// never loses it, and its Connect fails with [ErrValidation] for it.
func WithLossGrace(d time.Duration) Option {
	return newOption("WithLossGrace", facadeOnly, func(o *options) {
		o.LossGrace = d
	})
}

// follow returns a facade over the connection actor that t's link
// reaches (see package internal/core/link): plugin.Connect's way for a
// [link.Target]. opts are those of a facade: the options of calls, not
// those of the connection, which its host configures. [WithApproval] and
// [WithMaxResultBytes] act on this side; [WithProgress] and
// [WithIdleTimeout] travel with each call to the actor, whose connection
// sends the progress back and times the call out; with [WithToolRefresh]
// the link watches the actor's tool list and the facade asks for a new
// listing when the list's TTL has passed.
func follow(ctx context.Context, t link.Target, o *options) (*McpPlugin, error) {
	system, server, newLink := t.System, t.Server, t.NewLink
	if system == nil || newLink == nil {
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("a followed actor needs an actor system and a link")}
	}
	if o.System != nil && o.System != system {
		return nil, &Error{Kind: KindValidation, Server: server, Op: "connect",
			Err: errors.New("option WithActorSystem has no effect on a facade over a cluster's grain (its actor system is the cluster's)")}
	}
	o.System = system
	p := newFacade(server, server, o)
	grace := defaultLossGrace
	if o.LossGrace > 0 {
		grace = o.LossGrace
	}
	p.router = newCallRouter(system)
	p.conn = newLink(link.Setup{Events: (*linkEvents)(p), Logger: p.logger, LossGrace: grace, WatchTools: p.toolRefresh})
	if p.conn == nil {
		p.router.close()
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("the target's NewLink made no link")}
	}
	if o.Supervisor.Connection.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Supervisor.Connection.ConnectTimeout)
		defer cancel()
	}
	if _, err := p.conn.AwaitReady(ctx); err != nil {
		_ = p.Close()
		return nil, p.linkError("connect", err)
	}
	p.setState(actors.Ready, nil)
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

// linkEvents is the plugin as the link.Events of its link: the replies
// go to its router, the tools and the states the link observes to the
// plugin.
type linkEvents McpPlugin

func (e *linkEvents) Resolve(r *messages.CallToolReply) { e.router.resolve(r.ID, r) }
func (e *linkEvents) Progress(m *messages.CallProgress) { e.router.progress(m) }
func (e *linkEvents) Task(m *messages.CallTask)         { e.router.task(m) }
func (e *linkEvents) StoreTools(m *messages.Ready)      { (*McpPlugin)(e).storeTools(m) }
func (e *linkEvents) Relocated()                        { (*McpPlugin)(e).setState(actors.Ready, nil) }
func (e *linkEvents) Lost(cause error)                  { (*McpPlugin)(e).setState(actors.Reconnecting, cause) }

// localLink is the link to the actor a plugin spawned.
type localLink struct {
	system *actor.ActorSystem
	pid    *actor.PID // the plugin's top actor: supervisor or connection
	router *actor.PID // the sender of every call
	// direct is the connection actor while it is ready, for a plugin that
	// spawned its own supervisor: calls skip the supervisor's hop. Under
	// directMu: once setDirect has returned, no call is sent to the
	// connection it replaced, which the supervisor retires then (a retired
	// connection stops once its goroutines are done; what reached it
	// before comes back to the supervisor).
	directMu sync.RWMutex
	direct   *actor.PID
}

// setDirect is the supervisor's hostmsg.WatchDirect Notify.
func (l *localLink) setDirect(pid *actor.PID) {
	l.directMu.Lock()
	l.direct = pid
	l.directMu.Unlock()
}

var _ link.Link = (*localLink)(nil)

func (l *localLink) Send(_ context.Context, msg *messages.CallTool) error {
	l.directMu.RLock()
	to := l.pid
	if l.direct != nil {
		to = l.direct // ready: straight to the connection; reconnecting: queued by the supervisor
	}
	l.system.Root.RequestWithCustomSender(to, msg, l.router)
	l.directMu.RUnlock()
	return nil
}

// request sends a resource or prompt request as Send sends a call:
// straight to the ready connection, else to the top actor, which holds it
// while reconnecting.
func (l *localLink) request(msg *messages.ServerRequest) {
	l.directMu.RLock()
	to := l.pid
	if l.direct != nil {
		to = l.direct
	}
	l.system.Root.RequestWithCustomSender(to, msg, l.router)
	l.directMu.RUnlock()
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
