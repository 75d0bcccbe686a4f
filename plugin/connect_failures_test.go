package plugin_test

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Each connect failure says what happened in its own words; only a server
// that does not speak 2026-07-28 is told about the protocol version.
func TestConnectFailuresSayWhatHappened(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedPort := "http://" + ln.Addr().String() + "/mcp"
	require.NoError(t, ln.Close())

	cases := []struct {
		name    string
		tr      transport.McpTransport
		kind    error
		is      error
		says    string
		version bool
	}{
		{"legacy-only server", testserver.Raw(t, "legacy"), plugin.ErrInternal, plugin.ErrProtocolVersion,
			"this client speaks only MCP 2026-07-28", true},
		{"stays up, refuses server/discover with code 0", testserver.Raw(t, "session_first"), plugin.ErrInternal, plugin.ErrProtocolVersion,
			`does not speak MCP 2026-07-28: it answered server/discover with error 0 "method \"server/discover\" is invalid during session initialization"`, true},
		{"HTTP 400 Server not initialized", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 400, testserver.LegacyNotInitializedBody).URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion,
			`does not speak MCP 2026-07-28: it answered the server/discover POST with "HTTP 400 Bad Request: Bad Request: Server not initialized"`, true},
		{"HTTP 400 No valid session ID", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 400, "Bad Request: No valid session ID provided").URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion, `"HTTP 400 Bad Request: Bad Request: No valid session ID provided"`, true},
		{"HTTP 404", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 404, "404 page not found").URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion, `"HTTP 404 Not Found: 404 page not found"`, true},
		{"HTTP 405", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 405, "").URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion, `"HTTP 405 Method Not Allowed"`, true},
		{"HTTP 503 is no refusal", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 503, "upstream restarting").URL},
			plugin.ErrInternal, nil, "HTTP 503 Service Unavailable: upstream restarting", false},
		{"child exits with status 3", transportSh("echo 'no config found' >&2; exit 3"), plugin.ErrInternal, nil,
			"exit status 3", false},
		{"child prints why, then a sample config", transportSh("cat >&2 <<'EOF'\n" + dbhubWithoutDSN + "EOF\nexit 1"), plugin.ErrInternal, nil,
			"exit status 1) (server stderr: ERROR: Database connection configuration is required. | … | ", false},
		{"child killed by a signal", transportSh("kill -9 $$"), plugin.ErrInternal, nil,
			"killed by signal SIGKILL", false},
		{"closed port", transport.StreamableHTTP{URL: closedPort}, plugin.ErrInternal, nil,
			"connection refused", false},
		{"no such script", transport.NewStdio(filepath.Join(t.TempDir(), "no-such-script.sh")), plugin.ErrIO, nil,
			"no-such-script.sh", false},
		{"never answers", transportSh("exec sleep 60"), plugin.ErrInternal, context.DeadlineExceeded,
			"no answer within the connect timeout of 300ms", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := plugin.Connect(context.Background(), tc.tr, plugin.WithConnectTimeout(300*time.Millisecond))
			t.Logf("failed after %s: %v", time.Since(start), err)
			require.ErrorIs(t, err, tc.kind)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Contains(t, err.Error(), tc.says)
			if tc.version {
				assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
			} else {
				assert.NotErrorIs(t, err, plugin.ErrProtocolVersion)
				assert.NotContains(t, err.Error(), "2026-07-28", "only a version refusal mentions the version")
			}
		})
	}
}

// dbhubWithoutDSN is the shape of what dbhub prints to stderr when started
// without a database: the line that says why, then a sample configuration.
const dbhubWithoutDSN = `
ERROR: Database connection configuration is required.
Please provide configuration in one of these ways (in order of priority):

1. Use demo mode: --demo (uses in-memory SQLite with sample employee database)
2. TOML config file: --config=path/to/dbhub.toml or ./dbhub.toml
3. Command line argument: --dsn="your-connection-string"

Example DSN formats:
  - postgres: postgres://user:password@localhost:5432/dbname?sslmode=disable
  - sqlite: sqlite:///path/to/database.db

Example TOML config (dbhub.toml):
  [[sources]]
  id = "my_db"
  dsn = "postgres://user:pass@localhost:5432/dbname"

See documentation for more details on configuring database connections.
`
