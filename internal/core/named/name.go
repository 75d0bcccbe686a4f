package named

import "github.com/cuca-go/mcpconnector/transport"

// Name returns the server a transport of [Transport] is named after, and
// false for any other transport.
func Name(t transport.McpTransport) (string, bool) {
	if s, ok := t.(serverTransport); ok {
		return s.name, true
	}
	return "", false
}
