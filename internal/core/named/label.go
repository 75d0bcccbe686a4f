package named

import "github.com/cuca-go/mcpconnector/transport"

// LabelOf names t's server as logs name it: a toolbox's server by the key
// of its mcp.json entry alone, a stdio, Streamable HTTP or SSE transport
// by its Label when it has one; else, through the transports that wrap
// another (an Unwrap method), the wrapped one's; else t.String().
func LabelOf(t transport.McpTransport) string {
	for u := t; u != nil; {
		switch v := u.(type) {
		case serverTransport:
			return v.name
		case transport.Stdio:
			return labelOr(v.Label, u)
		case *transport.Stdio:
			return labelOr(v.Label, u)
		case transport.StreamableHTTP:
			return labelOr(v.Label, u)
		case *transport.StreamableHTTP:
			return labelOr(v.Label, u)
		case transport.SSE:
			return labelOr(v.Label, u)
		case *transport.SSE:
			return labelOr(v.Label, u)
		}
		w, ok := u.(interface{ Unwrap() transport.McpTransport })
		if !ok {
			break
		}
		u = w.Unwrap()
	}
	if t == nil {
		return ""
	}
	return t.String()
}

// labelOr is label, or t's String() when it is empty.
func labelOr(label string, t transport.McpTransport) string {
	if label != "" {
		return label
	}
	return t.String()
}
