package named

import (
	"fmt"

	"github.com/cuca-go/mcpconnector/transport"
)

// Transport returns t named after server: its String is
// `server "github" (stdio "npx")`, its label for logs the server alone.
func Transport(server string, t transport.McpTransport) transport.McpTransport {
	return serverTransport{server, t}
}

type serverTransport struct {
	name string
	transport.McpTransport
}

func (s serverTransport) String() string {
	return fmt.Sprintf("server %q (%s)", s.name, s.McpTransport.String())
}

// Unwrap returns the server's own transport, so that telemetry can tell
// stdio from HTTP and read the address.
func (s serverTransport) Unwrap() transport.McpTransport { return s.McpTransport }
