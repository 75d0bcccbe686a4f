package plugin

import (
	"time"

	"github.com/cuca-go/mcpconnector/actors"
)

// Status is what [McpPlugin.Status] reports.
type Status struct {
	// State is the health of the connection (package actors names its
	// values): connecting at first, then ready; reconnecting while a
	// supervised connection restarts; failed once the restart budget is
	// spent (or, unsupervised, once the session ended); closed after
	// Close. A plugin made by [Connect] with [WithRetryConnect] whose first
	// connection failed is failed too, while its supervisor keeps trying;
	// it becomes ready when the server comes up. A toolbox's server not
	// started yet (a lazy one, its tools known from its manifest) is
	// actors.NotStarted; a plugin itself is never in it.
	State actors.State
	// Restarts counts the connection's restarts since Connect.
	Restarts int
	// LastError is why the connection is not ready now: the failure of its
	// last try while it connects again, reconnects or is failed. It is nil
	// while the connection is ready, before any failure, and once closed
	// after being ready: a recovered connection carries no error of the
	// past (LastFailure keeps it).
	LastError error
	// LastFailure is the connection's most recent failure, nil if none,
	// and LastFailureAt when it happened; they stay after the connection
	// recovers.
	LastFailure   error
	LastFailureAt time.Time
	// ToolsAdded and ToolsRemoved name, sorted, the tools that the change
	// this status reports added to the list and removed from it: a live
	// change ([WithToolRefresh]) or a reconnection that found other tools.
	// Empty when the status reports no change of the list, or a change of
	// tools' definitions only.
	ToolsAdded, ToolsRemoved []string
	// ProtocolVersion is the MCP revision of the latest session that was
	// ready: "2026-07-28", or an older one with [WithLegacyFallback]; ""
	// before the first.
	ProtocolVersion string
}

// Status reports the connection's health. It is cheap: no actor is asked.
func (p *McpPlugin) Status() Status { return *p.status.Load() }

func (p *McpPlugin) setStatus(notify func(Status), st actors.Status) {
	s := &Status{State: st.State, Restarts: st.Restarts, ProtocolVersion: p.tools.Load().protocolVersion}
	if st.LastFailure != nil {
		s.LastFailure, s.LastFailureAt = p.failure(st.LastFailure), st.LastFailureAt
	} else if old := p.status.Load(); old != nil {
		s.LastFailure, s.LastFailureAt = old.LastFailure, old.LastFailureAt
	}
	if st.Err() != nil {
		s.LastError = s.LastFailure
	}
	p.takeChange(s)
	p.status.Store(s)
	if notify != nil {
		notify(*s)
	}
}

// setState records a state the facade itself observed (an attached
// facade's actor lost or found again); cause, if not nil, becomes LastError
// and LastFailure.
func (p *McpPlugin) setState(st actors.State, cause error) {
	old := p.Status()
	s := &Status{State: st, Restarts: old.Restarts, LastFailure: old.LastFailure, LastFailureAt: old.LastFailureAt,
		ProtocolVersion: old.ProtocolVersion}
	if st != actors.Ready {
		s.LastError = old.LastError
	}
	if cause != nil {
		s.LastError = &Error{Kind: KindInternal, Server: p.server, Err: cause}
		s.LastFailure, s.LastFailureAt = s.LastError, time.Now()
	}
	p.takeChange(s)
	p.status.Store(s)
	p.notify(*s)
}
