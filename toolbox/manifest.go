package toolbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/manifest"
)

// defaultManifestDir is where manifests are kept when a server is lazy or
// tools are pinned and [WithManifestDir] names no directory:
// os.UserCacheDir()/mcpconnector.
func defaultManifestDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mcpconnector"), nil
}

// openStore opens the manifest directory (package manifest), when one is
// needed.
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
		if dir, err = defaultManifestDir(); err != nil {
			return &plugin.Error{Kind: plugin.KindIO, Op: "manifest", Err: fmt.Errorf("toolbox: no manifest dir: %w", err)}
		}
	}
	if t.store, err = manifest.Open(dir); err != nil {
		return &plugin.Error{Kind: plugin.KindIO, Op: "manifest", Err: fmt.Errorf("toolbox: manifest dir %q: %w", dir, err)}
	}
	return nil
}

// loadManifest reads s's manifest, if one is kept; a bad one is ignored.
func (t *Toolbox) loadManifest(s *server) {
	if t.store == nil {
		return
	}
	mf, err := t.store.Load(s.cfg)
	switch {
	case errors.Is(err, manifest.ErrNone):
	case err != nil:
		t.logger.Warn("mcp server manifest ignored", zap.String("mcp_server", s.cfg.Name), zap.Error(err))
	default:
		s.mf = mf
		s.digests = manifest.DigestsOf(mf) // spares digesting its tools at Open
	}
}

// currentTools is s's list as the toolbox knows it now: its plugin's once
// ready (real), the tools and their definitions from one snapshot of its
// list, or else a lazy server's manifest's. Under s.listMu.
func (t *Toolbox) currentTools(s *server) (tools []*mcp.Tool, defs []host.ToolDefinition, real bool) {
	p := s.plugin()
	if p != nil && p.Status().State == actors.Ready {
		s.everReady = true
	}
	switch {
	case p != nil && (s.everReady || !s.lazy || s.mf == nil):
		tools, defs = p.ToolSet()
		return tools, defs, s.everReady
	case s.mf != nil:
		return s.mf.Tools, s.mf.Definitions(), false
	}
	return nil, nil, false
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

// keepManifest writes s's manifest again when [manifest.Update] says so
// (real: the list was read from the server, not the manifest), taking its
// first pins with [WithPinnedTools], and returns the pins.
func (t *Toolbox) keepManifest(s *server, tools []*mcp.Tool, real bool) (pins map[string]manifest.Digest) {
	l := manifest.Listing{Tools: tools, Digests: s.digests.Named(tools), Real: real}
	if s.mf != nil {
		pins = s.mf.Pins
	}
	firstPins := t.pinned && pins == nil && (real || s.mf != nil)
	if firstPins {
		pins = s.digests.Pins(tools)
		t.logger.Info("mcp server tools pinned on first use", zap.String("mcp_server", s.cfg.Name), zap.Int("tools", len(l.Digests)))
	}
	if p := s.plugin(); real && p != nil {
		l.TTL, l.CacheScope = p.ToolsTTL(), p.ToolsCacheScope()
	}
	mf := manifest.Update(s.mf, s.cfg, l, pins, firstPins)
	if mf == nil {
		return pins
	}
	if err := t.store.Save(mf); err != nil {
		t.logger.Warn("mcp server manifest not written", zap.String("mcp_server", s.cfg.Name), zap.Error(err))
	}
	s.mf = mf
	return pins
}
