package plugin

import (
	"context"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/messages"
)

// link is how a plugin reaches its connection actor, wherever it lives: a
// plugin from [Connect] or [Start] speaks to the supervisor it spawned
// (localLink); a facade over an actor it did not spawn follows it with an
// *attach.Link (package internal/core/attach), which relocates it, resends
// bounced calls and gives lost calls their grace. Replies and progress of
// calls reach the plugin's callRouter either way.
type link interface {
	// Send sends a call; its reply comes to the router under msg.ID. The
	// error says the call could not be sent (no actor found).
	Send(ctx context.Context, msg *messages.CallTool) error
	// Cancel cancels call id on the connection.
	Cancel(id uint64)
	// Ask sends msg (AwaitReady, Reconnect) and returns the reply.
	Ask(ctx context.Context, msg any) (any, error)
	// RefreshTools asks for a new listing, its TTL past, without waiting
	// for it; retry runs if the listing is known to have failed.
	RefreshTools(retry func())
	// Close lets go of the actor: a local one is stopped, one elsewhere
	// is its owner's to stop.
	Close()
}

// localLink is the link to the actor a plugin spawned.
type localLink struct {
	system *actor.ActorSystem
	pid    *actor.PID // the plugin's top actor: supervisor or connection
	router *actor.PID // the sender of every call
	// direct is the connection actor while it is ready, for a plugin that
	// spawned its own supervisor: calls skip the supervisor's hop.
	direct atomic.Pointer[actor.PID]
}

func (l *localLink) Send(_ context.Context, msg *messages.CallTool) error {
	to := l.pid
	if d := l.direct.Load(); d != nil {
		to = d // ready: straight to the connection; reconnecting: queued by the supervisor
	}
	l.system.Root.RequestWithCustomSender(to, msg, l.router)
	return nil
}

func (l *localLink) Cancel(id uint64) { l.system.Root.Send(l.pid, &messages.CancelCall{ID: id}) }

func (l *localLink) Ask(ctx context.Context, msg any) (any, error) {
	return reply.Ask(ctx, l.system, l.pid, msg)
}

// RefreshTools asks the connection, which publishes the listing, failed or
// not, through the same callback as its first list: storeTools.
func (l *localLink) RefreshTools(func()) { l.system.Root.Send(l.pid, &messages.RefreshTools{}) }

// Close stops the actor. Stop is a system message: it overtakes queued
// calls, which the stopped actor drops; the plugin's done answers their
// futures.
func (l *localLink) Close() { _ = l.system.Root.StopFuture(l.pid).Wait() }
