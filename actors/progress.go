package actors

import (
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/safetext"
	"github.com/cuca-go/mcpconnector/messages"
)

// Progress of calls: a call that asks for progress (or has an idle timeout)
// carries a progress token, the session's notifications/progress find the
// call by it, and each one passes the progress on to the caller and pushes
// the call's idle timer back.

// hooks are what this connection hears from its session besides replies.
func (c *mcpConnection) hooks() sessionHooks {
	self, system := c.self, c.system
	return sessionHooks{
		progress: c.onProgress,
		toolsChanged: func(*mcp.ClientSession) {
			system.Root.Send(self, &toolsStale{})
		},
		supervised: c.supervised(),
		failed:     func(err error) { system.Root.Send(self, &sessionEnded{err: err}) },
	}
}

// track gives cl a progress token and, with an idle timeout, its idle
// timer. The token is the call's ID, unique among the calls in flight.
// Called on the actor's goroutine before the call's goroutine starts.
func (c *mcpConnection) track(cl *call) {
	pr := &callProgress{token: strconv.FormatUint(cl.msg.ID, 10)}
	if d := cl.msg.IdleTimeout; d > 0 {
		pr.idle = time.AfterFunc(d, func() { cl.expire(&idleTimeout{d}) })
	}
	cl.prog = pr
	c.progMu.Lock()
	c.tokens[pr.token] = cl
	c.progMu.Unlock()
}

// untrack ends cl's progress before its answer goes out, so that no
// progress follows the answer and a finished call is never cancelled by
// its idle timer. It may be called more than once.
func (c *mcpConnection) untrack(cl *call) {
	pr := cl.prog
	if pr == nil {
		return
	}
	c.progMu.Lock()
	defer c.progMu.Unlock()
	pr.done = true
	if pr.idle != nil {
		pr.idle.Stop()
	}
	if c.tokens[pr.token] == cl {
		delete(c.tokens, pr.token)
	}
}

// onProgress runs on the session's notification goroutine, one
// notification at a time, so a call's progress reaches its caller in the
// order the server sent it. Progress for a token no call in flight has
// (a late one, or one the server made up) is dropped.
func (c *mcpConnection) onProgress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	c.progMu.Lock()
	cl := c.tokens[token]
	c.progMu.Unlock()
	if cl == nil {
		return
	}
	c.progressed(cl, &messages.CallProgress{ID: cl.msg.ID, Progress: p.Progress, Total: p.Total, Message: safetext.Clean(p.Message)})
}

// progressed counts a sign of life of cl's call (a progress notification,
// a task's new status): its idle timeout starts again, and p, when there
// is one, reaches a caller that asked for progress. Under progMu: the
// call's answer (untrack) waits for this progress to be sent, so the
// caller sees the progress first.
func (c *mcpConnection) progressed(cl *call, p *messages.CallProgress) {
	pr := cl.prog
	if pr == nil {
		return
	}
	c.progMu.Lock()
	defer c.progMu.Unlock()
	if pr.done {
		return
	}
	if pr.idle != nil {
		pr.idle.Reset(cl.msg.IdleTimeout)
	}
	if p != nil && cl.msg.Progress && cl.sender != nil {
		c.cfg.deliver(c.system, cl.sender, p)
	}
}
