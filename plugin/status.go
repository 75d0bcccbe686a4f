package plugin

import (
	"github.com/cuca-go/mcpconnector/actors"
)

// State is the health of a plugin's connection.
type State = actors.State

// The states of a connection: connecting at first, then ready; reconnecting
// while a supervised connection restarts; failed once the restart budget is
// spent (or, unsupervised, once the session ended); closed after Close. A
// plugin made by [Start] whose first connection failed is failed too, while
// its supervisor keeps trying; it becomes ready when the server comes up.
const (
	StateConnecting   = actors.Connecting
	StateReady        = actors.Ready
	StateReconnecting = actors.Reconnecting
	StateFailed       = actors.Failed
	StateClosed       = actors.Closed
	// StateNotStarted is a server that a toolbox has not started yet: a
	// lazy one, whose tools are known from its manifest. A plugin itself
	// is never in it.
	StateNotStarted = actors.NotStarted
)

// Status is what [McpPlugin.Status] reports.
type Status struct {
	State State
	// Restarts counts the connection's restarts since Connect.
	Restarts int
	// LastError is the most recent failure of the connection, nil if none.
	LastError error
	// ToolsAdded and ToolsRemoved name, sorted, the tools that the change
	// this status reports added to the list and removed from it: a live
	// change ([WithToolRefresh]) or a reconnection that found other tools.
	// Empty when the status reports no change of the list, or a change of
	// tools' definitions only.
	ToolsAdded, ToolsRemoved []string
}

// Status reports the connection's health. It is cheap: no actor is asked.
func (p *McpPlugin) Status() Status { return *p.status.Load() }

func (p *McpPlugin) setStatus(notify func(Status), st actors.Status) {
	s := &Status{State: st.State, Restarts: st.Restarts}
	if st.LastFailure != nil {
		s.LastError = p.failure(st.LastFailure)
	}
	if old := p.status.Load(); old != nil && s.LastError == nil {
		s.LastError = old.LastError
	}
	p.takeChange(s)
	p.status.Store(s)
	if notify != nil {
		notify(*s)
	}
}

// setState records a state the facade itself observed (an attached
// facade's actor lost or found again); cause, if not nil, becomes LastError.
func (p *McpPlugin) setState(st State, cause error) {
	old := p.Status()
	s := &Status{State: st, Restarts: old.Restarts, LastError: old.LastError}
	if cause != nil {
		s.LastError = &Error{Kind: KindInternal, Server: p.server, Err: cause}
	}
	p.takeChange(s)
	p.status.Store(s)
	p.notify(*s)
}
