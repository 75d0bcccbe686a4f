package transport

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// McpTransport selects an MCP server and how to reach it.
type McpTransport interface {
	// String names the server in logs and errors, e.g. `stdio "my-server"`.
	String() string
	// Open prepares one connection attempt. It does no I/O; the returned
	// transport dials (or spawns) when go-sdk connects it. Errors that Open
	// or the dial return are wrapped in [*SpawnError] when a child process
	// could not be started; a transport that cannot be used says so with
	// [ErrNotSupported].
	Open(logger *zap.Logger) (mcp.Transport, error)
}

// ErrNotSupported marks a transport that cannot be used: [SSE] without the
// older revisions' bridge (plugin.WithLegacyFallback), and an mcp.json
// entry of type "sse" without it or "ws" (MCP defines no WebSocket
// binding), which mcpconfig's Server.Transport refuses with it.
var ErrNotSupported = errors.New("transport: not supported")

// ErrNotSent marks the failure of a message that never left this process,
// so the server cannot have seen it: a stdio child whose stdin is closed
// (it exited), an HTTP endpoint where nothing accepted the connection. A
// call that fails so may be sent again on a new session.
var ErrNotSent = errors.New("transport: message not sent")

// SpawnError reports that a stdio child process could not be started: the
// command was not found, is not executable, or the fork failed.
type SpawnError struct {
	Command string
	Err     error
}

func (e *SpawnError) Error() string {
	return fmt.Sprintf("transport: spawning %q: %v", e.Command, e.Err)
}

// Unwrap returns the cause, e.g. exec.ErrNotFound or fs.ErrPermission.
func (e *SpawnError) Unwrap() error { return e.Err }
