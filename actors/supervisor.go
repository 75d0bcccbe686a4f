package actors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/internal/core/logfield"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/messages"
)

// SupervisorConfig configures the supervisor actor. Zero durations and counts
// take the defaults given on each field.
type SupervisorConfig struct {
	// Connection configures the child; EscalateFailures is forced on.
	Connection ConnectionConfig
	// InitialBackoff is the wait before the first restart; zero means 100ms.
	// Every wait of the schedule (see [SupervisorConfig.TryTimes]) is
	// stretched by a random part of up to a quarter of itself.
	InitialBackoff time.Duration
	// MaxBackoff caps the doubling wait between restarts; zero means 2s.
	MaxBackoff time.Duration
	// MaxRestarts is how many restarts RestartWindow may hold before the
	// breaker opens (see CoolDown); zero means 9, negative means the
	// breaker never opens.
	MaxRestarts int
	// RestartWindow is the sliding window MaxRestarts counts in; zero means
	// one minute.
	RestartWindow time.Duration
	// CoolDown is how long the breaker stays open once the restart budget
	// is spent, before one reconnection is tried, while the outage is
	// shorter than a minute; past it each cool-down is twice the
	// outage so far, up to MaxCoolDown. A success closes the breaker. Zero
	// means 7.5s; MaxCoolDown zero means one hour.
	CoolDown    time.Duration
	MaxCoolDown time.Duration
	// ReconnectWait is how long a call that arrives while reconnecting may
	// wait for the connection (its own deadline may end the wait first);
	// zero means 10s.
	ReconnectWait time.Duration
	// RetryConnect keeps retrying a first connection that fails, with the
	// same schedule as a lost one (the backoff, the restart budget, then the
	// breaker's cool-downs): a server that is not up yet (a toolbox's) comes
	// in when it comes up, and one that never does is tried no more often
	// than the schedule says.
	// Each failed attempt answers the AwaitReady waiters with its failure,
	// and the state is Failed until a session is ready. Without it (the
	// default) a first connection that fails is final: that is Connect's
	// error, not a reason to loop.
	RetryConnect bool
	// OnReady, if set, receives the tools of every session that becomes
	// ready. OnStatus, if set, receives every change of [Status]. Both run
	// on the supervisor's goroutine and must not block.
	OnReady  func(*messages.Ready)
	OnStatus func(Status)

	// jitter, if set, replaces the random part of each wait (in [0, 1]):
	// tests fix it.
	jitter func() float64
}

func (c SupervisorConfig) withDefaults() SupervisorConfig {
	c.Connection = c.Connection.withDefaults()
	c.Connection.EscalateFailures = true
	if c.ReconnectWait <= 0 {
		c.ReconnectWait = defaultReconnectWait
	}
	return c.scheduleDefaults()
}

// The defaults every layer shares.
const (
	// DefaultConnectTimeout bounds a connection attempt (spawn,
	// server/discover, tools/list) unless configured otherwise.
	DefaultConnectTimeout = 30 * time.Second
)

const (
	// defaultCoolDown is how long the breaker stays open during the first
	// minute of an outage.
	defaultCoolDown = 7500 * time.Millisecond
	// defaultReconnectWait bounds how long a call that arrives while the
	// connection is reconnecting waits for it, unless configured otherwise.
	defaultReconnectWait = 10 * time.Second
)

// Status is the health of a supervised connection.
type Status struct {
	State State
	// Restarts counts the restarts since the supervisor started.
	Restarts int
	// LastFailure is the most recent failure, nil if none, and
	// LastFailureAt when it happened. Both stay once a session is ready
	// again: [Status.Err] says whether the failure is the present state's.
	LastFailure   *messages.Failure
	LastFailureAt time.Time
}

// Err is the failure that explains the present state: LastFailure while
// the connection is not ready (connecting again, reconnecting, failed),
// nil while it is ready, before any failure, and once closed.
func (s Status) Err() *messages.Failure {
	switch s.State {
	case Ready, Closed:
		return nil
	}
	return s.LastFailure
}

// NewSupervisorProps returns the Props of the supervisor actor (McpSupervisor) for cfg. Speak
// [messages] to the spawned PID exactly as to an McpConnection.
func NewSupervisorProps(cfg SupervisorConfig) *actor.Props {
	cfg = cfg.withDefaults()
	return actor.PropsFromProducer(func() actor.Actor { return newSupervisor(cfg) })
}

// mcpSupervisor (the McpSupervisor actor) is the parent of one connection
// actor and the front door to it. It forwards calls while the connection
// is ready, queues them in order while it reconnects (and the calls its
// child never sent), and replaces a failed connection (a new child, a new
// PID) after exponential backoff and jitter, within a restart
// budget; past it a breaker opens, and one reconnection is tried after each
// cool-down. What no restart mends (a server that does not speak
// 2026-07-28, a command that cannot start) is not retried until
// [messages.Reconnect]. Calls in flight when the session died have already
// failed in the child; they are never re-sent unless RetryIdempotent
// allows it for their tool.
type mcpSupervisor struct {
	cfg    SupervisorConfig
	logger *zap.Logger // see log
	self   *actor.PID
	system *actor.ActorSystem
	child  *actor.PID
	sup    actor.Supervisor // the supervisor side of our own context
	lostAt time.Time        // when the ready session was lost, until the next is ready
	// outageSince is when the failures in a row began (the lost session,
	// or the first failed connection), until a session is ready: the
	// cool-down grows with the outage.
	outageSince time.Time

	// phase is the supervisor's one state; Status.State, the breaker and
	// what calls fail with derive from it (and from whether a session was
	// ever up: ready).
	phase    phase
	status   Status // what OnStatus was last told
	ready    *messages.Ready
	waiters  []*actor.PID // AwaitReady senders until the first session
	queue    []*waitingCall
	requests []*waitingRequest // resources and prompts requests held (resources.go)
	// retired are the connections of ended sessions, until they have
	// drained: a cancel goes to them too, to find a call still on its way
	// back from one.
	retired  []*actor.PID
	nextWait uint64
	failures int         // consecutive failures since the last ready session
	restarts []time.Time // restart times inside the window
	backoff  *time.Timer
	watchers toolWatchers // WatchTools senders: facades elsewhere

	coolDown time.Duration // the breaker's current cool-down
	// Reconnect senders, answered by the next ready session or failure.
	reconnectWaiters []*actor.PID
	// FinishCalls senders whose question the child is answering, in order,
	// with the calls this supervisor never sent.
	finishing []finishing
	// onDirect is the last hostmsg.WatchDirect's Notify.
	onDirect func(conn *actor.PID)
}

// phase is the supervisor's one state. The public [State] of [Status]
// derives from it, and so does the breaker, named as circuit breakers name
// their states: closed (every phase but two), open (phaseOpen: calls fail
// at once until the cool-down passes) and half-open (phaseHalfOpen: one
// reconnection on trial).
type phase int

const (
	phaseConnecting   phase = iota // the first connection; calls wait for it
	phaseFirstFailed               // RetryConnect: the first session is not up; a retry is due (Failed)
	phaseFirstRetry                // RetryConnect: the first session is not up; a retry is under way (Connecting)
	phaseReady                     // a session is up; calls go to it
	phaseReconnecting              // the session was lost; calls wait for the next
	phaseOpen                      // the breaker is open until its cool-down; calls fail at once (Failed)
	phaseHalfOpen                  // the cool-down has passed; one reconnection on trial
	phaseFailed                    // final until a Reconnect; calls fail with the last failure
	phaseClosed                    // stopping or stopped
)

// state is the phase's public face. A session that was never up (no
// ready list) makes the half-open trial a Connecting; otherwise it is a
// Reconnecting.
func (s *mcpSupervisor) state() State {
	switch s.phase {
	case phaseConnecting, phaseFirstRetry:
		return Connecting
	case phaseReady:
		return Ready
	case phaseReconnecting:
		return Reconnecting
	case phaseHalfOpen:
		if s.ready == nil {
			return Connecting
		}
		return Reconnecting
	case phaseClosed:
		return Closed
	default:
		return Failed
	}
}

// retrying reports whether RetryConnect is retrying a first connection
// that never came up: calls fail at once with its last failure instead of
// waiting for it. (The breaker opens on a first connection only under
// RetryConnect.)
func (s *mcpSupervisor) retrying() bool {
	switch s.phase {
	case phaseFirstFailed, phaseFirstRetry:
		return true
	case phaseOpen, phaseHalfOpen:
		return s.ready == nil
	}
	return false
}

// final is what every call fails with once failed or closed.
func (s *mcpSupervisor) final() *messages.Failure {
	if s.phase == phaseClosed {
		return closedFailure()
	}
	return s.status.LastFailure
}

// closedFailure is the failure of what a stopping supervisor, or a
// connection that is stopped or restarted, still holds.
func closedFailure() *messages.Failure {
	return &messages.Failure{Kind: messages.FailureInternal, Op: "session", Message: "connection closed"}
}

type waitingCall struct {
	seq    uint64
	sender *actor.PID
	msg    *messages.CallTool
	timer  *time.Timer
	// cancelled: its caller gave up on the work it resumes (a task),
	// which the next connection cancels.
	cancelled bool
}

// Internal messages.
type (
	restartChild struct{}
	waitExpired  struct{ seq uint64 }
	coolDownOver struct{}
)

func (*restartChild) IgnoreDeadLetterLogging() {}
func (*coolDownOver) IgnoreDeadLetterLogging() {}
func (*waitExpired) IgnoreDeadLetterLogging()  {}

func newSupervisor(cfg SupervisorConfig) *mcpSupervisor {
	return &mcpSupervisor{cfg: cfg}
}

// Receive reads as a table of the protocol.
func (s *mcpSupervisor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		s.self, s.system = ctx.Self(), ctx.ActorSystem()
		s.setPhase(phaseConnecting)
		s.startChild(ctx)
	case *messages.Ready:
		s.onReady(msg)
	case *messages.Failure:
		// The child's answer to AwaitReady when it failed; HandleFailure
		// has acted on it already.
	case *messages.AwaitReady:
		s.onAwaitReady(ctx)
	case *messages.CallTool:
		s.onCallTool(ctx, msg)
	case *messages.CancelCall:
		s.onCancel(ctx, msg)
	case *drained:
		// A retired connection is done: stopNow reaches it after whatever
		// was sent to it before.
		s.retired = slices.DeleteFunc(s.retired, ctx.Sender().Equal)
		ctx.Send(ctx.Sender(), &stopNow{})
	case *messages.ServerRequest:
		s.onServerRequest(ctx, msg)
	case *requestWaitExpired:
		s.onRequestWaitExpired(msg.seq)
	case *messages.RefreshTools:
		s.onRefresh(ctx, msg)
	case *toolList:
		s.onToolList(msg.ready)
	case *messages.WatchTools:
		s.onWatch(ctx, true)
	case *messages.UnwatchTools:
		s.onWatch(ctx, false)
	case *actor.Terminated:
		s.watchers.remove(msg.Who) // a watcher's member is gone
		s.retired = slices.DeleteFunc(s.retired, msg.Who.Equal)
	case *restartChild:
		s.backoff = nil
		switch s.phase {
		case phaseReconnecting, phaseFirstFailed, phaseFirstRetry:
			s.startChild(ctx)
		}
	case *coolDownOver:
		s.backoff = nil
		if s.phase == phaseOpen {
			s.tryAgain(ctx, phaseHalfOpen)
		}
	case *messages.Reconnect:
		s.onReconnect(ctx)
	case *waitExpired:
		s.onWaitExpired(msg.seq)
	case *hostmsg.WatchDirect:
		s.onDirect = msg.Notify
		if s.onDirect != nil && s.state() == Ready {
			s.onDirect(s.child)
		}
	case *hostmsg.FinishCalls:
		s.onFinishCalls(ctx)
	case *hostmsg.CallsFinished:
		s.answerFinished() // the child's answer to onFinishCalls
	case *actor.Restarting:
		// The watcher is this instance's: it is told to stop calling the
		// connection straight, which stops with this instance.
		if s.onDirect != nil {
			s.onDirect(nil)
		}
	case *actor.Stopping:
		s.stop()
	}
}

// startChild spawns the connection of a new session: a fresh actor with a
// PID of its own, which nothing of an earlier session's connection can
// reach. It carries the restart count as a value.
func (s *mcpSupervisor) startChild(ctx actor.Context) {
	cc := s.cfg.Connection
	cc.restarts = int64(s.status.Restarts)
	s.child = ctx.Spawn(NewConnectionProps(cc))
	ctx.Request(s.child, &messages.AwaitReady{})
}

// retire is done with a failed child: it resumes (protoactor suspended it
// as it failed), answers or hands back whatever still reaches it, and stops
// once its goroutines are done. It runs after the phase has told the
// direct callers (onDirect) to send no more to it, so a call sent to it
// straight is in its mailbox before retire, and comes back here.
func (s *mcpSupervisor) retire(sup actor.Supervisor, child *actor.PID) {
	sup.ResumeChildren(child)
	s.system.Root.Send(child, &retire{})
	s.retired = append(s.retired, child)
	if s.child != nil && s.child.Equal(child) {
		s.child = nil
	}
}

// log is the connection's logger, naming the server as "mcp_server".
func (s *mcpSupervisor) log() *zap.Logger {
	if s.logger == nil {
		s.logger = logfield.Server(s.cfg.Connection.Logger, named.LabelOf(s.cfg.Connection.Transport))
	}
	return s.logger
}

// HandleFailure is the strategy for the child: it runs on this actor's
// goroutine when the child fails, and decides what the failure is worth.
// A failure that no retry can mend (a server that does not speak
// 2026-07-28, a command that cannot be started, a transport that cannot
// work) is final until the host asks again ([messages.Reconnect]). Any
// other is retried after backoff within the restart budget, whether the
// server was up or never came up; once the budget is spent the breaker
// opens, and after its cool-down one reconnection is tried.
func (s *mcpSupervisor) HandleFailure(_ *actor.ActorSystem, sup actor.Supervisor, child *actor.PID,
	_ *actor.RestartStatistics, reason any, _ any) {
	s.sup = sup
	if s.phase == phaseClosed {
		return // stopping: the child is being stopped with us
	}
	// Last, once the phase says what comes next (deferred calls run last
	// to first): the child is done with.
	defer s.retire(sup, child)
	s.answerFinishing() // the child's calls in flight have failed

	f, ok := reason.(*messages.Failure)
	if !ok {
		f = &messages.Failure{Kind: messages.FailureInternal, Op: "connection", Message: fmt.Sprintf("connection actor failed: %v", reason)}
		f.Err, _ = reason.(error)
	}
	s.noteFailure(f)
	// Whoever asked for this try hears of it once the state says what
	// comes next.
	defer func() { s.answerReconnects(s.status.LastFailure) }()
	if permanent(f) {
		s.log().Warn("mcp connection failed; not retried until asked",
			zap.String("cause", f.Error()))
		s.abandon(f, phaseFailed)
		return
	}
	first := s.ready == nil && (s.phase == phaseConnecting || s.retrying())
	if first && !s.cfg.RetryConnect {
		// The first connection never came up: that is Connect's error,
		// not a reason to loop.
		s.abandon(f, phaseFailed)
		return
	}
	now := time.Now()
	if s.outageSince.IsZero() {
		s.outageSince = now
	}
	if s.phase == phaseHalfOpen {
		s.openBreaker(f, now)
		return
	}
	s.restarts = slices.DeleteFunc(s.restarts, func(t time.Time) bool { return now.Sub(t) > s.cfg.RestartWindow })
	if s.cfg.MaxRestarts >= 0 && len(s.restarts) >= s.cfg.MaxRestarts {
		s.openBreaker(f, now)
		return
	}
	s.restarts = append(s.restarts, now)
	if first {
		s.retryFirst(f)
		return
	}
	s.failures++
	d := s.backoffFor(s.failures)
	s.log().Warn("mcp connection failed; restarting",
		zap.String("cause", f.Error()),
		zap.Duration("backoff", d), zap.Int("attempt", s.failures))
	if s.lostAt.IsZero() {
		s.lostAt = now
	}
	s.countRestart()
	s.setPhase(phaseReconnecting)
	s.backoff = time.AfterFunc(d, func() { s.system.Root.Send(s.self, &restartChild{}) })
}

// permanent reports whether no restart can mend f: the server does not
// speak 2026-07-28, its command cannot be started, or the transport cannot
// work at all.
func permanent(f *messages.Failure) bool {
	return f.Cause == messages.CauseProtocolVersion || f.Kind == messages.FailureIO || f.Kind == messages.FailureNotSupported
}

// openBreaker stops restarting after the budget is spent (or a half-open
// try failed): the failed child is retired, calls fail at once with f's
// cause and when the next try is, and after the cool-down one
// reconnection is tried. The cool-down grows with the outage
// (coolDownFor).
func (s *mcpSupervisor) openBreaker(f *messages.Failure, now time.Time) {
	s.coolDown = s.cfg.coolDownFor(now.Sub(s.outageSince), s.jitter())
	n, span := len(s.restarts), time.Duration(0)
	if n > 0 {
		span = now.Sub(s.restarts[0])
	}
	next := now.Add(s.coolDown)
	g := *f
	g.CircuitOpen = true
	if s.phase == phaseHalfOpen {
		g.Message = fmt.Sprintf("circuit open: the reconnection after the cool-down failed too; next try at %s (in %s); last failure: %s",
			next.UTC().Format(time.TimeOnly), s.coolDown.Round(time.Millisecond), f.Message)
	} else {
		g.Message = fmt.Sprintf("circuit open: %d restarts failed within %s; next try at %s (in %s); last failure: %s",
			n, span.Round(time.Millisecond), next.UTC().Format(time.TimeOnly), s.coolDown.Round(time.Millisecond), f.Message)
	}
	s.log().Warn("mcp connection failed; circuit open",
		zap.String("cause", f.Error()), zap.Duration("cool_down", s.coolDown))
	s.abandon(&g, phaseOpen)
	s.backoff = time.AfterFunc(s.coolDown, func() { s.system.Root.Send(s.self, &coolDownOver{}) })
}

// tryAgain spawns a new connection, which dials: after a cool-down (as
// phaseHalfOpen), or when the host asks (as the phase of a try:
// phaseHalfOpen is never given then).
func (s *mcpSupervisor) tryAgain(ctx actor.Context, trial phase) {
	// Counted before the status that announces the try, as a backoff's is.
	s.countRestart()
	switch {
	case trial == phaseHalfOpen:
		if s.ready != nil && s.lostAt.IsZero() {
			s.lostAt = time.Now()
		}
		s.setPhase(phaseHalfOpen)
	case s.ready == nil && s.cfg.RetryConnect:
		s.setPhase(phaseFirstRetry)
	case s.ready == nil:
		s.setPhase(phaseConnecting)
	default:
		if s.lostAt.IsZero() {
			s.lostAt = time.Now()
		}
		s.setPhase(phaseReconnecting)
	}
	s.startChild(ctx)
}

// onReconnect answers the host's request for a new try: a failed
// connection (final, or waiting for its cool-down) dials again at once,
// with its restart budget and cool-down as new; the sender hears of the
// outcome. A connection that is up, or on its way, is left as it is.
func (s *mcpSupervisor) onReconnect(ctx actor.Context) {
	switch {
	case s.status.State == Ready:
		s.reply(ctx.Sender(), s.ready)
		return
	case s.status.State == Closed:
		s.reply(ctx.Sender(), s.final())
		return
	case s.sup == nil:
		// Never failed yet: wait with the first connection.
		if s.status.State == Failed {
			s.reply(ctx.Sender(), s.final())
			return
		}
	case s.status.State == Failed:
		if s.backoff != nil {
			s.backoff.Stop()
			s.backoff = nil
		}
		s.coolDown = 0 // the breaker closes: the phase of the try says so
		s.restarts, s.failures = nil, 0
		s.outageSince = time.Time{} // the host's try starts the count anew
		s.tryAgain(ctx, phaseConnecting)
	}
	if ctx.Sender() != nil {
		s.reconnectWaiters = append(s.reconnectWaiters, ctx.Sender())
	}
}

// answerReconnects answers every Reconnect sender with msg.
func (s *mcpSupervisor) answerReconnects(msg any) {
	for _, w := range s.reconnectWaiters {
		s.reply(w, msg)
	}
	s.reconnectWaiters = nil
}

// retryFirst answers the waiters of a first connection that failed and
// tries again after backoff.
func (s *mcpSupervisor) retryFirst(f *messages.Failure) {
	s.failures++
	d := s.backoffFor(s.failures)
	s.log().Warn("mcp server not up; retrying",
		zap.String("cause", f.Error()),
		zap.Duration("backoff", d), zap.Int("attempt", s.failures))
	s.countRestart()
	// The status first, then the waiters' answers: a host that reads the
	// status once its wait has failed reads this failure, not the
	// connecting before it.
	s.setPhase(phaseFirstFailed)
	for _, w := range s.waiters {
		s.reply(w, f)
	}
	s.waiters = nil
	s.backoff = time.AfterFunc(d, func() { s.system.Root.Send(s.self, &restartChild{}) })
}

// backoffFor doubles from InitialBackoff up to MaxBackoff, stretched by
// a random part of up to a quarter, so that many clients do not retry in
// step.
func (s *mcpSupervisor) backoffFor(attempt int) time.Duration {
	return s.cfg.backoffFor(attempt, s.jitter())
}

// jitter is the random part of the next wait, in [0, 1].
func (s *mcpSupervisor) jitter() float64 {
	if s.cfg.jitter != nil {
		return s.cfg.jitter()
	}
	return rand.Float64()
}

// abandon stops retrying, until a cool-down (to phaseOpen) or a Reconnect:
// every waiting call fails with f.
func (s *mcpSupervisor) abandon(f *messages.Failure, to phase) {
	s.status.LastFailure = f // the circuit-open form of the failure just noted
	switch {
	case to == phaseOpen:
		s.setPhase(phaseOpen)
	case s.retrying():
		s.setPhase(phaseFirstFailed) // still never up: calls say so
	default:
		s.setPhase(phaseFailed)
	}
	s.failWaiting(f)
}

func (s *mcpSupervisor) onReady(r *messages.Ready) {
	trial := s.phase == phaseHalfOpen
	switch s.phase {
	case phaseConnecting, phaseReconnecting, phaseFirstFailed, phaseFirstRetry, phaseHalfOpen:
	default:
		return
	}
	if s.ready != nil {
		s.logToolChanges(s.ready, r)
	}
	s.ready = r
	s.failures = 0
	s.outageSince = time.Time{}
	if trial { // the breaker closes
		s.coolDown = 0
		s.restarts = nil
	}
	s.answerReconnects(r)
	if t := s.cfg.Connection.Telemetry; t != nil && !s.lostAt.IsZero() {
		t.recordReconnection(peerOf(s.cfg.Connection.Transport), s.lostAt)
	}
	s.lostAt = time.Time{}
	if s.cfg.OnReady != nil {
		s.cfg.OnReady(r)
	}
	s.watchers.tell(s.system, s.cfg.Connection.deliver, r)
	s.setPhase(phaseReady)
	for _, w := range s.waiters {
		s.reply(w, r)
	}
	s.waiters = nil
	queue := s.queue
	s.queue = nil
	for _, w := range queue {
		w.timer.Stop()
		s.system.Root.RequestWithCustomSender(s.child, w.msg, w.sender)
		if w.cancelled {
			s.system.Root.Send(s.child, &messages.CancelCall{ID: w.msg.ID})
		}
	}
	s.sendRequests()
	if s.onDirect != nil {
		// After the queue, so that no call sent directly overtakes it.
		s.onDirect(s.child)
	}
}

func (s *mcpSupervisor) logToolChanges(old, cur *messages.Ready) {
	had := map[string]bool{}
	for _, t := range old.Tools {
		had[t.Name] = true
	}
	var added []string
	for _, t := range cur.Tools {
		if !had[t.Name] {
			added = append(added, t.Name)
		}
		delete(had, t.Name)
	}
	var removed []string
	for name := range had {
		removed = append(removed, name)
	}
	slices.Sort(removed)
	s.log().Info("mcp connection restored",
		zap.Int("tools", len(cur.Tools)), zap.Strings("added", added), zap.Strings("removed", removed))
}

func (s *mcpSupervisor) onAwaitReady(ctx actor.Context) {
	if s.retrying() {
		s.reply(ctx.Sender(), s.status.LastFailure)
		return
	}
	switch s.status.State {
	case Ready, Reconnecting:
		s.reply(ctx.Sender(), s.ready)
	case Connecting:
		if ctx.Sender() != nil {
			s.waiters = append(s.waiters, ctx.Sender())
		}
	default:
		s.reply(ctx.Sender(), s.final())
	}
}

func (s *mcpSupervisor) onCallTool(ctx actor.Context, msg *messages.CallTool) {
	if s.retrying() {
		// No session has ever been up: nothing says one will be soon.
		f := *s.status.LastFailure
		f.Op, f.Message = messages.CallOp(msg.Name), "the server has not come up: "+f.Message
		s.reply(ctx.Sender(), &messages.CallToolReply{ID: msg.ID, Failure: &f})
		return
	}
	switch s.status.State {
	case Ready:
		s.forward(ctx)
	case Connecting, Reconnecting:
		w := &waitingCall{sender: ctx.Sender(), msg: msg}
		w.seq, w.timer = s.hold(msg.Deadline, func(seq uint64) any { return &waitExpired{seq: seq} })
		s.queue = append(s.queue, w)
	default:
		f := *s.final()
		f.Op = messages.CallOp(msg.Name)
		s.reply(ctx.Sender(), &messages.CallToolReply{ID: msg.ID, Failure: &f})
	}
}

// onCancel is a caller's giving up on a call, decided here when the call
// waits in the queue, and otherwise by the connection that has it: the
// session's, or a retired one's, from which the call may be on its way
// back (a retired connection that handed it back already sends the cancel
// after it, so it finds the call in the queue).
func (s *mcpSupervisor) onCancel(ctx actor.Context, msg *messages.CancelCall) {
	if s.dropRequest(ctx.Sender(), msg.ID) {
		return
	}
	for i, w := range s.queue {
		if w.msg.ID != msg.ID || !cancels(ctx.Sender(), w.sender) {
			continue
		}
		if resumes(w.msg) {
			// A task to resume runs on the server: the next connection
			// resumes it only to cancel it (tasks/cancel, once).
			w.cancelled = true
			return
		}
		w.timer.Stop()
		s.queue = slices.Delete(s.queue, i, i+1)
		return
	}
	s.forward(ctx)
	for _, r := range s.retired {
		ctx.RequestWithCustomSender(r, msg, ctx.Sender())
	}
}

// forward passes the message ctx is receiving on to the child, envelope,
// sender and all; with no session's child, nowhere.
func (s *mcpSupervisor) forward(ctx actor.Context) {
	if s.child != nil {
		ctx.Forward(s.child)
	}
}

// hold numbers a message held while the connection is down and arms its
// expiry: the reconnection wait, cut short by the message's own deadline
// (zero: none). The timer sends expired(seq) back to the supervisor.
func (s *mcpSupervisor) hold(deadline time.Time, expired func(seq uint64) any) (uint64, *time.Timer) {
	wait := s.cfg.ReconnectWait
	if !deadline.IsZero() {
		wait = min(wait, time.Until(deadline))
	}
	s.nextWait++
	seq := s.nextWait
	return seq, time.AfterFunc(wait, func() { s.system.Root.Send(s.self, expired(seq)) })
}

// holdExpired is the failure of a held message whose wait ran out; limit
// names the message's own deadline, as limitOf and requestLimit do.
// What happened to the server comes first (its state, the tries so far,
// its last failure), then the limit; the last failure's Exit and
// Unreachable say what happened as data, its Cause stays its own.
func (s *mcpSupervisor) holdExpired(limit string) *messages.Failure {
	f := &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline}
	wait := fmt.Sprintf("deadline exceeded: no connection within the reconnection wait of %s (WithReconnectWait) or %s", s.cfg.ReconnectWait, limit)
	last := s.status.LastFailure
	if last == nil {
		f.Message = "the connection is down: " + wait
		return f
	}
	f.Exit, f.Unreachable = last.Exit, last.Unreachable
	what := "the server is down"
	switch {
	case last.Exit != "":
		what = "the server exited"
	case last.Unreachable:
		what = "the server is unreachable"
	}
	switch s.status.State {
	case Reconnecting:
		what += ", reconnecting"
	case Connecting:
		what += ", connecting"
	}
	tries := "tries"
	if s.status.Restarts == 1 {
		tries = "try"
	}
	f.Message = fmt.Sprintf("%s (%d %s so far; last: %s): %s", what, s.status.Restarts, tries, last.Error(), wait)
	return f
}

func (s *mcpSupervisor) onWaitExpired(seq uint64) {
	for i, w := range s.queue {
		if w.seq == seq {
			s.queue = slices.Delete(s.queue, i, i+1)
			if w.cancelled {
				return // its caller is gone
			}
			f := s.holdExpired(limitOf(w.msg))
			f.Op = messages.CallOp(w.msg.Name)
			s.reply(w.sender, &messages.CallToolReply{ID: w.msg.ID, Failure: f})
			return
		}
	}
}

// failWaiting answers every AwaitReady and queued call with f.
func (s *mcpSupervisor) failWaiting(f *messages.Failure) {
	for _, w := range s.waiters {
		s.reply(w, f)
	}
	s.waiters = nil
	for _, w := range s.queue {
		w.timer.Stop()
		g := *f
		g.Op = messages.CallOp(w.msg.Name)
		s.reply(w.sender, &messages.CallToolReply{ID: w.msg.ID, Failure: &g})
	}
	s.queue = nil
	s.failRequests(f)
}

func (s *mcpSupervisor) stop() {
	if s.backoff != nil {
		s.backoff.Stop()
	}
	f := closedFailure()
	s.answerFinishing()
	s.failWaiting(f)
	s.answerReconnects(f)
	s.setPhase(phaseClosed)
}

// noteFailure records f as the last failure, now.
func (s *mcpSupervisor) noteFailure(f *messages.Failure) {
	s.status.LastFailure, s.status.LastFailureAt = f, time.Now()
}

// countRestart counts one restart, for Status and for telemetry.
func (s *mcpSupervisor) countRestart() {
	s.status.Restarts++
	if t := s.cfg.Connection.Telemetry; t != nil && s.cfg.Connection.Transport != nil {
		t.recordRestart(peerOf(s.cfg.Connection.Transport))
	}
}

// setPhase moves the supervisor to p and tells OnStatus.
func (s *mcpSupervisor) setPhase(p phase) {
	s.phase = p
	st := s.state()
	if st != Ready && s.onDirect != nil {
		s.onDirect(nil)
	}
	s.status.State = st
	if s.cfg.OnStatus != nil {
		s.cfg.OnStatus(s.status)
	}
}

// reply delivers msg to to (its connection config's deliver); to nil (a message sent
// without a sender) gets nothing.
func (s *mcpSupervisor) reply(to *actor.PID, msg any) {
	if to != nil {
		s.cfg.Connection.deliver(s.system, to, msg)
	}
}
