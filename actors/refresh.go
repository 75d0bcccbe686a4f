package actors

import (
	"context"
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/messages"
)

// Live tool lists: a connection lists its tools again when the server says
// they changed (ToolRefresh) or when it is asked to (RefreshTools, sent by
// a facade once the list's TTL has passed). Each listing, successful or
// not, is published: to the supervisor, which passes it to its OnReady and
// to the watchers of the list, or to an unsupervised connection's OnReady.
// A listing that fails publishes the list in force, so that whoever asked
// sees an answer and may ask again later.

// onRefresh answers a RefreshTools: after a listing while ready, with the
// list being made while connecting, with the failure once ended.
func (c *mcpConnection) onRefresh(sender *actor.PID) {
	switch c.state {
	case ready:
		if sender != nil {
			c.refreshWaiters = append(c.refreshWaiters, sender)
		}
		c.listAgain()
	case connecting:
		if sender != nil {
			c.waiters = append(c.waiters, sender)
		}
	default:
		c.reply(sender, c.failure)
	}
}

// listAgain starts a tools/list on the session, or, while one runs, makes
// sure another follows it: a change announced during a listing may not be
// in it.
func (c *mcpConnection) listAgain() {
	if c.listing {
		c.relist = true
		return
	}
	c.listing = true
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.ConnectTimeout)
	c.cancelList = cancel
	s, self, system, logger := c.session, c.self, c.system, c.log
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel()
		tools, hints, err := listTools(ctx, s, logger)
		system.Root.Send(self, &toolsListed{tools: tools, hints: hints, err: err})
	}()
}

func (c *mcpConnection) onToolsListed(msg *toolsListed) {
	c.listing = false
	if c.state != ready {
		return // the session ended meanwhile; end answered the waiters
	}
	if msg.err != nil {
		c.log.Warn("mcp tools/list failed; keeping the tools known",
			zap.String("cause", elideServerBytes(msg.err.Error())))
	} else {
		r := *c.ready
		r.Tools, r.ToolsTTL, r.ToolsCacheScope = msg.tools, msg.hints.ttl, msg.hints.scope
		c.ready = &r
		c.repeatable = repeatableTools(&c.cfg, c.ready.Tools)
	}
	if c.cfg.EscalateFailures && c.parent != nil {
		c.system.Root.Send(c.parent, &toolList{ready: c.ready})
	} else if c.cfg.OnReady != nil {
		c.cfg.OnReady(c.ready)
	}
	for _, w := range c.refreshWaiters {
		c.cfg.deliver(c.system, w, c.ready)
	}
	c.refreshWaiters = nil
	if c.relist {
		c.relist = false
		c.listAgain()
	}
}

// A list_changed or a listing that comes back after its actor stopped is
// expected, not worth a dead-letter log line.
func (*toolsStale) IgnoreDeadLetterLogging()  {}
func (*toolsListed) IgnoreDeadLetterLogging() {}
func (*toolList) IgnoreDeadLetterLogging()    {}

// toolWatchers are the senders of WatchTools, told of every new list.
type toolWatchers []*actor.PID

func (w *toolWatchers) add(pid *actor.PID) bool {
	if pid == nil || slices.ContainsFunc(*w, pid.Equal) {
		return false
	}
	*w = append(*w, pid)
	return true
}

func (w *toolWatchers) remove(pid *actor.PID) {
	*w = slices.DeleteFunc(*w, pid.Equal)
}

// tell delivers r to every watcher.
func (w toolWatchers) tell(system *actor.ActorSystem, deliver func(*actor.ActorSystem, *actor.PID, any), r *messages.Ready) {
	for _, pid := range w {
		deliver(system, pid, r)
	}
}

// onRefresh answers a RefreshTools: the child lists again when ready;
// otherwise the answer is the list in force, or the failure.
func (s *mcpSupervisor) onRefresh(ctx actor.Context, msg *messages.RefreshTools) {
	switch {
	case s.retrying():
		s.reply(ctx.Sender(), s.status.LastFailure)
	case s.status.State == Ready:
		s.forward(ctx)
	case s.status.State == Reconnecting:
		s.reply(ctx.Sender(), s.ready) // the reconnection lists anew
	case s.status.State == Connecting:
		if ctx.Sender() != nil {
			s.waiters = append(s.waiters, ctx.Sender())
		}
	default:
		s.reply(ctx.Sender(), s.final())
	}
}

// onToolList takes a list the child made after connecting. One from a
// child that failed since is stale: the reconnection brings its own.
func (s *mcpSupervisor) onToolList(r *messages.Ready) {
	if s.phase != phaseReady {
		return
	}
	s.ready = r
	if s.cfg.OnReady != nil {
		s.cfg.OnReady(r)
	}
	s.watchers.tell(s.system, s.cfg.Connection.deliver, r)
}

// onWatch adds or removes a watcher of the tool list. A remote watcher is
// watched in turn, so that a member that dies leaves no watcher behind.
func (s *mcpSupervisor) onWatch(ctx actor.Context, watch bool) {
	who := ctx.Sender()
	if who == nil {
		return
	}
	if !watch {
		s.watchers.remove(who)
		return
	}
	if s.watchers.add(who) && who.Address != s.self.Address {
		ctx.Watch(who)
	}
}

// The lists of resources and prompts: the connection keeps no copy of them
// (each request asks the server), so a change is only passed on, to
// ConnectionConfig.OnListChanged. Subscribing also clears go-sdk's
// per-session cache of the list (kept for a result's ttlMs), which a
// list_changed invalidates.

// The lists OnListChanged names.
const (
	listResources = "resources"
	listPrompts   = "prompts"
)

// listChangedHandlers makes opts subscribe to resources/list_changed and
// prompts/list_changed for cfg.OnListChanged, before the handlers of
// cfg.ClientOptions, which still run.
func listChangedHandlers(cfg *ConnectionConfig, opts *mcp.ClientOptions) {
	h := cfg.OnListChanged
	if h == nil {
		return
	}
	theirResources := opts.ResourceListChangedHandler
	opts.ResourceListChangedHandler = func(ctx context.Context, req *mcp.ResourceListChangedRequest) {
		h(listResources)
		if theirResources != nil {
			theirResources(ctx, req)
		}
	}
	theirPrompts := opts.PromptListChangedHandler
	opts.PromptListChangedHandler = func(ctx context.Context, req *mcp.PromptListChangedRequest) {
		h(listPrompts)
		if theirPrompts != nil {
			theirPrompts(ctx, req)
		}
	}
}
