package extension

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// Dialect is a session at a protocol revision other than the core's
// (2026-07-28): the older revisions a connection with
// actors.ConnectionConfig.LegacyFallback speaks (actors/internal/legacy).
// Where an [Extension] plugs in beside the calls of a session, a dialect
// plugs in where the session is made: the core connects with
// server/discover, and when the server refuses it, go-sdk's initialize
// goes out only if the connection has a dialect, which then shapes that
// session. The core keeps what is its own: it drops the 2026-07-28
// envelope of the session's messages, and its spans and status name the
// revision negotiated.
type Dialect interface {
	// Revisions are the revisions the dialect speaks, newest first: a
	// session that negotiated another one is refused.
	Revisions() []string
	// Initialize shapes the params of the initialize go-sdk sends (in
	// place; copy what it changes below, such as Capabilities). declared
	// are the keys the connection's extensions added to the capabilities'
	// extensions, which are 2026-07-28's.
	Initialize(p *mcp.InitializeParams, declared []string)
	// Direct reports whether a session of revision over tr keeps the
	// transport's direct tools/call path.
	Direct(tr transport.McpTransport, revision string) bool
}
