package toolbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// lazyState is how a lazy server starts on first call and stops when idle.
type lazyState struct {
	startMu  sync.Mutex
	starting chan struct{} // closed when the start under way ends; nil if none
	starts   int           // how many times it was started, to name its actor
	idle     *time.Timer   // the stopWhenIdle timer, nil if none

	lastUse  atomic.Int64 // unix nanoseconds of the latest request's start or end
	inflight atomic.Int64 // requests held by busy

	// Under Toolbox.mu: the breaker of a lazy start that failed. Until
	// retryAt a call fails at once with startErr; then one start is tried.
	retryAt  time.Time
	coolDown time.Duration // the latest cool-down; doubles per failed start
}

// Cool-downs of a lazy server whose start failed, unless the plugin
// options set them (plugin.WithBreakerCoolDown): the first is
// lazyCoolDown, each next one twice the last, up to lazyMaxCoolDown; a
// start that succeeds resets them.
const (
	lazyCoolDown    = 7500 * time.Millisecond
	lazyMaxCoolDown = time.Hour
)

// ErrUnknownServer is wrapped by the error of [Toolbox.Start] and
// [Toolbox.AcceptTools] for a name that is no enabled server.
var ErrUnknownServer = errors.New("toolbox: no such server")

// Start starts the lazy server now, as its first call would, and waits
// until it is ready or its connect timeout (or ctx) ends. A server that is
// not lazy, or already started, is left as it is. Once up, its tool list
// replaces the manifest's.
func (t *Toolbox) Start(ctx context.Context, server string) error {
	s := t.servers[server]
	if s == nil {
		return fmt.Errorf("%w: %q", ErrUnknownServer, server)
	}
	_, err := t.startedAndReady(ctx, s)
	return err
}

// connectTimeout is the server's connect timeout: its entry's, else
// that of the plugin options, read at Open.
func (t *Toolbox) connectTimeout(sc *mcpconfig.Server) time.Duration {
	if sc.ConnectTimeout > 0 {
		return sc.ConnectTimeout
	}
	return t.opts.connectTimeout
}

// errStartTimeout is the cause of a lazy start's wait that its connect
// timeout ended (rather than the caller's ctx).
var errStartTimeout = errors.New("toolbox: the connect timeout ended")

// startedAndReady returns the lazy server s's plugin once it is ready,
// starting it if it has none. The wait, for the start and then for the
// connection, ends by the connect timeout or ctx, whichever is first, and
// its error says which; a server whose connection failed (within its
// restart budget, or its breaker open) fails at once with that failure.
func (t *Toolbox) startedAndReady(ctx context.Context, s *server) (*plugin.McpPlugin, error) {
	wctx, cancel := context.WithTimeoutCause(ctx, t.connectTimeout(s.cfg), errStartTimeout)
	defer cancel()
	p, err := t.ensureStarted(wctx, s)
	if err != nil {
		return nil, t.startWaitError(ctx, wctx, s, err)
	}
	if p.Status().State == actors.Ready {
		return p, nil
	}
	if err := p.WaitReady(wctx); err != nil {
		if s.lazy {
			// The plugin may report its failure a moment before the start
			// that owns it concludes and opens the breaker: wait for that.
			if ch := s.startUnderway(); ch != nil {
				select {
				case <-ch:
				case <-wctx.Done():
				}
			}
			t.mu.Lock()
			breaker := s.startErr
			t.mu.Unlock()
			if breaker != nil && s.plugin() != p {
				return nil, breaker // the start failed under this wait: the breaker's error
			}
		}
		return nil, t.startWaitError(ctx, wctx, s, err)
	}
	return p, nil
}

// startUnderway returns the channel that closes when s's lazy start under
// way concludes (its breaker opened or its plugin kept), or nil if none is.
func (s *server) startUnderway() chan struct{} {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.starting
}

// startWaitError is err, the failure of a wait for a lazy start under
// wctx (ctx bounded by the connect timeout), saying which bound ended it
// when one did.
func (t *Toolbox) startWaitError(ctx, wctx context.Context, s *server, err error) error {
	if wctx.Err() == nil {
		return err // the server's own failure: its connection, its breaker
	}
	srv := fmt.Sprintf("server %q", s.cfg.Name)
	if ctx.Err() != nil {
		return &plugin.Error{Kind: plugin.KindInternal, Server: srv, Op: "start",
			Err: fmt.Errorf("toolbox: the call's ctx ended before the lazy server was ready: %w", context.Cause(ctx))}
	}
	return &plugin.Error{Kind: plugin.KindInternal, Server: srv, Op: "start",
		Err: fmt.Errorf("toolbox: the lazy server was not ready within the connect timeout of %s (the call's ctx had time left)", t.connectTimeout(s.cfg))}
}

// ensureStarted returns s's plugin, starting it if s is lazy and has none:
// one start at a time, which every caller that arrives meanwhile waits
// for, bounded by the connect timeout and its own ctx.
func (t *Toolbox) ensureStarted(ctx context.Context, s *server) (*plugin.McpPlugin, error) {
	if p := s.plugin(); p != nil {
		return p, nil
	}
	if !s.lazy {
		t.mu.Lock()
		err := s.startErr
		t.mu.Unlock()
		if err == nil {
			err = errors.New("toolbox: the server was not started")
		}
		return nil, err
	}
	s.startMu.Lock()
	if p := s.plugin(); p != nil {
		s.startMu.Unlock()
		return p, nil
	}
	if s.starting == nil {
		t.mu.Lock()
		err, wait := s.startErr, time.Until(s.retryAt)
		t.mu.Unlock()
		if err != nil && wait > 0 {
			s.startMu.Unlock()
			return nil, err // the breaker is open: no start before its cool-down
		}
		if t.closed.Load() {
			// No start under way is left behind: Close waits for one.
			s.startMu.Unlock()
			return nil, &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "start", Err: errors.New("toolbox: closed")}
		}
		s.starting = make(chan struct{})
		s.starts++
		go t.startLazy(s, s.starting, s.starts)
	}
	done := s.starting
	s.startMu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "start",
			Err: fmt.Errorf("toolbox: waiting for the lazy server to start: %w", context.Cause(ctx))}
	}
	t.mu.Lock()
	err := s.startErr
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if p := s.plugin(); p != nil {
		return p, nil
	}
	if err == nil {
		err = &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "start", Err: errors.New("toolbox: closed")}
	}
	return nil, err
}

// startLazy starts s (the n-th time) and waits, at most the connect
// timeout, for its first connection; its status handler then rebuilds the
// table with the real list. A server whose connection fails keeps its
// plugin, whose supervisor retries as for any server.
func (t *Toolbox) startLazy(s *server, done chan struct{}, n int) {
	name := s.cfg.Name
	ctx, cancel := context.WithTimeout(context.Background(), t.connectTimeout(s.cfg))
	defer cancel()
	var p *plugin.McpPlugin
	var err error
	if t.opts.remote != nil {
		p, err = t.attach(ctx, name, s)
	} else {
		actorName := name
		if n > 1 {
			actorName = fmt.Sprintf("%s~%d", name, n) // the stopped one's name may linger
		}
		p, err = t.startLocal(name, s, actorName)
	}
	if p != nil {
		s.p.Store(p)
		// Close closes what it finds; what it may have missed is closed here.
		if t.closed.Load() {
			s.p.CompareAndSwap(p, nil)
			_ = p.Close()
			p, err = nil, &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", name), Op: "start", Err: errors.New("toolbox: closed")}
		}
	}
	failed := p // a plugin whose start failed, closed once the breaker is open
	if p != nil && t.opts.remote == nil {
		// Attach has waited already. A start that fails is not retried
		// in the background: the breaker opens (see openBreaker).
		if werr := p.WaitReady(ctx); werr != nil && !t.closed.Load() {
			if ctx.Err() != nil {
				werr = fmt.Errorf("toolbox: the lazy server was not ready within the connect timeout of %s: %w", t.connectTimeout(s.cfg), werr)
			}
			p, err = nil, werr
		}
	}
	t.mu.Lock()
	if err != nil {
		err = s.openBreaker(name, err, t.opts.coolDown, t.opts.maxCoolDown)
	} else {
		s.coolDown, s.retryAt = 0, time.Time{}
	}
	s.startErr = err
	t.mu.Unlock()
	if p == nil && failed != nil && s.p.CompareAndSwap(failed, nil) {
		_ = failed.Close() // after startErr is set: a call waiting on it reads the breaker's error
	}
	if p != nil {
		t.logger.Info("mcp server started on first use", zap.String("mcp_server", name))
		s.lastUse.Store(time.Now().UnixNano()) // idle from now, not from the call that started it
		t.serverChanged()
	} else if err != nil {
		t.statusChanged()
	}
	s.startMu.Lock()
	s.starting = nil
	s.startMu.Unlock()
	close(done)
	if err != nil {
		t.logger.Warn("mcp server did not start", zap.String("mcp_server", name), zap.Error(err))
	}
}

// openBreaker opens the breaker of the lazy server s whose start failed
// with cause, under Toolbox.mu: calls fail at once with the error it
// returns, which wraps [plugin.ErrCircuitOpen] and cause, until the
// cool-down's end, when the next call tries one start.
func (s *server) openBreaker(name string, cause error, first, longest time.Duration) error {
	if errors.Is(cause, plugin.ErrCircuitOpen) || s.closedErr(cause) {
		return cause
	}
	if first <= 0 {
		first = lazyCoolDown
	}
	if longest <= 0 {
		longest = lazyMaxCoolDown
	}
	s.coolDown = min(max(2*s.coolDown, first), max(longest, first))
	s.retryAt = time.Now().Add(s.coolDown)
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", name), Op: "start",
		Err: fmt.Errorf("%w: the lazy server's start failed; the next call after %s tries again: %w", plugin.ErrCircuitOpen, s.coolDown, cause)}
}

// closedErr reports whether err is the toolbox's closing, which is no
// failure of the server.
func (s *server) closedErr(err error) bool {
	var pe *plugin.Error
	return errors.As(err, &pe) && pe.Op == "start" && pe.Err != nil && pe.Err.Error() == "toolbox: closed"
}

// callable returns the plugin to call r (found in table rt) on, starting
// a lazy server. When the table has changed since (a lazy server's start
// replaced its manifest's list with the real one), r is checked against
// the new one: a tool the server no longer has fails with
// [ErrUnknownTool], naming it, and one that pinning now holds out with
// [plugin.ErrDenied].
func (t *Toolbox) callable(ctx context.Context, rt *routeTable, r *route) (*plugin.McpPlugin, error) {
	s := r.server
	p := s.plugin()
	// A lazy server's connection still coming up: the call waits for it
	// at most the connect timeout, not the plugin's reconnect wait.
	// A start not yet concluded counts as connecting too: its plugin may
	// have failed already, and the breaker is about to answer for it.
	connecting := s.lazy && p != nil && (p.Status().State == actors.Connecting || s.startUnderway() != nil)
	if p != nil && !connecting && t.routes.Load() == rt {
		return p, nil
	}
	if s.lazy && (p == nil || connecting) {
		// A call waiting for a lazy start waits at most the connect
		// timeout, and fails at once when the start failed.
		var err error
		if p, err = t.startedAndReady(ctx, s); err != nil {
			return nil, err
		}
	} else if p == nil {
		var err error
		if p, err = t.ensureStarted(ctx, s); err != nil {
			return nil, err
		}
	}
	rt = t.routes.Load()
	if now := rt.byName[r.name]; now != nil && now.server == s && now.tool == r.tool {
		return p, nil
	}
	if d := rt.denied[r.name]; d != nil && d.server == s {
		return nil, d.deny
	}
	return nil, &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: messages.CallOp(r.name),
		Err: fmt.Errorf("%w: server %q no longer has tool %q (its list changed since the call was routed)", ErrUnknownTool, s.cfg.Name, r.tool)}
}

// busy marks a request to the lazy server s under way, until the
// returned func is called (once): stopWhenIdle never stops a server while
// one is, and the request's start and end count as uses. A server that is
// not lazy, or has no stopWhenIdle, is never stopped for idleness: busy
// returns a no-op. Under startMu, as idleCheck's decision: a request
// either holds the server before idleCheck looks, or finds it stopped
// (and starts it).
func (t *Toolbox) busy(s *server) (done func()) {
	if !s.lazy || s.cfg.StopWhenIdle <= 0 {
		return func() {}
	}
	s.startMu.Lock()
	s.inflight.Add(1)
	s.lastUse.Store(time.Now().UnixNano())
	if s.idle == nil && !t.closed.Load() {
		s.idle = time.AfterFunc(s.cfg.StopWhenIdle, func() { t.idleCheck(s) })
	}
	s.startMu.Unlock()
	return func() {
		s.lastUse.Store(time.Now().UnixNano())
		s.inflight.Add(-1)
	}
}

// idleCheck stops s if no request started for stopWhenIdle and none is
// under way (held by busy, or waiting for its answer in s's plugin:
// [plugin.McpPlugin.InFlight]); otherwise it looks again when the idle
// time would end.
func (t *Toolbox) idleCheck(s *server) {
	s.startMu.Lock()
	if t.closed.Load() || s.idle == nil {
		s.startMu.Unlock()
		return
	}
	since := time.Since(time.Unix(0, s.lastUse.Load()))
	p := s.plugin()
	if since < s.cfg.StopWhenIdle || s.inflight.Load() > 0 || s.starting != nil || (p != nil && p.InFlight() > 0) {
		wait := max(s.cfg.StopWhenIdle-since, time.Millisecond)
		s.idle.Reset(wait)
		s.startMu.Unlock()
		return
	}
	s.idle = nil
	p = s.p.Swap(nil)
	s.startMu.Unlock()
	if p == nil {
		return
	}
	t.logger.Info("mcp server stopped: idle", zap.String("mcp_server", s.cfg.Name), zap.Duration("stopWhenIdle", s.cfg.StopWhenIdle))
	s.listMu.Lock()
	s.everReady = false
	s.listMu.Unlock()
	_ = p.Close()
	t.serverChanged() // its manifest's tools again
}

// startUnderWay returns the channel a start under way closes when it ends,
// nil if none is; at Close, after closed is set, no other start begins.
func (s *server) startUnderWay() chan struct{} {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.starting
}

// stopIdleTimer stops s's idle timer, at Close.
func (s *server) stopIdleTimer() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
}
