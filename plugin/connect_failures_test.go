package plugin_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
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
			`does not speak MCP 2026-07-28: it answered the server/discover POST with "HTTP 400 Bad Request: error -32000: Bad Request: Server not initialized"`, true},
		{"HTTP 400 No valid session ID", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 400, "Bad Request: No valid session ID provided").URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion, `"HTTP 400 Bad Request: Bad Request: No valid session ID provided"`, true},
		{"HTTP 404", transport.StreamableHTTP{URL: testserver.NewRefusingHTTP(t, 404, "404 page not found").URL},
			plugin.ErrInternal, plugin.ErrProtocolVersion, `"HTTP 404 Not Found: 404 page not found": no MCP endpoint is at that URL; check its path`, true},
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
			// A refusal or a failure comes long before a minute, however
			// slowly a re-executed test binary starts on a busy machine;
			// only the server that never answers spends its timeout.
			timeout := time.Minute
			if tc.is == context.DeadlineExceeded {
				timeout = 300 * time.Millisecond
			}
			start := time.Now()
			_, err := plugin.Connect(context.Background(), tc.tr, plugin.WithConnectTimeout(timeout))
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

// A web server that is no MCP server answers the discover POST with 404:
// the refusal names the URL and says to check its path.
func TestA404NamesTheURLAndItsPath(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "<h1>It works</h1>") })
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	url := web.URL + "/mcp"
	_, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: url + "?key=secret"}, plugin.WithConnectTimeout(time.Minute))
	require.ErrorIs(t, err, plugin.ErrInternal)
	t.Log(err)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
	assert.Contains(t, err.Error(), "it answered the server/discover POST to "+url+` with "HTTP 404 Not Found: 404 page not found"`)
	assert.Contains(t, err.Error(), "no MCP endpoint is at that URL; check its path")
	assert.NotContains(t, err.Error(), "secret", "the query may hold credentials")
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

// The server's words are the server's: a JSON-RPC error answer reads "the
// server answered <method> with error <code>: <message>" (the call's Op
// names tools/call already) and stays a *jsonrpc.Error for errors.As; a
// transport failure names the method once, the URL, and what to check.
func TestServerWordsAreTheServers(t *testing.T) {
	answers := []struct {
		name    string
		connect func() (*plugin.McpPlugin, error)
		code    int64
		message string
		says    string
	}{
		{"tools/list over HTTP", func() (*plugin.McpPlugin, error) {
			return plugin.Connect(context.Background(), transport.StreamableHTTP{URL: testserver.NewListErrorHTTP(t, -32603, "fetch failed")})
		}, -32603, "fetch failed", `connect: the server answered tools/list with error -32603: fetch failed`},
		{"tools/list over stdio", func() (*plugin.McpPlugin, error) {
			return plugin.Connect(context.Background(), testserver.Raw(t, "list_error"))
		}, -32603, "tools are on fire", `connect: the server answered tools/list with error -32603: tools are on fire`},
		{"tools/call over stdio", func() (*plugin.McpPlugin, error) {
			p, err := plugin.Connect(context.Background(), testserver.Raw(t, "call_error"))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })
			_, err = p.CallTool(context.Background(), "t", nil).Await(context.Background())
			return nil, err
		}, testserver.CallErrorCode, testserver.CallErrorMessage,
			`tools/call "t": the server answered with error -32602: ` + testserver.CallErrorMessage},
	}
	for _, tc := range answers {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.connect()
			require.ErrorIs(t, err, plugin.ErrInternal)
			t.Log(err)
			assert.Contains(t, err.Error(), tc.says)
			assert.NotContains(t, err.Error(), "calling", "go-sdk's wrapping is left out")
			var rpc *jsonrpc.Error
			require.ErrorAs(t, err, &rpc)
			assert.Equal(t, tc.code, rpc.Code)
			assert.Equal(t, tc.message, rpc.Message)
		})
	}

	t.Run("nothing listens", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		url := "http://" + ln.Addr().String() + "/mcp"
		require.NoError(t, ln.Close())
		_, err = plugin.Connect(context.Background(), transport.StreamableHTTP{URL: url + "?token=secret"})
		require.ErrorIs(t, err, plugin.ErrInternal)
		t.Log(err)
		assert.Equal(t, 1, strings.Count(err.Error(), "server/discover"), "the method named once")
		assert.Contains(t, err.Error(), "server/discover could not reach "+url+": nothing listens there; check the URL")
		assert.Contains(t, err.Error(), "connection refused")
		_, reach, _ := strings.Cut(err.Error(), "could not reach")
		assert.NotContains(t, reach, "secret", "the query may hold credentials")
		var rpc *jsonrpc.Error
		assert.False(t, errors.As(err, &rpc), "no server's error")
	})
}
