// Package legacy is the dialect of the MCP revisions before 2026-07-28
// (an [extension.Dialect]), which a connection with
// actors.ConnectionConfig.LegacyFallback speaks to a server that refused
// server/discover: go-sdk's initialize handshake at the newest revision
// the server accepts, then that revision's session.
package legacy

import (
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/transport"
)

// Dialect is the older revisions' dialect.
type Dialect struct {
	// Accepts are the revisions it speaks, newest first
	// (actors.LegacyRevisions).
	Accepts []string
}

var _ extension.Dialect = Dialect{}

// Revisions implements [extension.Dialect]: Accepts.
func (d Dialect) Revisions() []string { return d.Accepts }

// Initialize takes out of the capabilities' extensions those that the
// connection's extensions declared (declared): they are 2026-07-28's (the
// tasks extension, SEP-2663), which an older revision's session does not
// have. Those the host declared itself stay.
func (Dialect) Initialize(p *mcp.InitializeParams, declared []string) {
	c := p.Capabilities
	if c == nil || len(declared) == 0 || !slices.ContainsFunc(declared, func(k string) bool { _, ok := c.Extensions[k]; return ok }) {
		return
	}
	cp := *c
	cp.Extensions = maps.Clone(c.Extensions)
	for _, k := range declared {
		delete(cp.Extensions, k)
	}
	if len(cp.Extensions) == 0 {
		cp.Extensions = nil
	}
	p.Capabilities = &cp
}

// Direct keeps the direct tools/call path over stdio, where an older
// revision's tools/call is the 2026-07-28 line without the envelope
// (which directcall.Lines drops once initialize goes out). Over
// Streamable HTTP the path speaks 2026-07-28 only (no session id), and
// the session's calls go through go-sdk's session.
func (Dialect) Direct(tr transport.McpTransport, _ string) bool { return overStdio(tr) }

// overStdio reports whether t, unwrapped, is transport.Stdio.
func overStdio(t transport.McpTransport) bool {
	for range 8 { // bounded: a transport that wraps itself is a bug, not a hang
		w, ok := t.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	switch t.(type) {
	case transport.Stdio, *transport.Stdio:
		return true
	}
	return false
}
