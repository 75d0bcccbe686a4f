package actors

import (
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/messages"
)

// Progress of calls: a call that asks for progress (or has an idle timeout)
// carries a progress token, the session's notifications/progress find the
// call by it, and each one passes the progress on to the caller and pushes
// the call's idle timer back.

// hooks are what this connection hears from its session besides replies.
func (c *McpConnection) hooks() sessionHooks {
	self, system := c.self, c.system
	return sessionHooks{
		progress: c.onProgress,
		toolsChanged: func(s *mcp.ClientSession) {
			system.Root.Send(self, &toolsStale{session: s})
		},
	}
}

// track gives cl a progress token and, with an idle timeout, its idle
// timer. The token is the call's ID, unique among the calls in flight.
// Called on the actor's goroutine before the call's goroutine starts.
func (c *McpConnection) track(cl *call) {
	cl.token = strconv.FormatUint(cl.msg.ID, 10)
	if d := cl.msg.IdleTimeout; d > 0 {
		cancel := cl.cancel
		cl.idle = time.AfterFunc(d, func() { cancel(&idleTimeout{d}) })
	}
	c.tokenMu.Lock()
	c.tokens[cl.token] = cl
	c.tokenMu.Unlock()
}

// untrack ends cl's progress before its answer goes out, so that no
// progress follows the answer and a finished call is never cancelled by
// its idle timer. It may be called more than once.
func (c *McpConnection) untrack(cl *call) {
	if cl.token == "" {
		return
	}
	cl.progMu.Lock()
	cl.progDone = true
	if cl.idle != nil {
		cl.idle.Stop()
	}
	cl.progMu.Unlock()
	c.tokenMu.Lock()
	if c.tokens[cl.token] == cl {
		delete(c.tokens, cl.token)
	}
	c.tokenMu.Unlock()
}

// onProgress runs on the session's notification goroutine, one
// notification at a time, so a call's progress reaches its caller in the
// order the server sent it. Progress for a token no call in flight has
// (a late one, or one the server made up) is dropped.
func (c *McpConnection) onProgress(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	c.tokenMu.Lock()
	cl := c.tokens[token]
	c.tokenMu.Unlock()
	if cl == nil {
		return
	}
	// Under progMu: the call's answer waits for this progress to be sent,
	// so the caller sees the progress first.
	cl.progMu.Lock()
	defer cl.progMu.Unlock()
	if cl.progDone {
		return
	}
	if cl.idle != nil {
		cl.idle.Reset(cl.msg.IdleTimeout)
	}
	if cl.msg.Progress && cl.sender != nil {
		c.system.Root.Send(cl.sender, &messages.CallProgress{
			ID: cl.msg.ID, Progress: p.Progress, Total: p.Total, Message: p.Message,
		})
	}
}
