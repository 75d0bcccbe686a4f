package attach

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// Locator finds the actor a facade speaks to: a supervisor, or anything
// that speaks package messages as one does. It is called when the link
// starts, and again whenever the actor is lost (its member left or died,
// or a call came back as a dead letter), so it may return a new PID each
// time: a cluster grain's current activation.
type Locator func(ctx context.Context) (*actor.PID, error)

// Config is what a [Link] is made of.
type Config struct {
	System *actor.ActorSystem
	Locate Locator
	// Grace is how long calls in flight still wait for their answers once
	// the actor they went to is reported lost.
	Grace  time.Duration
	Logger *zap.Logger
	// WatchTools makes the link watch the actor's tool list (every new
	// list reaches Owner.StoreTools).
	WatchTools bool
	Owner      link.Events
	// Release, if set, runs at the end of Close, once the link's own
	// goroutines have ended: a locator that has work of its own in flight
	// (package grid's cluster lookup) waits for it there.
	Release func()
}

// Follower is the NewLink of a link.Target for a link that locate finds
// the actor with, in system.
func Follower(system *actor.ActorSystem, locate Locator) func(link.Setup) link.Link {
	return func(s link.Setup) link.Link {
		return New(Config{System: system, Locate: locate, Grace: s.LossGrace, Logger: s.Logger,
			WatchTools: s.WatchTools, Owner: s.Events})
	}
}

var _ link.Link = (*Link)(nil)

// maxSends bounds how often one call bounced as a dead letter is sent to
// the actor's next home.
const maxSends = 3

// goneFor is how long a lost member's address is avoided while the lookup
// still names it: past it, it may be a new member on the same address.
const goneFor = 30 * time.Second

// relocateTimeout bounds a facade's own work after its actor moved or its
// list aged (locating it again, listing its tools), and how long a call
// with no deadline of its own may be sent to the actor's next home: as long
// as a connection attempt's default bound, which the listing on the next
// home may take.
const relocateTimeout = 30 * time.Second

// Link is a facade's way to a connection actor it did not spawn: it knows
// how to find the actor and which PID it is now, and it is the mailbox of
// every reply, which it hands to its Owner.
type Link struct {
	cfg    Config
	system *actor.ActorSystem
	owner  link.Events
	pid    *actor.PID // the link's own process: sender of every call, watcher
	// ctx bounds the link's own background work (relocation, refresh,
	// resending, the grace of a loss); Close cancels it.
	ctx     context.Context
	cancel  context.CancelFunc
	closed  atomic.Bool
	started atomic.Bool // Start has listed the tools once
	// bg counts the goroutines the link starts (see goOwned), which Close
	// waits for; bgMu orders their start against Close's wait.
	bgMu sync.Mutex
	bg   sync.WaitGroup

	mu     sync.Mutex
	target *actor.PID // nil once lost, until located again
	// gone holds the addresses of members reported lost, with when: a
	// cluster's lookup may go on naming a leaving member for a moment,
	// and a call sent there then may arrive as its remote shuts down,
	// neither answered nor bounced. Until the lookup names another home
	// (or goneFor passes), no call goes there.
	gone map[string]time.Time

	calls   sync.Mutex
	pending map[uint64]sentCall
	byReq   map[uint32]uint64 // sender RequestId → call ID
	nextReq uint32
}

// sentCall is a call sent and not yet answered: the call, where it went,
// how often, and the RequestId of its sender PID, which a dead letter
// answer carries.
type sentCall struct {
	msg   *messages.CallTool
	to    *actor.PID
	req   uint32
	sends int
	// resending: a goroutine is sending the call to the actor's next home;
	// another reason to resend it (a bounce, a hand-over) is the same one.
	resending bool
	// task is the id of the task the server answered the call with
	// (messages.CallTask), once known: a call whose connection is lost
	// then goes to the actor's next home to resume the task, not to fail.
	task string
	// anyHome: the call's next send may go to the home it left, if the
	// lookup still names it (a resumed task's call, whose connection may
	// have ended without its actor: a stdio child that died).
	anyHome bool
}

// New returns a link that has located nothing yet; [Link.Start] locates
// the actor.
func New(cfg Config) *Link {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	l := &Link{cfg: cfg, system: cfg.System, owner: cfg.Owner,
		pending: map[uint64]sentCall{}, byReq: map[uint32]uint64{}}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.pid, _ = l.system.ProcessRegistry.Add(l, "mcpattached$"+l.system.ProcessRegistry.NextId())
	return l
}

// AwaitReady locates the actor and asks it for its tools, which go to the
// Owner; the first time, with WatchTools, it watches the actor's list from
// then on. The error is the locator's, the wait's, or the actor's
// *messages.Failure.
func (l *Link) AwaitReady(ctx context.Context) (*messages.Ready, error) {
	pid, err := l.current(ctx)
	if err != nil {
		return nil, err
	}
	if l.started.Load() {
		return l.ask(ctx, pid, &messages.AwaitReady{})
	}
	r, err := l.refresh(ctx, pid)
	if err == nil {
		l.started.Store(true)
	}
	return r, err
}

// Reconnect asks the actor for a new connection now and returns its
// answer, as AwaitReady's.
func (l *Link) Reconnect(ctx context.Context) (*messages.Ready, error) {
	pid, err := l.current(ctx)
	if err != nil {
		return nil, err
	}
	return l.ask(ctx, pid, &messages.Reconnect{})
}

// Send sends call msg to the actor's current home, locating it if need
// be; its reply and progress go to the Owner.
func (l *Link) Send(ctx context.Context, msg *messages.CallTool) error {
	to, err := l.current(ctx)
	if err != nil {
		return err
	}
	// The link asks for the call's task id (messages.CallTask), to follow
	// the task if the member running it goes.
	m := tasks.With(msg, func(c *tasks.Call) { c.Want = true })
	l.calls.Lock()
	req := l.newReq()
	l.pending[msg.ID] = sentCall{msg: m, to: to, req: req, sends: 1}
	l.byReq[req] = msg.ID
	l.calls.Unlock()
	wire.Request(l.system, to, m, l.sender(req))
	return nil
}

// Cancel cancels call id where it was sent and forgets it.
func (l *Link) Cancel(id uint64) {
	l.calls.Lock()
	c, ok := l.take(id)
	l.calls.Unlock()
	to := c.to
	if !ok {
		l.mu.Lock()
		to = l.target
		l.mu.Unlock()
	}
	if to != nil {
		wire.Send(l.system, to, &messages.CancelCall{ID: id})
	}
}

// RefreshTools lists the tools again, the list's TTL past, without
// waiting; retry runs when the listing fails.
func (l *Link) RefreshTools(retry func()) {
	l.goOwned(func() {
		ctx, cancel := context.WithTimeout(l.ctx, relocateTimeout)
		defer cancel()
		pid, err := l.current(ctx)
		if err == nil {
			_, err = l.ask(ctx, pid, &messages.RefreshTools{})
		}
		if err != nil && l.ctx.Err() == nil { // a closed link retries nothing
			l.cfg.Logger.Warn("mcp tools/list failed; keeping the tools known", zap.Error(err))
			retry()
		}
	})
}

// goOwned runs f on a goroutine of the link's own, which Close cancels
// (through l.ctx) and waits for; once the link is closed it runs nothing
// and reports false.
func (l *Link) goOwned(f func()) bool {
	l.bgMu.Lock()
	defer l.bgMu.Unlock()
	if l.closed.Load() {
		return false
	}
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		f()
	}()
	return true
}

// Close stops watching the actor, and its tool list, ends the link's
// background work and waits for it, then runs Config.Release. The actor is
// its owner's to stop. Close may be called more than once; the first call
// does the work. It must not be called from the Owner's methods, which may
// run on the goroutines it waits for.
func (l *Link) Close() {
	l.bgMu.Lock()
	already := l.closed.Swap(true)
	l.bgMu.Unlock()
	if already {
		return
	}
	l.cancel()
	l.mu.Lock()
	pid := l.target
	l.target = nil
	l.mu.Unlock()
	if pid != nil {
		if proc, _ := l.system.ProcessRegistry.Get(pid); proc != nil {
			proc.SendSystemMessage(pid, &actor.Unwatch{Watcher: l.pid})
		}
		if l.cfg.WatchTools {
			wire.Request(l.system, pid, &messages.UnwatchTools{}, l.pid)
		}
	}
	l.bg.Wait()
	if l.cfg.Release != nil {
		l.cfg.Release()
	}
	l.system.ProcessRegistry.Remove(l.pid)
}

// current returns the actor's PID, locating it when it is not known.
func (l *Link) current(ctx context.Context) (*actor.PID, error) {
	return l.currentOtherThan(ctx, nil)
}

// currentOtherThan is current, never answering old: the home a call
// bounced off. It is the one relocation loop: a cluster may need a while
// to see that the old home is gone (until then its lookup finds nothing,
// or goes on naming it: a member leaving drains its grains before it
// leaves the lookup), so it tries again, with a doubling wait, until ctx
// ends.
func (l *Link) currentOtherThan(ctx context.Context, old *actor.PID) (*actor.PID, error) {
	l.mu.Lock()
	pid := l.target
	l.mu.Unlock()
	if pid != nil && (old == nil || !pid.Equal(old)) {
		return pid, nil
	}
	var err error
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		pid, err = l.cfg.Locate(ctx)
		if err == nil && pid == nil {
			err = errors.New("the locator found no actor")
		}
		if err == nil && old != nil && pid.Equal(old) {
			err = errors.New("the connection actor is gone and the locator found no other")
		}
		if err == nil {
			l.mu.Lock()
			gone := l.isGone(pid)
			l.mu.Unlock()
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
	l.mu.Lock()
	if l.target != nil && (old == nil || !l.target.Equal(old)) {
		pid = l.target // another caller located it first
		l.mu.Unlock()
		return pid, nil
	}
	l.target = pid
	l.mu.Unlock()
	// Watch it: its loss (a member leaving or dying) comes to the link.
	if proc, _ := l.system.ProcessRegistry.Get(pid); proc != nil {
		proc.SendSystemMessage(pid, &actor.Watch{Watcher: l.pid})
	}
	if l.started.Load() {
		// A new home: its session is a new one, its tools may differ.
		l.goOwned(func() {
			ctx, cancel := context.WithTimeout(l.ctx, relocateTimeout)
			defer cancel()
			if _, err := l.refresh(ctx, pid); err != nil {
				if l.ctx.Err() == nil {
					l.cfg.Logger.Warn("mcp connection relocated; its tools could not be listed", zap.Error(err))
				}
				return
			}
			l.cfg.Logger.Info("mcp connection relocated", zap.String("address", pid.Address))
			l.owner.Relocated()
		})
	}
	return pid, nil
}

// refresh asks the actor for its tools and keeps them; with WatchTools it
// watches the actor's list from then on.
func (l *Link) refresh(ctx context.Context, pid *actor.PID) (*messages.Ready, error) {
	r, err := l.ask(ctx, pid, &messages.AwaitReady{})
	if err != nil {
		return nil, err
	}
	if l.cfg.WatchTools {
		wire.Request(l.system, pid, &messages.WatchTools{}, l.pid)
	}
	return r, nil
}

// ask sends msg (AwaitReady, Reconnect or RefreshTools) to pid and keeps
// the tools of the answer; a Failure answer is the error.
func (l *Link) ask(ctx context.Context, pid *actor.PID, msg any) (*messages.Ready, error) {
	r, err := reply.AskReady(ctx, l.system, pid, msg, wire.Codec)
	switch {
	case errors.Is(err, reply.ErrGone):
		l.forget(pid)
	case err == nil:
		l.owner.StoreTools(r)
	}
	return r, err
}

// markGone notes that the member at address left, unless it is this one
// (an actor of this process that stopped says nothing of its neighbours).
func (l *Link) markGone(address string) {
	if address == l.system.Address() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gone == nil {
		l.gone = map[string]time.Time{}
	}
	l.gone[address] = time.Now()
}

// isGone reports whether pid is at the address of a member reported lost
// lately. Called with l.mu held.
func (l *Link) isGone(pid *actor.PID) bool {
	at, ok := l.gone[pid.Address]
	if ok && time.Since(at) > goneFor {
		delete(l.gone, pid.Address)
		return false
	}
	return ok
}

// forget drops pid as the target, if it still is: the next call locates.
func (l *Link) forget(pid *actor.PID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.target != nil && l.target.Equal(pid) {
		l.target = nil
		return true
	}
	return false
}
