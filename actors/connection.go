package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/core/logfield"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// ConnectionConfig configures the connection actor. Transport is required; the
// other fields have defaults.
type ConnectionConfig struct {
	// Transport selects the server.
	Transport transport.McpTransport
	// Logger receives the connection's logs; nil means silence.
	Logger *zap.Logger
	// ClientInfo is the client identity sent in every request's _meta; nil
	// means {Name: "mcpconnector", Version: "0.1.0"}, the module's version.
	ClientInfo *mcp.Implementation
	// ConnectTimeout bounds discovery and tools/list; zero or negative means
	// 30s.
	ConnectTimeout time.Duration
	// ClientOptions, if set, is the base of go-sdk's client options (for
	// handlers such as elicitation). Unless set there, the client declares
	// no capabilities and go-sdk's multi-round-trip middleware is disabled.
	ClientOptions *mcp.ClientOptions
	// Roots are offered to the server through roots/list (declare the
	// roots capability in ClientOptions to announce them).
	Roots []*mcp.Root
	// EscalateFailures makes the connection fail (panic, for its parent's
	// supervisor strategy to decide) when connecting fails or the session
	// ends, after failing its calls in flight. Without it the connection
	// stays up, answering every later call with the cause (a failed call
	// becomes the result's text; nothing reconnects).
	EscalateFailures bool
	// RetryIdempotent hands calls in flight when the session ends back to
	// the parent, to run again after reconnection, when their tool is
	// annotated readOnlyHint or idempotentHint. Only with EscalateFailures.
	RetryIdempotent bool
	// LegacyFallback lets a server that refuses server/discover be
	// initialized at an older revision (LegacyRevisions): go-sdk sends
	// initialize, the server answers the newest it speaks, and the session
	// is that revision's. Without it (the default) initialize never reaches
	// the wire and such a server fails connect with CauseProtocolVersion.
	LegacyFallback bool
	// ToolRefresh subscribes to the server's tools/list_changed (SEP-2575
	// subscriptions/listen, when the server declares tools.listChanged)
	// and lists the tools again on each. Every new list, and every answer
	// to [messages.RefreshTools], goes to the parent (a supervisor) or to
	// OnReady. Without it the list changes only on reconnection or when
	// asked with RefreshTools.
	ToolRefresh bool
	// OnListChanged, if set, subscribes to the server's resources and
	// prompts list_changed (SEP-2575 subscriptions/listen, for the lists
	// the server declares listChanged for) and is called with "resources"
	// or "prompts" on each, from the goroutine that reads the session's
	// notifications: it must return quickly and not wait for a request to
	// the same server.
	OnListChanged func(list string)
	// OnStatus, if set, is told when the connection becomes ready or ends.
	// It runs on the actor's goroutine and must not block.
	OnStatus func(state State, f *messages.Failure)
	// OnReady, if set, receives the tools when the session becomes ready,
	// just before OnStatus. Same rules as OnStatus. (A supervisor has an
	// OnReady of its own; this one is for an unsupervised connection.)
	OnReady func(*messages.Ready)
	// Telemetry, if set, records the connection's requests, sessions and
	// connection attempts with OpenTelemetry ([NewTelemetry]); nil records
	// nothing and costs nothing.
	Telemetry *Telemetry
	// Extensions run beside the core (package internal/core/extension):
	// each declares itself on every session it takes part in, and drives
	// what it claims of the session and of its calls. Package plugin's
	// options install them (plugin.WithTasks: the tasks extension,
	// SEP-2663, declared over the module's stdio and Streamable HTTP
	// transports only). None: nothing is declared, and a task answer is
	// NotSupported.
	Extensions []extension.Extension

	// deliver sends every answer and notice the connection, and the
	// supervisor above it, address to a caller (call replies, progress,
	// tool lists, failures, hostmsg.CallsFinished): an extension's that is
	// an extension.Deliverer (package grid's, which gives callers on other
	// members the wire forms), else each as it is.
	deliver func(system *actor.ActorSystem, to *actor.PID, msg any)

	// restarts, set by a supervisor as it spawns the connection, is its
	// restart count so far, which the connection attempt's span records:
	// a value, copied into each session's connection.
	restarts int64
}

// sendAsIs is the delivery of a host whose callers are all in its process.
func sendAsIs(system *actor.ActorSystem, to *actor.PID, msg any) { system.Root.Send(to, msg) }

func (c ConnectionConfig) withDefaults() ConnectionConfig {
	if c.Transport == nil {
		panic("actors: ConnectionConfig.Transport is nil")
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.ClientInfo == nil {
		c.ClientInfo = &mcp.Implementation{Name: "mcpconnector", Version: instrument.Version}
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	c.deliver = sendAsIs
	for _, e := range c.Extensions {
		if d, ok := e.(extension.Deliverer); ok {
			c.deliver = d.Deliver
		}
	}
	return c
}

// NewConnectionProps returns the Props of the connection actor (McpConnection) for cfg.
func NewConnectionProps(cfg ConnectionConfig) *actor.Props {
	cfg = cfg.withDefaults()
	fl := &flusher{}
	return actor.PropsFromProducer(func() actor.Actor {
		c := newConnection(cfg)
		c.flush = fl
		return c
	}, actor.WithMailbox(mailboxFor(&cfg, fl)))
}

// state is where an McpConnection is in its life.
type state int

const (
	connecting state = iota
	ready
	ended // connecting failed, the session ended, or the actor stops
)

// State is a connection's health as a host sees it.
type State int

// The states of a connection, in the order they usually come.
const (
	Connecting State = iota
	Ready
	Reconnecting
	Failed
	Closed
	// NotStarted is a connection not started yet (a toolbox's lazy server).
	NotStarted
)

func (s State) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Ready:
		return "ready"
	case Reconnecting:
		return "reconnecting"
	case Failed:
		return "failed"
	case NotStarted:
		return "not started"
	default:
		return "closed"
	}
}

// mcpConnection (the McpConnection actor) owns one MCP client session and serves tool calls on it.
// Its protocol is [messages]: AwaitReady, CallTool, CancelCall.
type mcpConnection struct {
	cfg    ConnectionConfig
	log    *zap.Logger // cfg.Logger, naming the server as "mcp_server"
	self   *actor.PID
	system *actor.ActorSystem

	state   state
	session *mcp.ClientSession
	tail    transportext.StderrTail
	direct  directcall.Caller // the session's transport's direct path, if any
	post    directcall.Poster // its calls posted from the mailbox (posted.go)
	reader  directcall.Reader // its resource reads on the direct path (resources.go)
	flush   *flusher          // writes what the mailbox posted once it is empty
	conn    *envelopeConn     // the session's connection
	ready   *messages.Ready
	failure *messages.Failure // why the connection ended, once it has

	repeatable map[string]bool // tools a crash may re-run (RetryIdempotent)

	// Progress tokens of the calls that carry one, for the session's
	// notification goroutine; progMu guards them and each call's
	// callProgress (whether it is answered, its idle timer).
	progMu sync.Mutex
	tokens map[string]*call

	listOnReady    bool               // a list_changed came while connecting
	listing        bool               // a tools/list after connecting is running
	relist         bool               // list again when it is done
	cancelList     context.CancelFunc // ends that listing
	refreshWaiters []*actor.PID       // RefreshTools senders until it is done

	peer         peer      // the server as telemetry records it (Telemetry set)
	sessionStart time.Time // when the session became ready
	closing      bool      // the actor stops: the session ends by Close, not by an error

	parent   *actor.PID
	waiters  []*actor.PID     // AwaitReady senders while connecting
	queued   []queuedCall     // CallTool arrivals while connecting, in order
	inflight map[uint64]*call // calls sent to the server, by ID
	requests requestTable     // resources and prompts requests in flight (resources.go)
	// callWorkers and requestWorkers run calls and requests on workers
	// that served one before (pool, resources.go); their idle workers end
	// when the session ends.
	callWorkers    pool[callJob]
	requestWorkers pool[requestJob]
	// deadlines cancel calls and requests at their deadline, on one timer.
	deadlines deadlines
	pruneAt   int // inflight size at which finished calls are dropped

	// FinishCalls senders, answered once no call is in flight; while there
	// are any, every call that ends says so (callFinished).
	finishers   []*actor.PID
	awaitFinish atomic.Bool

	// handed are the calls this connection handed back to its supervisor
	// (never sent, RetryIdempotent, a task to resume), by ID, with their
	// senders: a cancel that reaches this connection after the call left
	// follows it there.
	handed map[uint64]*actor.PID

	cancelDial context.CancelFunc
	// dialOut holds the outcome of the dial, which dialReady announces: a
	// connection that stops first finds it there, and closes its session.
	dialOut chan *dialDone
	// wg counts every goroutine this actor started; it is this actor's
	// alone. A retired connection stops once it is zero (drained); a
	// stop from above (the supervisor's, at Close) waits for it.
	wg      sync.WaitGroup
	retired bool // its supervisor has a new session, or none: stop once drained
}

type queuedCall struct {
	sender *actor.PID
	msg    *messages.CallTool
	// cancelled: its caller gave up on the work it resumes (a task),
	// which is resumed only to be cancelled.
	cancelled bool
}

// call is one tool call in flight. Its goroutine answers the caller (the
// one author of the answer); what else becomes of the call (handed back to
// the supervisor, or dropped because its caller gave up) the actor decides,
// in its mailbox, where the call's cancel arrives too.
type call struct {
	retry    bool // may run again on the next session (RetryIdempotent)
	msg      *messages.CallTool
	sender   *actor.PID
	cancel   context.CancelCauseFunc
	timer    *deadline // cancels the call at its deadline (&dl), or nil
	dl       deadline
	gaveUp   bool        // its caller cancelled it; the actor's alone
	back     bool        // its goroutine handed it back (handBack); the goroutine's alone
	finished atomic.Bool // the call's goroutine is done with it

	// prog is set for calls with a progress token (Progress or
	// IdleTimeout): a pointer, so that other calls stay as small as before.
	prog *callProgress

	// sent is the call's sendState, which ctx carries to the connection's
	// Write: whether the request may have reached the server.
	sent sendState
	ctx  callContext

	// A posted call's (posted.go): its connection, and its id on the
	// direct path; n is 0 for a call on a worker.
	c *mcpConnection
	n int64
}

// callProgress is a call's progress token, its idle timer, and, under its
// connection's progMu, whether the call has been answered, after which no
// progress is passed on and the idle timer stays stopped.
type callProgress struct {
	token string
	idle  *time.Timer
	done  bool
}

// idleTimeout is the cause of a call cancelled for want of progress.
type idleTimeout struct{ d time.Duration }

func (e *idleTimeout) Error() string {
	return fmt.Sprintf("idle timeout: no progress from the server for %s", e.d)
}

// connectionEnded is the cause of the cancellation of a call in flight
// when its connection ended with f; closing when the actor stopped or was
// restarted, not for a failure of its session.
type connectionEnded struct {
	f       *messages.Failure
	closing bool
}

func (e *connectionEnded) Error() string { return "the connection ended: " + e.f.Message }

// Causes of a call's cancellation.
var (
	errCallerGaveUp = errors.New("the caller gave up")
	errCallFailed   = errors.New("the call failed")
)

// Internal messages, sent by this actor's goroutines to itself.
type (
	dialDone struct {
		d       *dialed
		failure *messages.Failure
		tail    transportext.StderrTail // the attempt's child's stderr, if any
	}
	// Each connection actor runs one session: what its goroutines send
	// names no session or instance.
	sessionEnded struct {
		err  error
		exit string // how the child exited, if it did (ChildExit)
	}
	// toolsStale: the server said its tool list changed.
	toolsStale struct{}
	// toolsListed: a tools/list after connecting is done.
	toolsListed struct {
		tools []*mcp.Tool
		hints listHints
		err   error
	}
	// toolList is a connection's list after a refresh, for its supervisor.
	toolList struct{ ready *messages.Ready }
)

// logTail logs the whole stderr tail at debug level: errors carry only
// its last lines.
func (c *mcpConnection) logTail(tail transportext.StderrTail) {
	if tail == nil {
		return
	}
	if ce := c.log.Check(zap.DebugLevel, "mcp server stderr tail"); ce != nil {
		if lines := tail.StderrTail(); len(lines) > 0 { // an HTTP server has none
			ce.Write(zap.Strings("lines", lines))
		}
	}
}

func newConnection(cfg ConnectionConfig) *mcpConnection {
	c := &mcpConnection{cfg: cfg, inflight: map[uint64]*call{}, pruneAt: 64, tokens: map[string]*call{},
		log: logfield.Server(cfg.Logger, named.LabelOf(cfg.Transport)), dialOut: make(chan *dialDone, 1)}
	c.callWorkers.serve = c.runJob
	c.requestWorkers.serve = c.serveRequest
	if cfg.Telemetry != nil {
		c.peer = peerOf(cfg.Transport)
	}
	return c
}

// Receive reads as a table of the protocol.
func (c *mcpConnection) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		c.self, c.system, c.parent = ctx.Self(), ctx.ActorSystem(), ctx.Parent()
		c.startDial()
	case *dialDone:
		c.onDialDone(msg)
	case *dialReady:
		select {
		case d := <-c.dialOut:
			c.onDialDone(d)
		default: // an earlier instance's, restarted (an unsupervised connection)
		}
	case *messages.AwaitReady:
		c.onAwaitReady(ctx)
	case *messages.CallTool:
		c.onCallTool(ctx.Sender(), msg)
	case *messages.CancelCall:
		c.onCancel(msg.ID, ctx.Sender())
	case *handBack:
		c.onHandBack(msg)
	case *settle:
		c.settle(msg.cl, msg.cause)
	case *stopNow:
		ctx.Stop(ctx.Self())
	case *messages.ServerRequest:
		c.onServerRequest(ctx.Sender(), msg)
	case *messages.RefreshTools:
		c.onRefresh(ctx.Sender())
	case *toolsStale:
		switch c.state {
		case ready:
			c.listAgain()
		case connecting:
			// The list being taken may be older than the change.
			c.listOnReady = true
		}
	case *toolsListed:
		c.onToolsListed(msg)
	case *sessionEnded:
		c.onSessionEnded(msg)
	case *hostmsg.FinishCalls:
		c.finishers = append(c.finishers, ctx.Sender())
		c.checkFinished()
	case *callFinished:
		c.checkFinished()
	case *retire:
		c.onRetire(ctx)
	case *drained:
		// The supervisor answers with stopNow, after whatever it sent here
		// before (a cancel to follow a call handed back).
		c.system.Root.RequestWithCustomSender(c.parent, msg, c.self)
	case *actor.Restarting:
		// Only an unsupervised connection's parent restarts it, for a
		// panic nothing expected; a supervisor spawns a new connection.
		c.release()
		c.wg.Wait()
		c.closeUnread()
	case *actor.Stopping:
		c.release()
		// A retired connection stops once drained: this waits for nothing.
		// A stop from above (Close) has no later end in protoactor
		// (actorContext.handleStop finalizes once Stopping returns and the
		// children are gone), so it waits here for this connection's own
		// goroutines (a stdio child's reaping is bounded by its
		// TerminateTimeout), so that nothing outlives Close.
		c.wg.Wait()
		c.closeUnread()
	}
}

// dialReady: the dial's outcome is in dialOut.
type dialReady struct{}

func (*dialReady) IgnoreDeadLetterLogging() {}

// closeUnread closes the session of a dial whose outcome this connection,
// stopping, never read: its goroutines are done, so it is there or never.
func (c *mcpConnection) closeUnread() {
	select {
	case d := <-c.dialOut:
		if d.d != nil {
			_ = d.d.session.Close()
		}
	default:
	}
}

// retire: the supervisor is done with this connection (its session
// failed), which answers, or hands back, whatever still reaches it, and
// stops once its goroutines are done.
type retire struct{}

// drained: a retired connection's goroutines are done, which it tells
// its supervisor; stopNow is the supervisor's answer.
type (
	drained struct{}
	stopNow struct{}
)

func (*retire) IgnoreDeadLetterLogging()  {}
func (*drained) IgnoreDeadLetterLogging() {}
func (*stopNow) IgnoreDeadLetterLogging() {}

// onRetire waits, off the mailbox, for this connection's goroutines, and
// then stops it. Nothing starts one after the session ended but the
// goroutines already counted.
func (c *mcpConnection) onRetire(ctx actor.Context) {
	if c.retired {
		return
	}
	c.retired = true
	if c.state != ended {
		c.closing = true
		c.end(closedFailure())
	}
	self, system := ctx.Self(), ctx.ActorSystem()
	go func() {
		c.wg.Wait()
		system.Root.Send(self, &drained{})
	}()
}

// callFinished tells a connection asked for [FinishCalls] that a call
// ended; only then do calls send it.
type callFinished struct{}

func (*callFinished) IgnoreDeadLetterLogging() {}

// checkFinished answers every FinishCalls sender once no call is in flight.
// The flag is raised before counting, so that a call that ends during the
// count either is counted as ended or sends callFinished.
func (c *mcpConnection) checkFinished() {
	if len(c.finishers) == 0 {
		return
	}
	c.awaitFinish.Store(true)
	for _, cl := range c.inflight {
		if !cl.finished.Load() {
			return
		}
	}
	c.awaitFinish.Store(false)
	for _, w := range c.finishers {
		c.reply(w, &hostmsg.CallsFinished{})
	}
	c.finishers = nil
}

// startDial runs one connection attempt. Its outcome comes as a dialDone;
// at the connect timeout that is a failure at once, whatever the attempt
// is still doing. The attempt is then aborted (a stdio child is killed: a
// server that ignores its closed stdin would cost its TerminateTimeout
// twice over), and ends in the background; a stop waits for it.
func (c *mcpConnection) startDial() {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.ConnectTimeout)
	c.cancelDial = cancel
	type outcome struct {
		d       *dialed
		failure *messages.Failure
	}
	done := make(chan outcome, 1)
	var opened atomic.Pointer[mcp.Transport]
	hooks := c.hooks()
	hooks.opened = func(tr mcp.Transport) { opened.Store(&tr) }
	tailOf := func() transportext.StderrTail {
		if tr := opened.Load(); tr != nil {
			t, _ := (*tr).(transportext.StderrTail)
			return t
		}
		return nil
	}
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		d, failure := dial(ctx, &c.cfg, hooks, c.peer)
		done <- outcome{d, failure}
	}()
	go func() {
		defer c.wg.Done()
		defer cancel()
		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			select {
			case o = <-done: // it finished as the time ran out
			default:
				c.system.Root.Send(c.self, &dialDone{failure: connectTimeout(&c.cfg, tailOf()), tail: tailOf()})
				if tr := opened.Load(); tr != nil {
					if a, ok := (*tr).(transportext.Aborter); ok {
						a.Abort() // a server that has not answered in time has nothing to save
					}
				}
				if o = <-done; o.d != nil {
					_ = o.d.session.Close()
				}
				return
			}
		}
		c.dialOut <- &dialDone{d: o.d, failure: o.failure, tail: tailOf()}
		c.system.Root.Send(c.self, &dialReady{})
	}()
}

func (c *mcpConnection) onDialDone(msg *dialDone) {
	if c.state != connecting {
		if msg.d != nil {
			c.closeSession(msg.d.session)
		}
		return
	}
	if msg.failure != nil {
		c.logTail(msg.tail)
		c.fail(situated(msg.failure))
		return
	}
	c.state = ready
	c.session, c.tail, c.direct, c.ready, c.conn = msg.d.session, msg.d.tail, msg.d.direct, msg.d.ready, msg.d.conn
	c.post, c.reader = msg.d.post, msg.d.reader
	c.sessionStart = time.Now()
	c.repeatable = repeatableTools(&c.cfg, c.ready.Tools)
	c.log.Info("mcp connected", zap.Int("tools", len(c.ready.Tools)))
	c.watch(c.session, msg.d.conn)
	for _, w := range c.waiters {
		c.cfg.deliver(c.system, w, c.ready)
	}
	c.waiters = nil
	for _, q := range c.queued {
		c.onCallTool(q.sender, q.msg)
		if q.cancelled {
			c.onCancel(q.msg.ID, q.sender)
		}
	}
	c.queued = nil
	if c.cfg.OnReady != nil {
		c.cfg.OnReady(c.ready)
	}
	if c.cfg.OnStatus != nil {
		c.cfg.OnStatus(Ready, nil)
	}
	if c.listOnReady {
		c.listOnReady = false
		c.listAgain()
	}
}

// watch turns the end of the session (the child exited, the stream closed)
// into a message. No goroutine waits meanwhile: go-sdk closes the session's
// connection when the session ends, and only then does one start, to read
// the session's error once its last goroutine is done.
func (c *mcpConnection) watch(s *mcp.ClientSession, conn *envelopeConn) {
	c.wg.Add(1)
	tail := c.tail
	conn.afterClose(func() {
		defer c.wg.Done()
		err := s.Wait()
		c.system.Root.Send(c.self, &sessionEnded{err: err, exit: childExit(tail)})
	})
}

func (c *mcpConnection) onAwaitReady(ctx actor.Context) {
	switch c.state {
	case ready:
		c.reply(ctx.Sender(), c.ready)
	case connecting:
		if ctx.Sender() != nil {
			c.waiters = append(c.waiters, ctx.Sender())
		}
	default:
		c.reply(ctx.Sender(), c.failure)
	}
}

func (c *mcpConnection) onCallTool(sender *actor.PID, msg *messages.CallTool) {
	if !msg.Deadline.IsZero() && !time.Now().Before(msg.Deadline) {
		c.reply(sender, failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: "deadline exceeded before the call was sent: " + limitOf(msg) + " passed"}))
		return
	}
	switch c.state {
	case connecting:
		c.queued = append(c.queued, queuedCall{sender: sender, msg: msg})
		return
	case ended:
		if c.supervised() && !c.closing {
			// Sent to this connection as its session ended (straight, by a
			// host that had not heard yet): never sent, it goes back to the
			// supervisor, which queues it for the next session.
			c.sendBack(msg, sender, false)
			return
		}
		f := *c.failure
		f.Op = messages.CallOp(msg.Name)
		c.reply(sender, &messages.CallToolReply{ID: msg.ID, Failure: &f})
		return
	}
	if old, dup := c.inflight[msg.ID]; dup && !old.finished.Load() {
		c.reply(sender, callFailure(msg, messages.FailureInternal, fmt.Sprintf("call id %d is already in flight", msg.ID)))
		return
	}
	if c.posts(msg) {
		c.postCall(sender, msg)
		return
	}
	// A cancel-cause context with a timer, not WithDeadline: a call that
	// succeeded is never cancelled, so go-sdk may finish reading the HTTP
	// response with it and keep the connection alive.
	ctx, cancel := context.WithCancelCause(context.Background())
	cl := &call{msg: msg, sender: sender, cancel: cancel, retry: c.retryable(msg.Name)}
	cl.ctx = callContext{Context: ctx, state: &cl.sent}
	if c.conn != nil && len(c.conn.parts) > 0 {
		ec := extCall{c: c, s: c.session, cl: cl}
		for _, p := range c.conn.parts {
			if cp := p.Call(ec); cp != nil {
				cl.ctx.ext = append(cl.ctx.ext, cp)
			}
		}
	}
	c.admit(cl, cancel)
	c.wg.Add(1) // done by run
	c.callWorkers.hand(callJob{s: c.session, conn: c.conn, tail: c.tail, dc: c.direct, cl: cl})
}

// callJob is one call for a worker, as run runs it.
type callJob struct {
	s    *mcp.ClientSession
	conn *envelopeConn
	tail transportext.StderrTail
	dc   directcall.Caller
	cl   *call
}

// runJob runs a call on a worker (callWorkers): a call costs no goroutine
// of its own while calls keep coming; the worker is counted in the
// connection's wg only while it runs one (see run).
func (c *mcpConnection) runJob(j callJob) {
	c.run(&j.cl.ctx, j.s, j.conn, j.tail, j.dc, j.cl, j.cl.msg)
}

// prune drops the calls whose goroutines are done. Calls are not reported
// done one by one (a message per call would cost a mailbox wake-up each);
// the table is swept when it has doubled, so its size stays within twice
// the calls really in flight.
func (c *mcpConnection) prune() {
	for id, cl := range c.inflight {
		if cl.finished.Load() {
			delete(c.inflight, id)
		}
	}
	c.pruneAt = max(64, 2*len(c.inflight))
}

// run is one tool call's goroutine. It answers the caller itself, so the
// reply costs no trip through the mailbox.
func (c *mcpConnection) run(ctx context.Context, s *mcp.ClientSession, conn *envelopeConn, tail transportext.StderrTail, dc directcall.Caller, cl *call, msg *messages.CallTool) {
	defer c.wg.Done()
	if cl.timer != nil {
		defer cl.timer.Stop()
	}
	var reply *messages.CallToolReply
	func() {
		defer func() {
			if r := recover(); r != nil {
				reply = callFailure(msg, messages.FailureInternal, fmt.Sprintf("panic: %v", r))
			}
		}()
		if c.cfg.Telemetry != nil {
			// The caller's span, carried as data across the actor hop (and
			// the wire), is the parent of the request's client span.
			ctx = c.cfg.Telemetry.extract(ctx, msg.TraceContext)
		}
		params := &mcp.CallToolParams{Name: msg.Name}
		if len(msg.Arguments) > 0 {
			params.Arguments = json.RawMessage(msg.Arguments)
		}
		if cl.prog != nil {
			params.SetProgressToken(cl.prog.token)
		}
		if resumes(msg) {
			reply = c.resume(ctx, cl)
			return
		}
		var res *mcp.CallToolResult
		var err error
		direct := c.callsDirect(dc)
		if direct {
			res, err = c.callDirect(ctx, dc, params)
		}
		if !direct || errors.Is(err, directcall.ErrCallOnSession) {
			res, err = s.CallTool(ctx, params)
		}
		for _, e := range cl.ctx.ext {
			// An answer an extension drives (a task) is its to reply to.
			if r, took := e.Answered(ctx, res, err); took {
				reply = r
				c.untrack(cl)
				return
			}
		}
		c.untrack(cl)
		if err != nil || res == nil {
			defer cl.cancel(errCallFailed)
		}
		if err == nil {
			reply = classify(msg, res)
			return
		}
		reply = c.callFailed(ctx, s, tail, cl, err)
	}()
	if reply != nil {
		c.cfg.deliver(c.system, cl.sender, reply)
	}
	if cl.back {
		return // the actor is done with it as it takes it back (onHandBack)
	}
	cl.finished.Store(true)
	if c.awaitFinish.Load() {
		c.system.Root.Send(c.self, &callFinished{})
	}
}

// callFailed is the answer to a call whose tools/call returned err, or nil
// when the call is handed to the parent to wait for the next session. It
// runs on the call's goroutine, the only one that answers the call.
func (c *mcpConnection) callFailed(ctx context.Context, s *mcp.ClientSession, tail transportext.StderrTail, cl *call, err error) *messages.CallToolReply {
	msg := cl.msg
	cause := context.Cause(ctx)
	if errors.Is(cause, errCallerGaveUp) {
		return nil // the caller gave up: nobody to answer, nothing to run again
	}
	var ended *connectionEnded
	var idle *idleTimeout
	errors.As(cause, &ended)
	switch {
	case cl.sent.load() != sendAttempted && (errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, transport.ErrNotSent) ||
		ended != nil || brokenTransport(err)):
		// The session was ending before go-sdk wrote the call, or the
		// transport could not send it. The call never reached the server,
		// so it waits for the next session like a call that arrives while
		// reconnecting.
		c.system.Root.Send(c.self, &sessionEnded{err: err})
		if c.supervised() {
			c.handBack(cl, msg, false)
			return nil
		}
		return lostCall(msg, withTail("the session ended before the call was sent: "+err.Error(), tail))
	case ended != nil:
		if cl.retry {
			// Back to the parent, which queues it for the next session.
			c.handBack(cl, msg, false)
			return nil
		}
		if ended.f.Exit != "" {
			r := lostCall(msg, "the server exited ("+ended.f.Exit+") while the call was in flight (it may have run): "+ended.f.Message)
			r.Failure.Exit = ended.f.Exit
			return r
		}
		return lostCall(msg, "call in flight when the connection ended: "+ended.f.Message)
	case errors.As(cause, &idle):
		return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline, Message: idle.Error()})
	case errors.Is(cause, context.DeadlineExceeded):
		return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: "deadline exceeded: " + limitOf(msg) + " passed"})
	case brokenTransport(err):
		// An HTTP endpoint that went away does not end the session by
		// itself; a failed exchange does.
		c.system.Root.Send(c.self, &sessionEnded{err: err})
		if cl.retry {
			c.handBack(cl, msg, false)
			return nil
		}
		words := "connection lost: " + lostWords(err)
		exit := childExit(tail)
		if exit != "" {
			words = "the server exited (" + exit + ") while the call was in flight (it may have run): " + lostWords(err)
		}
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal, Message: withTail(words, tail), Exit: exit}, err)
		if f.Cause == messages.CauseNone {
			f.Cause = messages.CauseConnectionLost
		}
		_, f.Unreachable = unreachable("tools/call", err)
		return failCall(msg, f)
	}
	text, ok := serverAnswered("", err) // the failure's Op names tools/call
	if !ok {
		text = unwrapped("tools/call", err.Error())
	}
	if noAnswer(err) {
		// The transport's answer in the server's stead to a POST that got
		// none: the call may have run, and its answer is lost.
		text = "connection lost: " + strings.TrimPrefix(text, "transport: ")
	}
	f := causeOf(&messages.Failure{Kind: messages.FailureInternal, Message: text}, err)
	if needsTasks(err) {
		f.Kind = messages.FailureNotSupported
		f.Message = text + `: the server runs this tool only as a task (the tasks extension, SEP-2663), which the client drives with plugin.WithTasks`
	}
	return failCall(msg, f)
}

// lostWords is why a call's exchange failed: the endpoint out of reach,
// or err without go-sdk's wrappings of the method's name.
func lostWords(err error) string {
	if msg, ok := unreachable("tools/call", err); ok {
		return msg
	}
	return unwrapped("tools/call", err.Error())
}

// limitOf names the limit that set msg's deadline.
func limitOf(msg *messages.CallTool) string {
	if msg.Limit != "" {
		return msg.Limit
	}
	return "the call's deadline"
}

// supervised reports whether a supervisor is this connection's parent,
// which queues the calls handed back to it for the next session.
func (c *mcpConnection) supervised() bool { return c.cfg.EscalateFailures && c.parent != nil }

// onCancel is a caller's giving up on call id: sender is the cancel's,
// nil for a host's cancel, which names the call of any caller. The call
// is in flight here (cancelled; whatever its goroutine reports later, the
// call is not sent again), or went back to the supervisor (the cancel
// follows it, behind it in the supervisor's mailbox), or waits for the
// session here.
func (c *mcpConnection) onCancel(id uint64, sender *actor.PID) {
	if c.requests.cancel(id) {
		return
	}
	if to, ok := c.handed[id]; ok && cancels(sender, to) {
		delete(c.handed, id)
		c.system.Root.RequestWithCustomSender(c.parent, &messages.CancelCall{ID: id}, to)
		return
	}
	if cl, ok := c.inflight[id]; ok && cancels(sender, cl.sender) {
		if !cl.gaveUp && !cl.finished.Load() {
			cl.gaveUp = true
			c.cancelCall(cl, errCallerGaveUp)
		}
		return
	}
	for i, q := range c.queued {
		if q.msg.ID != id || !cancels(sender, q.sender) {
			continue
		}
		if resumes(q.msg) {
			c.queued[i].cancelled = true // the task runs on the server: cancelled once connected
			return
		}
		c.queued = append(c.queued[:i], c.queued[i+1:]...)
		return
	}
}

// cancels reports whether a cancel from sender names a call of caller's:
// a cancel with no sender (a host's, or this module's own) names the call
// of any caller.
func cancels(sender, caller *actor.PID) bool {
	return sender == nil || caller != nil && caller.Equal(sender)
}

// handBack: a call's goroutine hands the call back, for the actor to
// decide in its mailbox: to the supervisor, for the next session, or
// nowhere, its caller having given up (a task is then resumed only to be
// cancelled: with cancel too).
type handBack struct {
	cl     *call
	msg    *messages.CallTool // cl's, or a copy that resumes its task
	cancel bool
}

func (*handBack) IgnoreDeadLetterLogging() {}

// handBack runs on cl's goroutine: the call goes back to the actor.
func (c *mcpConnection) handBack(cl *call, msg *messages.CallTool, cancel bool) {
	cl.back = true
	c.system.Root.Send(c.self, &handBack{cl: cl, msg: msg, cancel: cancel})
}

// onHandBack decides a call handed back by its goroutine: a caller that
// gave up before it came back has it dropped (or, a task, resumed only to
// be cancelled); any other goes to the supervisor.
func (c *mcpConnection) onHandBack(h *handBack) {
	cl := h.cl
	cl.finished.Store(true)
	defer c.checkFinished()
	if cl.gaveUp && !resumes(h.msg) {
		return
	}
	c.sendBack(h.msg, cl.sender, h.cancel || cl.gaveUp)
}

// sendBack hands msg, from sender, to the supervisor, and its cancel
// after it when its caller gave up; a later cancel follows it (onCancel).
func (c *mcpConnection) sendBack(msg *messages.CallTool, sender *actor.PID, cancel bool) {
	c.system.Root.RequestWithCustomSender(c.parent, msg, sender)
	if cancel {
		c.system.Root.RequestWithCustomSender(c.parent, &messages.CancelCall{ID: msg.ID}, sender)
		return
	}
	if c.handed == nil {
		c.handed = map[uint64]*actor.PID{}
	}
	c.handed[msg.ID] = sender
}

func (c *mcpConnection) onSessionEnded(msg *sessionEnded) {
	if c.state != ready {
		return
	}
	why := "server closed the connection"
	if msg.exit != "" {
		why = "the server exited (" + msg.exit + ")"
	}
	if msg.err != nil {
		why += ": " + elideServerBytes(msg.err.Error())
	}
	f := &messages.Failure{Kind: messages.FailureInternal, Op: "session", Message: withTail(why, c.tail), Cause: messages.CauseConnectionLost,
		Exit: msg.exit, Err: kept(msg.err)}
	c.log.Warn("mcp session ended", zap.String("cause", f.Message))
	c.logTail(c.tail)
	c.fail(f)
}

// fail ends the connection with f and, when supervised, escalates f to the
// parent: the panic is protoactor's way to report a child's failure.
func (c *mcpConnection) fail(f *messages.Failure) {
	c.end(f)
	if c.cfg.EscalateFailures && c.parent != nil {
		panic(f)
	}
	if c.cfg.OnStatus != nil {
		c.cfg.OnStatus(Failed, f)
	}
}

// end moves to the ended state: every waiter, queued call and call in flight
// fails with f, and the session, if any, is closed.
func (c *mcpConnection) end(f *messages.Failure) {
	c.state = ended
	c.failure = f
	for _, w := range c.waiters {
		c.cfg.deliver(c.system, w, f)
	}
	c.waiters = nil
	for _, q := range c.queued {
		if c.supervised() {
			// Never sent: the parent keeps it for the next session.
			c.sendBack(q.msg, q.sender, q.cancelled)
		} else if q.cancelled {
			continue
		} else {
			c.onCallTool(q.sender, q.msg)
		}
	}
	c.queued = nil
	for _, w := range c.refreshWaiters {
		c.cfg.deliver(c.system, w, f)
	}
	c.refreshWaiters = nil
	if c.cancelList != nil {
		c.cancelList()
	}
	c.requestWorkers.stop()
	c.callWorkers.stop()
	// Each call's own goroutine answers it (or hands it back): cancelled
	// with the connection's failure as the cause, it knows why.
	ended := &connectionEnded{f: f, closing: c.closing}
	var posted []*call
	for _, cl := range c.inflight {
		if !cl.finished.Load() {
			c.untrack(cl)
			if cl.n != 0 {
				posted = append(posted, cl)
				continue
			}
			cl.cancel(ended)
		}
	}
	if len(posted) > 0 {
		c.endPosted(posted, ended)
	}
	if c.session != nil {
		version := ProtocolVersion
		if c.ready != nil {
			version = c.ready.ProtocolVersion
		}
		c.cfg.Telemetry.recordSession(c.peer, version, c.sessionStart, !c.closing)
		c.closeSession(c.session)
		c.session = nil
	}
}

// admit enters cl among the calls in flight: its deadline in the table
// (cancel is called at it; nil for a posted call, which cl.expire
// settles), its progress token and idle timer.
func (c *mcpConnection) admit(cl *call, cancel context.CancelCauseFunc) {
	msg := cl.msg
	if !msg.Deadline.IsZero() {
		cl.timer = &cl.dl
		if cancel == nil {
			cl.dl.cl = cl
		}
		c.deadlines.add(cl.timer, msg.Deadline, cancel)
	}
	if msg.Progress || msg.IdleTimeout > 0 {
		c.track(cl)
	}
	if len(c.inflight) >= c.pruneAt {
		c.prune()
	}
	c.inflight[msg.ID] = cl
}

// retryable reports whether a call of tool may run again on a new session:
// only when asked for, supervised, and the tool says it is safe to repeat.
func (c *mcpConnection) retryable(tool string) bool {
	return c.repeatable[tool] && c.cfg.EscalateFailures && c.parent != nil
}

// repeatableTools lists the tools annotated readOnlyHint or idempotentHint,
// when RetryIdempotent asks for them.
func repeatableTools(cfg *ConnectionConfig, tools []*mcp.Tool) map[string]bool {
	if !cfg.RetryIdempotent {
		return nil
	}
	m := map[string]bool{}
	for _, t := range tools {
		if a := t.Annotations; a != nil && (a.ReadOnlyHint || a.IdempotentHint) {
			m[t.Name] = true
		}
	}
	return m
}

// closeSession closes s off the mailbox: closing a stdio child waits for it
// to exit.
func (c *mcpConnection) closeSession(s *mcp.ClientSession) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		_ = s.Close()
	}()
}

// release runs on Restarting and Stopping: it fails everything still
// open and closes the session. It waits for nothing: the goroutines end by
// themselves (a call answers its caller, the session's close reaps its
// child), and what they send this PID names this instance or its session,
// which the next instance ignores.
func (c *mcpConnection) release() {
	c.closing = true
	if c.cancelDial != nil {
		c.cancelDial()
	}
	if c.state != ended {
		c.end(closedFailure())
	}
	c.inflight = map[uint64]*call{}
}

// reply delivers msg to to; to nil (a message sent without a sender) gets
// nothing.
func (c *mcpConnection) reply(to *actor.PID, msg any) {
	if to != nil {
		c.cfg.deliver(c.system, to, msg)
	}
}

func callFailure(msg *messages.CallTool, kind messages.FailureKind, text string) *messages.CallToolReply {
	return failCall(msg, &messages.Failure{Kind: kind, Message: text})
}

// failCall is the reply failing msg with f, named for the call.
func failCall(msg *messages.CallTool, f *messages.Failure) *messages.CallToolReply {
	f.Op = messages.CallOp(msg.Name)
	return &messages.CallToolReply{ID: msg.ID, Failure: f}
}

// lostCall is the reply to a call the session ended under.
func lostCall(msg *messages.CallTool, text string) *messages.CallToolReply {
	return failCall(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseConnectionLost, Message: text})
}

// Messages a goroutine sends to an actor that has stopped meanwhile are
// expected; they are not worth a dead-letter log line.
func (*dialDone) IgnoreDeadLetterLogging()     {}
func (*sessionEnded) IgnoreDeadLetterLogging() {}

// childExit says how the server's child exited ("exit status 3", "killed
// by signal SIGKILL"), waiting up to exitWait once its output has ended;
// "" for a child that still runs, or a transport with no child.
// A child reaped by the session's close a moment ago reads "" until the
// transport has recorded its status, so an empty answer is asked again
// within the same bound.
func childExit(tail transportext.StderrTail) string {
	ce, ok := tail.(transportext.ChildExit)
	if !ok {
		return ""
	}
	deadline := time.Now().Add(exitWait)
	for {
		st := ce.ChildExit(time.Until(deadline))
		if st != "" || !time.Now().Before(deadline) {
			return st
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// situated is f, a failure to connect, with what happened as data: an
// endpoint out of reach is Unreachable.
func situated(f *messages.Failure) *messages.Failure {
	if f.Err != nil && f.Kind == messages.FailureInternal && f.Cause == messages.CauseNone {
		_, f.Unreachable = unreachable("", f.Err)
	}
	return f
}
