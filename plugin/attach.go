package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/messages"
)

// Locator finds the actor an attached facade speaks to (see [Attach]): a
// supervisor, or anything that speaks [messages] as one does. It is called
// at Attach, and again whenever the actor is lost (its member left or died,
// or a call came back as a dead letter), so it may return a new PID each
// time: a cluster grain's current activation.
type Locator func(ctx context.Context) (*actor.PID, error)

// DefaultLossGrace is how long calls in flight wait for their answers after
// the actor they went to is reported lost ([WithLossGrace]).
const DefaultLossGrace = 4 * time.Second

// maxSends bounds how often one call bounced as a dead letter is sent to
// the actor's next home.
const maxSends = 3

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

// attachment is what a facade over an actor it did not spawn needs: how to
// find the actor, and which PID it is now.
type attachment struct {
	p      *McpPlugin
	locate Locator
	grace  time.Duration
	// ctx bounds the facade's own background work (relocation, refresh);
	// close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	target *actor.PID // nil once lost, until located again
	// gone holds the addresses of members reported lost, with when: a
	// cluster's lookup may go on naming a leaving member for a moment,
	// and a call sent there then may arrive as its remote shuts down,
	// neither answered nor bounced. Until the lookup names another home
	// (or goneFor passes), no call goes there.
	gone map[string]time.Time
}

// goneFor is how long a lost member's address is avoided while the lookup
// still names it: past it, it may be a new member on the same address.
const goneFor = 30 * time.Second

// relocateTimeout bounds a facade's own work after its actor moved or its
// list aged (locating it again, listing its tools), and how long a call
// with no deadline of its own may be sent to the actor's next home.
const relocateTimeout = actors.DefaultConnectTimeout

// markGone notes that the member at address left, unless it is this one
// (an actor of this process that stopped says nothing of its neighbours).
func (a *attachment) markGone(address string) {
	if address == a.p.system.Address() {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gone == nil {
		a.gone = map[string]time.Time{}
	}
	a.gone[address] = time.Now()
}

// isGone reports whether pid is at the address of a member reported lost
// lately. Called with a.mu held.
func (a *attachment) isGone(pid *actor.PID) bool {
	at, ok := a.gone[pid.Address]
	if ok && time.Since(at) > goneFor {
		delete(a.gone, pid.Address)
		return false
	}
	return ok
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
func Attach(ctx context.Context, system *actor.ActorSystem, server string, locate Locator, opts ...Option) (*McpPlugin, error) {
	if system == nil || locate == nil {
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: errors.New("Attach needs an actor system and a locator")}
	}
	o := applyOptions(opts)
	if err := o.misplaced(roleFacade, server, "connect"); err != nil {
		return nil, err
	}
	o.system = system
	p := newFacade(server, server, o)
	p.att = &attachment{p: p, locate: locate, grace: DefaultLossGrace}
	p.att.ctx, p.att.cancel = context.WithCancel(context.Background())
	if o.lossGrace > 0 {
		p.att.grace = o.lossGrace
	}
	p.router = newCallRouter(system, p.att)
	pid, err := p.att.current(ctx)
	if err == nil {
		err = p.att.refresh(ctx, pid)
	}
	if err != nil {
		_ = p.Close()
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{Kind: KindInternal, Server: server, Op: "connect", Err: err}
	}
	p.setState(StateReady, nil)
	return p, nil
}

// current returns the actor's PID, locating it when it is not known.
func (a *attachment) current(ctx context.Context) (*actor.PID, error) {
	return a.currentOtherThan(ctx, nil)
}

// currentOtherThan is current, never answering old: the home a call
// bounced off. It is the one relocation loop: a cluster may need a while
// to see that the old home is gone (until then its lookup finds nothing,
// or goes on naming it: a member leaving drains its grains before it
// leaves the lookup), so it tries again, with a doubling wait, until ctx
// ends.
func (a *attachment) currentOtherThan(ctx context.Context, old *actor.PID) (*actor.PID, error) {
	a.mu.Lock()
	pid := a.target
	a.mu.Unlock()
	if pid != nil && (old == nil || !pid.Equal(old)) {
		return pid, nil
	}
	var err error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		pid, err = a.locate(ctx)
		if err == nil && pid == nil {
			err = errors.New("the locator found no actor")
		}
		if err == nil && old != nil && pid.Equal(old) {
			err = errors.New("the connection actor is gone and the locator found no other")
		}
		if err == nil {
			a.mu.Lock()
			gone := a.isGone(pid)
			a.mu.Unlock()
			if !gone {
				break
			}
			err = errors.New("the locator still names the member that was lost, " + pid.Address)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("locating the connection: %w (%w)", err, ctx.Err())
		case <-time.After(wait):
		}
	}
	a.mu.Lock()
	if a.target != nil && (old == nil || !a.target.Equal(old)) {
		pid = a.target // another caller located it first
		a.mu.Unlock()
		return pid, nil
	}
	a.target = pid
	known := a.p.status.Load().State != StateConnecting
	a.mu.Unlock()
	// Watch it: its loss (a member leaving or dying) comes to the router.
	if proc, _ := a.p.system.ProcessRegistry.Get(pid); proc != nil {
		proc.SendSystemMessage(pid, &actor.Watch{Watcher: a.p.router.pid})
	}
	if known {
		// A new home: its session is a new one, its tools may differ.
		go func() {
			ctx, cancel := context.WithTimeout(a.ctx, relocateTimeout)
			defer cancel()
			if err := a.refresh(ctx, pid); err != nil {
				a.p.logger.Warn("mcp connection relocated; its tools could not be listed", zap.Error(err))
				return
			}
			a.p.logger.Info("mcp connection relocated", zap.String("address", pid.Address))
			a.p.setState(StateReady, nil)
		}()
	}
	return pid, nil
}

// refresh asks the actor for its tools and keeps them; with
// WithToolRefresh it watches the actor's list from then on.
func (a *attachment) refresh(ctx context.Context, pid *actor.PID) error {
	if err := a.ask(ctx, pid, &messages.AwaitReady{}); err != nil {
		return err
	}
	if a.p.toolRefresh {
		a.p.system.Root.RequestWithCustomSender(pid, &messages.WatchTools{}, a.p.router.pid)
	}
	return nil
}

// ask sends msg (AwaitReady or RefreshTools) to pid and keeps the tools of
// the answer.
func (a *attachment) ask(ctx context.Context, pid *actor.PID, msg any) error {
	r := newReplyProcess(a.p.system)
	a.p.system.Root.RequestWithCustomSender(pid, msg, r.pid)
	reply, err := r.wait(ctx)
	if err != nil {
		return err
	}
	switch m := reply.(type) {
	case *messages.Ready:
		a.p.storeTools(m)
		return nil
	case *messages.Failure:
		return a.p.failure(m)
	case *actor.DeadLetterResponse:
		a.forget(pid)
		return errors.New("the connection actor is gone")
	default:
		return fmt.Errorf("%w: %T", errUnexpectedReply, reply)
	}
}

// forget drops pid as the target, if it still is: the next call locates.
func (a *attachment) forget(pid *actor.PID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.target != nil && a.target.Equal(pid) {
		a.target = nil
		return true
	}
	return false
}

// lost runs when the watched actor is reported gone: the next call locates
// it again, and the calls that went to it get the grace to be answered.
func (a *attachment) lost(who *actor.PID) {
	if a.p.closed.Load() || !a.forget(who) {
		return
	}
	a.markGone(who.Address)
	a.p.logger.Warn("mcp connection lost; calls in flight get a grace period",
		zap.String("address", who.Address), zap.Duration("grace", a.grace))
	a.p.setState(StateReconnecting, errors.New("the member hosting the connection is gone: "+who.Address))
	r := a.p.router
	r.mu.Lock()
	var ids []uint64
	for id, c := range r.pending {
		if c.to != nil && c.to.Equal(who) {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	time.AfterFunc(a.grace, func() {
		for _, id := range ids {
			r.mu.Lock()
			c, ok := r.pending[id]
			if ok && c.to.Equal(who) {
				r.take(id)
			}
			r.mu.Unlock()
			if ok && c.to.Equal(who) {
				c.ch <- &messages.CallToolReply{ID: id, Failure: &messages.Failure{
					Kind: messages.FailureInternal, Op: messages.CallOp(c.msg.Name), Cause: messages.CauseConnectionLost,
					Message: fmt.Sprintf("call in flight when the member hosting the connection (%s) was lost; no answer within %s", who.Address, a.grace),
				}}
			}
		}
	})
}

// handedOver runs when the actor at from's address says it has stopped and
// answered all it received: the calls still waiting for it never reached
// its connection, so they go to the actor's next home, and no call goes to
// that address while the lookup still names it.
func (a *attachment) handedOver(from *actor.PID) {
	if a.p.closed.Load() {
		return
	}
	a.markGone(from.Address)
	a.mu.Lock()
	if a.target != nil && a.target.Address == from.Address {
		a.target = nil
	}
	a.mu.Unlock()
	r := a.p.router
	r.mu.Lock()
	var ids []uint64
	for id, c := range r.pending {
		if c.to != nil && c.to.Address == from.Address {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	for _, id := range ids {
		go a.resend(id)
	}
}

// resend sends call id, which came back as a dead letter (or was left
// unanswered by an actor that handed over) and so never reached the
// actor's connection, to the actor's current home, under a new RequestId:
// a late bounce of the old send is then no reason to send it again.
func (a *attachment) resend(id uint64) {
	r := a.p.router
	r.mu.Lock()
	c, ok := r.pending[id]
	if ok && c.resending {
		ok = false // being sent already
	} else if ok {
		c.resending = true
		r.pending[id] = c
	}
	r.mu.Unlock()
	if !ok || a.p.closed.Load() {
		return
	}
	a.forget(c.to)
	fail := func(why string) {
		r.resolve(id, &messages.CallToolReply{ID: id, Failure: &messages.Failure{
			Kind: messages.FailureInternal, Op: messages.CallOp(c.msg.Name), Message: why,
		}})
	}
	if c.sends >= maxSends {
		fail(fmt.Sprintf("the connection actor was gone %d times in a row", c.sends))
		return
	}
	deadline := time.Now().Add(relocateTimeout)
	if !c.msg.Deadline.IsZero() {
		deadline = c.msg.Deadline
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// The home the call bounced off is gone: the next one.
	pid, err := a.currentOtherThan(ctx, c.to)
	if err != nil {
		fail(err.Error())
		return
	}
	r.mu.Lock()
	c, ok = r.pending[id]
	if ok {
		delete(r.byReq, c.req)
		c.req = r.newReq()
		r.byReq[c.req] = id
		c.to, c.sends, c.resending = pid, c.sends+1, false
		r.pending[id] = c
	}
	r.mu.Unlock()
	if ok {
		a.p.system.Root.RequestWithCustomSender(pid, c.msg, r.sender(c.req))
	}
}

// close stops watching the actor, and its tool list, and ends the
// facade's background work.
func (a *attachment) close() {
	a.cancel()
	a.mu.Lock()
	pid := a.target
	a.target = nil
	a.mu.Unlock()
	if pid == nil {
		return
	}
	if proc, _ := a.p.system.ProcessRegistry.Get(pid); proc != nil {
		proc.SendSystemMessage(pid, &actor.Unwatch{Watcher: a.p.router.pid})
	}
	if a.p.toolRefresh {
		a.p.system.Root.RequestWithCustomSender(pid, &messages.UnwatchTools{}, a.p.router.pid)
	}
}
