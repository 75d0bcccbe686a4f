package plugin

import (
	"go.uber.org/zap"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/transport"
)

// retryCutStreams is the transport of a plugin with [WithRetryIdempotent]:
// each connection it opens that is a transportext.CutStreamRetrier (a
// Streamable HTTP endpoint on the direct path) re-sends, once, a call whose
// answer's stream was cut, when the tool is annotated readOnlyHint or
// idempotentHint in the plugin's current list. Its name, label and the
// transport it wraps are the wrapped one's.
type retryCutStreams struct {
	transport.McpTransport
	p *McpPlugin
}

// Open opens the wrapped transport and asks it to re-send such calls.
func (r retryCutStreams) Open(logger *zap.Logger) (mcp.Transport, error) {
	t, err := r.McpTransport.Open(logger)
	if c, ok := t.(transportext.CutStreamRetrier); ok && err == nil {
		c.RetryCutStreams(r.p.repeatable)
	}
	return t, err
}

// Unwrap returns the wrapped transport.
func (r retryCutStreams) Unwrap() transport.McpTransport { return r.McpTransport }

// repeatable reports whether the plugin's current list annotates tool as
// safe to run again: readOnlyHint or idempotentHint.
func (p *McpPlugin) repeatable(tool string) bool {
	s := p.tools.Load()
	if s == nil {
		return false
	}
	t := s.tool(tool)
	return t != nil && t.Annotations != nil && (t.Annotations.ReadOnlyHint || t.Annotations.IdempotentHint)
}
