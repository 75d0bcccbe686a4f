// Package link is how a plugin facade reaches a connection actor it did
// not spawn, such as package grid's grain on another member of a cluster.
// plugin.Connect given a [Target] as its transport follows the actor
// through the [Link] that Target.NewLink makes instead of spawning a
// connection of its own: the facade has the same API and guarantees as a
// plugin that spawned its connection (Tools, CallTool futures, the hooks,
// error kinds, cancellation reaching the server). Only the module's own
// packages make a Target (grid.Connect; internal/core/attach makes the
// Link), so plugin's public API names none of this.
package link

import (
	"context"
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/messages"
)

// Link is how a plugin reaches its connection actor, wherever it lives. A
// plugin that spawned its connection speaks to the supervisor it spawned;
// a facade over a [Target] speaks through the Link the target makes
// (package grid's follows a cluster grain from member to member). Replies
// and progress of calls, tool lists and what the link observes go to the
// facade's [Events].
type Link interface {
	// Send sends a call; its reply goes to Events.Resolve. The error
	// says the call could not be sent (no actor found).
	Send(ctx context.Context, call *messages.CallTool) error
	// Cancel cancels call id on the connection.
	Cancel(id uint64)
	// AwaitReady waits for the connection's tools: the *messages.Ready
	// answer, or an error (a *messages.Failure when the actor answered
	// with one). The tools of a Ready answer go to Events.StoreTools
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

// Events is the facade a [Link] serves: what arrives over the link goes
// to it. Its methods do not block and may be called from any goroutine.
type Events interface {
	// Resolve answers the call r.ID with r, if the facade still waits.
	Resolve(r *messages.CallToolReply)
	// Progress passes on a progress notification of a call.
	Progress(m *messages.CallProgress)
	// Task passes on the id of the task the server answered a call with
	// (for a call whose tasks state asks for it, tasks.Call.Want; the facade ignores it for others).
	Task(m *messages.CallTask)
	// StoreTools keeps the tool list of m.
	StoreTools(m *messages.Ready)
	// Lost says the actor was lost (the facade is reconnecting, cause
	// the reason); Relocated that it was found again and listed (ready).
	Lost(cause error)
	Relocated()
}

// Setup is what the facade gives [Target.NewLink]: where the link's events
// go and the facade's options that govern it.
type Setup struct {
	Events Events
	// Logger is the facade's logger (a no-op one without plugin.WithLogger).
	Logger *zap.Logger
	// LossGrace is how long calls in flight still wait for their answers
	// once the actor they went to is reported lost (plugin.WithLossGrace).
	LossGrace time.Duration
	// WatchTools asks the link to watch the actor's tool list, every new
	// list going to Events.StoreTools (plugin.WithToolRefresh).
	WatchTools bool
}

// Target is the transport of a facade over a connection actor it did not
// spawn: plugin.Connect, given one, follows the actor through the Link
// that NewLink makes, in System (the facade's actor system; the options'
// actor system is not used), and returns once the link's AwaitReady has
// answered with the tools, or fails with its failure. Close closes the
// link, which leaves the actor running: its owner stops it. Server names
// the server in errors. Open is never called: it fails.
type Target struct {
	System  *actor.ActorSystem
	Server  string
	NewLink func(Setup) Link
}

// ErrNotOpened is Target.Open's error: a Target is followed, not opened.
var ErrNotOpened = errors.New("link: a followed actor's target is not a transport to open")

// Open fails with [ErrNotOpened]: plugin.Connect follows a Target.
func (Target) Open(*zap.Logger) (mcp.Transport, error) { return nil, ErrNotOpened }

// String names the server.
func (t Target) String() string { return t.Server }
