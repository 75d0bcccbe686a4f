package toolbox

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/manifest"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
)

// ErrToolChanged is wrapped by the error of a call to a tool that
// [WithPinnedTools] holds out, and by a server's status while it holds
// some: the tool changed since it was pinned, or is new.
var ErrToolChanged = errors.New("toolbox: tool changed since it was pinned")

// HeldTool is a tool that [WithPinnedTools] holds out.
type HeldTool struct {
	// Server is the server's name; Tool the tool's own name there, and
	// Name the name it would be exposed under (as [Tool.Name]).
	Server, Tool, Name string
	// New is true for a tool the pins do not have; otherwise Changed names
	// the parts that differ from the pin, sorted: among "annotations",
	// "description", "inputSchema", "outputSchema", "title".
	New     bool
	Changed []string
}

// why says what happened to the tool, after its name.
func (h HeldTool) why() string {
	if h.New {
		return "is new since the tools were pinned"
	}
	return "changed since it was pinned (" + strings.Join(h.Changed, ", ") + ")"
}

// err is the error of a call to the held tool.
func (h HeldTool) err() error {
	return &plugin.Error{Kind: plugin.KindDenied, Server: fmt.Sprintf("server %q", h.Server), Op: messages.CallOp(h.Name),
		Err: fmt.Errorf("%w: tool %q of server %q %s; held out until the host accepts it", ErrToolChanged, h.Tool, h.Server, h.why())}
}

// pinState is a server's manifest and what pinning holds out of it; under
// the server's listMu.
type pinState struct {
	mf        *manifest.Manifest // the manifest last read or written; nil if none
	everReady bool               // its plugin has been ready since it (last) started
	digests   manifest.Digests
	held      map[string]HeldTool // by tool name, as of the latest read
}

// holdOut takes out of st the tools that are new or differ from their
// pins, recording them as held (those the entry's filters let through).
func (t *Toolbox) holdOut(s *server, st *serverTools, pins map[string]manifest.Digest) {
	held := map[string]HeldTool{}
	kept := st.tools[:0:0]
	for _, tool := range st.tools {
		same, isNew, changed := s.digests.Compare(pins, tool)
		if same {
			kept = append(kept, tool)
			continue
		}
		if !serverrules.AllowsTool(s.cfg, tool.Name) {
			continue
		}
		h := HeldTool{Server: s.cfg.Name, Tool: tool.Name, Name: exposedName(serverrules.ToolPrefix(s.cfg), tool.Name), New: isNew, Changed: changed}
		held[tool.Name] = h
		if old, was := s.held[tool.Name]; !was || !slices.Equal(old.Changed, h.Changed) {
			t.logger.Warn("mcp tool held out: "+h.why(), zap.String("mcp_server", s.cfg.Name), zap.String("tool", tool.Name),
				zap.Strings("changed", h.Changed))
		}
	}
	st.tools = kept
	s.held = held
	st.held = held
}

// lastHeld is what pinning held out of s's list when it was last read
// (nil if nothing), which it reads without waiting for a read under way.
func (s *server) lastHeld() map[string]HeldTool {
	if last := s.last.Load(); last != nil {
		return last.held
	}
	return nil
}

// heldTools is the status error of s's held tools, nil if none.
func (s *server) heldTools() error {
	held := s.lastHeld()
	if len(held) == 0 {
		return nil
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(held)) {
		parts = append(parts, fmt.Sprintf("%q %s", name, held[name].why()))
	}
	return &plugin.Error{Kind: plugin.KindDenied, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "toolbox",
		Err: fmt.Errorf("%w: held out: %s", ErrToolChanged, strings.Join(parts, "; "))}
}

// HeldTools returns the tools [WithPinnedTools] holds out, by server and
// tool name; nil when none is.
func (t *Toolbox) HeldTools() []HeldTool {
	var out []HeldTool
	for _, s := range t.servers {
		for _, h := range s.lastHeld() {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b HeldTool) int { return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Tool, b.Tool)) })
	return out
}

// AcceptTools pins the server's current tool list (its real one, or a lazy
// server's manifest's before it starts) and exposes the tools it held out.
// It fails for a name that is no enabled server (wrapping
// [ErrUnknownServer]), without [WithPinnedTools], and when the manifest
// cannot be written.
func (t *Toolbox) AcceptTools(server string) error {
	s := t.servers[server]
	if s == nil {
		return fmt.Errorf("%w: %q", ErrUnknownServer, server)
	}
	if !t.pinned {
		return errors.New("toolbox: AcceptTools needs WithPinnedTools")
	}
	if err := t.pinCurrent(s); err != nil {
		return err
	}
	if t.opened.Load() {
		t.rebuild(false, true)
	}
	return nil
}

// pinCurrent pins s's current list and writes its manifest.
func (t *Toolbox) pinCurrent(s *server) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	tools, _, real := t.currentTools(s)
	pins := s.digests.Pins(tools)
	mf := manifest.New(s.cfg, tools, pins, pins)
	if !real && s.mf != nil {
		mf.ListedAt = s.mf.ListedAt
	}
	if err := t.store.Save(mf); err != nil {
		return &plugin.Error{Kind: plugin.KindIO, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "manifest", Err: err}
	}
	s.mf = mf
	t.logger.Info("mcp server tools accepted and pinned", zap.String("mcp_server", s.cfg.Name), zap.Int("tools", len(tools)))
	return nil
}
