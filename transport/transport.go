package transport

import (
	"errors"
	"fmt"

	"github.com/cuca-go/mcpconnector/internal/core/transportext"
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
	// could not be started, and are [ErrNotSupported] for WebSocket.
	Open(logger *zap.Logger) (mcp.Transport, error)
}

// ErrNotSupported is returned by [WebSocket.Open]: MCP 2026-07-28 defines no
// WebSocket binding.
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

// WebSocket names a WebSocket endpoint. It is not connectable: [WebSocket.Open]
// always fails with [ErrNotSupported].
type WebSocket struct {
	URL string
}

// String names the endpoint, its URL redacted (no user information, query or fragment).
func (w WebSocket) String() string { return fmt.Sprintf("websocket %q", transportext.RedactURL(w.URL)) }

// Open fails with [ErrNotSupported].
func (w WebSocket) Open(*zap.Logger) (mcp.Transport, error) {
	return nil, fmt.Errorf("%w: websocket transport (%s)", ErrNotSupported, w.URL)
}
