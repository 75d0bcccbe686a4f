package grid

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/internal/core/logfield"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// grain is the actor of one server's grain. It learns its server from the
// cluster's ClusterInit and spawns an unchanged supervisor for it, as its
// child. It is the serving side's edge of the cluster: what arrives in a
// wire form it reads as the plain message (and the supervisor answers
// through wire.Send, as the extension.Deliverer it adds to the
// connection's extensions); it remembers the
// facades on other members that sent calls, to tell them of its hand-over;
// and when the cluster stops it (a PoisonPill: its member leaves, or it
// moves), it lets the calls in flight finish, bounces what the supervisor
// never sent and what arrives meanwhile as dead letters (the facades send
// those again, to its next home), then stops.
type grain struct {
	// supervisor is the supervisor's config for a server, or why there is
	// none.
	supervisor   func(server string) (actors.SupervisorConfig, error)
	drainTimeout time.Duration
	logger       *zap.Logger

	sup *actor.PID
	// conn is the connection while it is ready (hostmsg.WatchDirect),
	// under connMu: once the supervisor's Notify has returned, no call
	// goes to the connection it replaced, which the supervisor retires
	// then (a retired connection stops once its goroutines are done).
	connMu  sync.Mutex
	conn    *actor.PID
	failure *messages.Failure // the server has no supervisor: every call fails with it
	// store is the task store of the kind's plugin.WithTasks, if any, and
	// label the server's name in its records: a call that resumes a task
	// by its id alone (a facade's, whose member lost the task's
	// connection) takes the task's latest state from there.
	store tasks.Store
	label string

	draining   bool
	drainTimer *time.Timer
	callers    map[callerKey]*actor.PID
}

// callerKey is a facade's reply process: a PID without its RequestId.
type callerKey struct{ address, id string }

// Internal messages: the cluster's stop, turned into a drain by
// drainOnPoison, and the end of the drain's time.
type (
	drain        struct{}
	drainExpired struct{}
)

func (*drainExpired) IgnoreDeadLetterLogging() {}

// drainOnPoison turns the PoisonPill by which the cluster stops a grain
// into a drain, which stops the grain when it is done: protoactor would
// stop it at once.
func drainOnPoison(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		if _, ok := env.Message.(*actor.PoisonPill); ok {
			env = &actor.MessageEnvelope{Header: env.Header, Message: &drain{}, Sender: env.Sender}
		}
		next(c, env)
	}
}

// Receive reads as the grain's protocol.
func (g *grain) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *cluster.ClusterInit:
		if msg.Identity != nil {
			g.start(ctx, msg.Identity.Identity)
		}
	case *drain:
		g.beginDrain(ctx)
	case *hostmsg.CallsFinished:
		for _, u := range msg.Unsent {
			g.bounce(ctx, u.Sender)
		}
		ctx.Stop(ctx.Self())
	case *drainExpired:
		g.logger.Warn("mcp grain stopping with calls still in flight", zap.Duration("drain_timeout", g.drainTimeout))
		ctx.Stop(ctx.Self())
	case *actor.Stopped:
		if g.drainTimer != nil {
			g.drainTimer.Stop()
		}
		g.handOver(ctx)
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		g.serve(ctx, wire.Plain(msg))
	}
}

// start spawns the supervisor of server.
func (g *grain) start(ctx actor.Context, server string) {
	if g.sup != nil || g.failure != nil {
		return
	}
	cfg, err := g.supervisor(server)
	if err != nil {
		g.failure = &messages.Failure{Kind: messages.FailureInternal, Op: "connect", Message: err.Error(), Err: err}
		return
	}
	cfg.Connection.Extensions = append(slices.Clip(cfg.Connection.Extensions), wireDelivery{})
	g.store = tasks.StoreOf(cfg.Connection.Extensions)
	g.label = named.LabelOf(cfg.Connection.Transport)
	if cfg.Connection.Logger != nil {
		g.logger = logfield.Server(cfg.Connection.Logger, server)
	}
	g.sup = ctx.Spawn(actors.NewSupervisorProps(cfg))
	ctx.Send(g.sup, &hostmsg.WatchDirect{Notify: g.setConn})
}

// setConn is the supervisor's hostmsg.WatchDirect Notify: the connection
// to send calls to straight, or nil.
func (g *grain) setConn(pid *actor.PID) {
	g.connMu.Lock()
	g.conn = pid
	g.connMu.Unlock()
}

// sendStraight sends a call, from sender, to the connection while it is
// ready, and otherwise to the supervisor.
func (g *grain) sendStraight(ctx actor.Context, msg any, sender *actor.PID) {
	g.connMu.Lock()
	defer g.connMu.Unlock()
	to := g.sup
	if g.conn != nil {
		to = g.conn
	}
	ctx.RequestWithCustomSender(to, msg, sender)
}

// serve passes a message of the protocol on to the supervisor (a call to
// the connection itself while it is ready), with its sender. A request of the server's resources or prompts goes to the
// supervisor, which holds it while reconnecting as it holds calls; while
// draining it bounces, as a call does, to the grain's next home.
func (g *grain) serve(ctx actor.Context, msg any) {
	call, isCall := msg.(*messages.CallTool)
	_, isRequest := msg.(*messages.ServerRequest)
	switch {
	case g.failure != nil:
		g.fail(ctx, msg)
	case (isCall || isRequest) && g.draining:
		g.bounce(ctx, ctx.Sender())
	case isCall:
		if x := tasks.CallOf(call); x != nil && x.Resume != nil && x.Resume.Status == "" {
			if call = g.taskState(ctx, call); call == nil {
				return
			}
		}
		g.noteCaller(ctx)
		g.sendStraight(ctx, call, ctx.Sender())
	default:
		// A cancel too goes to the supervisor, which decides the call's
		// fate wherever it is (queued, in flight, on its way back).
		ctx.RequestWithCustomSender(g.sup, msg, ctx.Sender())
	}
}

// fail answers msg with the grain's failure.
func (g *grain) fail(ctx actor.Context, msg any) {
	if ctx.Sender() == nil {
		return
	}
	switch m := msg.(type) {
	case *messages.CallTool:
		f := *g.failure
		f.Op = messages.CallOp(m.Name)
		wire.Send(ctx.ActorSystem(), ctx.Sender(), &messages.CallToolReply{ID: m.ID, Failure: &f})
	case *messages.ServerRequest:
		f := *g.failure
		f.Op = m.Op()
		wire.Send(ctx.ActorSystem(), ctx.Sender(), &messages.ServerReply{ID: m.ID, Failure: &f})
	case *messages.CancelCall, *messages.WatchTools, *messages.UnwatchTools:
	default:
		wire.Send(ctx.ActorSystem(), ctx.Sender(), g.failure)
	}
}

// beginDrain starts the drain: the supervisor answers once its calls in
// flight are done, handing back what it never sent; the drain's time
// bounds the wait.
func (g *grain) beginDrain(ctx actor.Context) {
	if g.draining {
		return
	}
	g.draining = true
	g.logger.Debug("mcp grain draining its calls in flight", zap.Duration("drain_timeout", g.drainTimeout))
	if g.sup == nil {
		ctx.Stop(ctx.Self())
		return
	}
	ctx.Request(g.sup, &hostmsg.FinishCalls{})
	self, system := ctx.Self(), ctx.ActorSystem()
	g.drainTimer = time.AfterFunc(g.drainTimeout, func() { system.Root.Send(self, &drainExpired{}) })
}

// bounce answers a call that never reached the server with protoactor's
// dead-letter answer: a facade elsewhere sends it again, to the grain's
// next home.
func (g *grain) bounce(ctx actor.Context, to *actor.PID) {
	if to != nil {
		ctx.Send(to, &actor.DeadLetterResponse{Target: ctx.Self()})
	}
}

// noteCaller remembers the facade on another member that sent the call
// ctx is receiving, to tell it of the hand-over.
func (g *grain) noteCaller(ctx actor.Context) {
	sender := ctx.Sender()
	if !wire.Remote(ctx.ActorSystem(), sender) {
		return
	}
	k := callerKey{sender.Address, sender.Id}
	if _, ok := g.callers[k]; ok {
		return
	}
	if g.callers == nil {
		g.callers = map[callerKey]*actor.PID{}
	}
	g.callers[k] = &actor.PID{Address: sender.Address, Id: sender.Id}
}

// handOver tells every facade elsewhere that sent calls to this grain that
// it has stopped, after its supervisor and connection (children, stopped
// before this) answered everything they received: what the facades still
// wait for from it never reached the server. The message follows those
// answers on the wire.
func (g *grain) handOver(ctx actor.Context) {
	for _, pid := range g.callers {
		wire.Request(ctx.ActorSystem(), pid, &messages.HandedOver{}, ctx.Self())
	}
	g.callers = nil
}

// taskStoreTimeout bounds the reading of the task store for a call that
// resumes a task.
const taskStoreTimeout = 10 * time.Second

// taskState is call, which names the task it resumes by its id alone (a
// facade sends it so when the member that ran the task's connection left
// or died), with the task's latest state from the task store the members
// share, so that the connection polls it where the last one stopped and
// the tool is not called again. Without a store, or when the store holds
// no such task of this server (it ended, or it never was kept), the call
// fails, answered here, and taskState returns nil.
func (g *grain) taskState(ctx actor.Context, call *messages.CallTool) *messages.CallTool {
	id := tasks.CallOf(call).Resume.ID
	why := "no task store (plugin.TaskOptions.Store) shared by the members keeps it"
	if g.store != nil {
		sctx, cancel := context.WithTimeout(context.Background(), taskStoreTimeout)
		recs, err := g.store.List(sctx)
		cancel()
		if err == nil {
			for _, r := range recs {
				if r.Server == g.label && r.Task.ID == id {
					st := r.Task
					return tasks.Resuming(call, &st)
				}
			}
			why = "the task store shared by the members no longer keeps it"
		} else {
			why = "the task store shared by the members could not be read: " + err.Error()
		}
	}
	if ctx.Sender() != nil {
		wire.Send(ctx.ActorSystem(), ctx.Sender(), &messages.CallToolReply{ID: call.ID, Failure: &messages.Failure{
			Kind: messages.FailureInternal, Op: messages.CallOp(call.Name), Cause: messages.CauseConnectionLost,
			Message: fmt.Sprintf("the connection running task %s was lost, and the task cannot be resumed: %s", id, why)}})
	}
	return nil
}

// wireDelivery is the extension through which a grain's connection and
// supervisor send their answers and notices (wire.Send: the wire form to
// a caller on another member). It takes part in no session.
type wireDelivery struct{}

func (wireDelivery) Declare(transport.McpTransport, *mcp.ClientOptions) bool { return false }
func (wireDelivery) Open(extension.Session) extension.Part                   { return nil }
func (wireDelivery) Deliver(system *actor.ActorSystem, to *actor.PID, msg any) {
	wire.Send(system, to, msg)
}

var _ extension.Deliverer = wireDelivery{}
