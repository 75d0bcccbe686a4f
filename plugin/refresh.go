package plugin

import (
	"bytes"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/messages"
)

// The tool list over time: every list the connection makes (at connect, on
// reconnection, and with WithToolRefresh on list_changed or after a TTL)
// becomes a new snapshot, swapped in whole.

// toolChange is what a new list added and removed, by name.
type toolChange struct{ added, removed []string }

// snapshot is the tool list in force. Once a TTL-bound list has expired,
// the first use of it starts a new listing and goes on with this one.
func (p *McpPlugin) snapshot() *toolSnapshot {
	s := p.tools.Load()
	if s.staleAt.Load() != 0 {
		p.maybeRefresh(s)
	}
	return s
}

// maybeRefresh asks for a new listing once s has expired, once per s.
func (p *McpPlugin) maybeRefresh(s *toolSnapshot) {
	if time.Now().UnixNano() < s.staleAt.Load() || p.closed.Load() || !s.refreshing.CompareAndSwap(false, true) {
		return
	}
	p.conn.RefreshTools(s.retryLater)
}

// retryLater makes s expire again a TTL from now: its refresh failed.
func (s *toolSnapshot) retryLater() {
	s.staleAt.Store(time.Now().Add(s.ttl).UnixNano())
	s.refreshing.Store(false)
}

// storeTools swaps in the list of r. A list that differs from the one in
// force (not the empty one before the first connection) is reported: at
// once to the status handlers while ready (a live change), or with the
// status that says ready again after a reconnection.
func (p *McpPlugin) storeTools(r *messages.Ready) {
	s := newToolSnapshot(r.Tools)
	s.instructions, s.protocolVersion = r.Instructions, r.ProtocolVersion
	s.hint, s.scope = r.ToolsTTL, r.ToolsCacheScope
	if p.toolRefresh && r.ToolsTTL > 0 {
		s.ttl = r.ToolsTTL
		s.staleAt.Store(time.Now().Add(r.ToolsTTL).UnixNano())
	}
	old := p.tools.Swap(s)
	if old.initial {
		return
	}
	added, removed := diffTools(old, s)
	if len(added) == 0 && len(removed) == 0 && sameTools(old, s) {
		return
	}
	ch := &toolChange{added: added, removed: removed}
	if p.status.Load().State != actors.Ready {
		p.pendingChange.Store(ch)
		return
	}
	p.logger.Info("mcp tool list changed",
		zap.Int("tools", len(s.sorted)), zap.Strings("added", added), zap.Strings("removed", removed))
	old2 := p.Status()
	st := &Status{State: old2.State, Restarts: old2.Restarts, LastError: old2.LastError,
		LastFailure: old2.LastFailure, LastFailureAt: old2.LastFailureAt, ToolsAdded: added, ToolsRemoved: removed}
	p.status.Store(st)
	p.notify(*st)
}

// takeChange puts a pending change of the tool list into s, a status that
// says ready.
func (p *McpPlugin) takeChange(s *Status) {
	if s.State != actors.Ready {
		return
	}
	if ch := p.pendingChange.Swap(nil); ch != nil {
		s.ToolsAdded, s.ToolsRemoved = ch.added, ch.removed
	}
}

// diffTools names the tools only in b (added) and only in a (removed),
// sorted.
func diffTools(a, b *toolSnapshot) (added, removed []string) {
	for _, t := range b.sorted {
		if a.tool(t.Name) == nil {
			added = append(added, t.Name)
		}
	}
	for _, t := range a.sorted {
		if b.tool(t.Name) == nil {
			removed = append(removed, t.Name)
		}
	}
	return added, removed
}

// sameTools reports whether two lists with the same names also say the
// same of each tool (description, schema, annotations): a model reading
// the new one would see nothing new.
func sameTools(a, b *toolSnapshot) bool {
	if len(a.sorted) != len(b.sorted) {
		return false
	}
	for i, t := range a.sorted {
		u := b.sorted[i]
		if t == u {
			continue
		}
		tj, err1 := json.Marshal(t)
		uj, err2 := json.Marshal(u)
		if err1 != nil || err2 != nil || !bytes.Equal(tj, uj) {
			return false
		}
	}
	return true
}
