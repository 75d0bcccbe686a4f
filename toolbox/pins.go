package toolbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
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
	mf        *manifest // the manifest last read or written; nil if none
	everReady bool      // its plugin has been ready since it (last) started
	digests   map[*mcp.Tool]toolDigest
	held      map[string]HeldTool // by tool name, as of the latest read
}

// openStore opens the manifest directory, when one is needed.
func (t *Toolbox) openStore(cfg *mcpconfig.Config, o *options) error {
	dir := o.manifestDir
	need := dir != "" || o.pinned
	for _, name := range cfg.Enabled() {
		need = need || cfg.Servers[name].Lazy
	}
	if !need {
		return nil
	}
	var err error
	if dir == "" {
		if dir, err = DefaultManifestDir(); err != nil {
			return &plugin.Error{Kind: plugin.KindIO, Op: "manifest", Err: fmt.Errorf("toolbox: no manifest dir: %w", err)}
		}
	}
	if t.store, err = openManifestStore(dir); err != nil {
		return &plugin.Error{Kind: plugin.KindIO, Op: "manifest", Err: fmt.Errorf("toolbox: manifest dir %q: %w", dir, err)}
	}
	return nil
}

// loadManifest reads s's manifest, if one is kept; a bad one is ignored.
func (t *Toolbox) loadManifest(s *server) {
	if t.store == nil {
		return
	}
	mf, err := t.store.load(s.cfg)
	switch {
	case errors.Is(err, errNoManifest):
	case err != nil:
		t.logger.Warn("mcp server manifest ignored", zap.String("mcp_server", s.cfg.Name), zap.Error(err))
	default:
		s.mf = mf
		// The digests it keeps spare digesting its tools at Open.
		s.digests = make(map[*mcp.Tool]toolDigest, len(mf.Tools))
		for _, tool := range mf.Tools {
			if d, ok := mf.Digests[tool.Name]; ok && d.Digest != "" {
				s.digests[tool] = d
			}
		}
	}
}

// currentTools is s's list as the toolbox knows it now: its plugin's once
// ready (real), the tools and their definitions from one snapshot of its
// list, or else a lazy server's manifest's. Under s.listMu.
func (t *Toolbox) currentTools(s *server) (tools []*mcp.Tool, defs []host.ToolDefinition, real bool) {
	p := s.plugin()
	if p != nil && p.Status().State == plugin.StateReady {
		s.everReady = true
	}
	switch {
	case p != nil && (s.everReady || !s.lazy || s.mf == nil):
		tools, defs = p.ToolSet()
		return tools, defs, s.everReady
	case s.mf != nil:
		defs = make([]host.ToolDefinition, 0, len(s.mf.Tools))
		for _, tool := range s.mf.Tools {
			defs = append(defs, definitionOf(tool))
		}
		return s.mf.Tools, defs, false
	}
	return nil, nil, false
}

// definitionOf is tool as a plugin publishes it.
func definitionOf(tool *mcp.Tool) host.ToolDefinition {
	if raw, ok := tool.InputSchema.(json.RawMessage); ok && len(raw) > 0 {
		// A manifest's, read as it was written (valid JSON).
		return host.ToolDefinition{Name: tool.Name, Description: tool.Description, InputSchema: raw}
	}
	schema, err := json.Marshal(tool.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return host.ToolDefinition{Name: tool.Name, Description: tool.Description, InputSchema: schema}
}

// digestOf digests tool once per definition.
func (s *server) digestOf(tool *mcp.Tool) toolDigest {
	if d, ok := s.digests[tool]; ok {
		return d
	}
	if s.digests == nil {
		s.digests = map[*mcp.Tool]toolDigest{}
	}
	d := digestTool(tool)
	s.digests[tool] = d
	return d
}

// fullDigest is digestOf with the parts, which a digest read from a
// manifest's list lacks.
func (s *server) fullDigest(tool *mcp.Tool) toolDigest {
	if d := s.digestOf(tool); d.Parts != nil {
		return d
	}
	d := digestTool(tool)
	s.digests[tool] = d
	return d
}

// toolsOf reads s's tools for a rebuild: it keeps its manifest up to date
// with a real list and, with pinning, holds out what differs from the
// pins. Under s.listMu.
func (t *Toolbox) toolsOf(s *server) *serverTools {
	tools, defList, real := t.currentTools(s)
	st := &serverTools{tools: tools, defs: make(map[string]host.ToolDefinition, len(defList))}
	for _, d := range defList {
		st.defs[d.Name] = d
	}
	if t.store == nil {
		return st
	}
	pins := t.keepManifest(s, tools, real)
	if t.pinned {
		t.holdOut(s, st, pins)
	}
	return st
}

// keepManifest writes s's manifest again when its list (real: read from
// the server, not the manifest) changed, when its first pins are taken, or
// when its cache hints call for it, and returns the pins.
func (t *Toolbox) keepManifest(s *server, tools []*mcp.Tool, real bool) (pins map[string]toolDigest) {
	digests := make(map[string]toolDigest, len(tools))
	live := make(map[*mcp.Tool]bool, len(tools))
	for _, tool := range tools {
		digests[tool.Name] = s.digestOf(tool)
		live[tool] = true
	}
	maps.DeleteFunc(s.digests, func(tool *mcp.Tool, _ toolDigest) bool { return !live[tool] })
	if s.mf != nil {
		pins = s.mf.Pins
	}
	firstPins := t.pinned && pins == nil && (real || s.mf != nil)
	if firstPins {
		pins = make(map[string]toolDigest, len(tools))
		for _, tool := range tools {
			pins[tool.Name] = s.fullDigest(tool)
		}
		t.logger.Info("mcp server tools pinned on first use", zap.String("mcp_server", s.cfg.Name), zap.Int("tools", len(digests)))
	}
	var ttl time.Duration
	var scope string
	if p := s.plugin(); real && p != nil {
		ttl, scope = p.ToolsTTL(), p.ToolsCacheScope()
	}
	// A list with a ttl is written again while it is fresh, so that its
	// listedAt says when it was last seen (see manifest.expired).
	hinted := real && s.mf != nil && (s.mf.TTLMs != ttl.Milliseconds() || s.mf.CacheScope != scope || ttl > 0 && time.Since(s.mf.ListedAt) > ttl/2)
	if !(real && (s.mf == nil || !sameDigests(s.mf.Digests, digests))) && !firstPins && !hinted {
		return pins
	}
	if !real {
		tools, digests = s.mf.Tools, s.mf.Digests
	}
	mf := newManifest(s.cfg, tools, digests, pins)
	mf.TTLMs, mf.CacheScope = ttl.Milliseconds(), scope
	if !real {
		mf.ListedAt, mf.TTLMs, mf.CacheScope = s.mf.ListedAt, s.mf.TTLMs, s.mf.CacheScope
	}
	if err := t.store.save(mf); err != nil {
		t.logger.Warn("mcp server manifest not written", zap.String("mcp_server", s.cfg.Name), zap.Error(err))
	}
	s.mf = mf
	return pins
}

// holdOut takes out of st the tools that are new or differ from their
// pins, recording them as held (those the entry's filters let through).
func (t *Toolbox) holdOut(s *server, st *serverTools, pins map[string]toolDigest) {
	held := map[string]HeldTool{}
	kept := st.tools[:0:0]
	for _, tool := range st.tools {
		d := s.digestOf(tool)
		h := HeldTool{Server: s.cfg.Name, Tool: tool.Name, Name: ExposedName(s.cfg.ToolPrefix(), tool.Name)}
		switch pin, ok := pins[tool.Name]; {
		case !ok:
			h.New = true
		case pin.Digest != d.Digest:
			h.Changed = changedParts(pin, digestTool(tool)) // with its parts
		default:
			kept = append(kept, tool)
			continue
		}
		if !s.cfg.AllowsTool(tool.Name) {
			continue
		}
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

// sameDigests reports whether a and b digest the same tools alike.
func sameDigests(a, b map[string]toolDigest) bool {
	return maps.EqualFunc(a, b, func(x, y toolDigest) bool { return x.Digest == y.Digest })
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
	digests := make(map[string]toolDigest, len(tools))
	for _, tool := range tools {
		digests[tool.Name] = s.fullDigest(tool)
	}
	mf := newManifest(s.cfg, tools, digests, digests)
	if !real && s.mf != nil {
		mf.ListedAt = s.mf.ListedAt
	}
	if err := t.store.save(mf); err != nil {
		return &plugin.Error{Kind: plugin.KindIO, Server: fmt.Sprintf("server %q", s.cfg.Name), Op: "manifest", Err: err}
	}
	s.mf = mf
	t.logger.Info("mcp server tools accepted and pinned", zap.String("mcp_server", s.cfg.Name), zap.Int("tools", len(tools)))
	return nil
}
