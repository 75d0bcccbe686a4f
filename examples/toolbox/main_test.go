package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/examples/internal/demomodel"
	"github.com/cuca-go/mcpconnector/examples/internal/demoserver"
	"github.com/cuca-go/mcpconnector/examples/internal/observe"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestMain doubles as the stdio add server: the bundled mcp.json runs
// ${MCP_DEMO_SELF}, which under test is this test binary, with demoserver.AddFlag.
func TestMain(m *testing.M) {
	demoserver.ServeAddIfAsked()
	goleak.VerifyTestMain(m)
}

// scripted runs the model on the built-in scripted endpoint.
var scripted = demomodel.Target{BaseURL: demomodel.ScriptedTarget}

// bundledServers is the discovery the bundled mcp.json prints.
const bundledServers = "Discovered from mcp.json (2 servers):\n" +
	"  local (stdio):\n" +
	"    local__add: Add two numbers and return their sum\n" +
	"  remote (http):\n" +
	"    remote__add: Add two numbers and return their sum\n"

// wantStory asserts SEED.md's two turns, the tool call answered by server.
func wantStory(t *testing.T, out, server string) {
	t.Helper()
	assert.Contains(t, out, "\n\nTurn 1: the model calls an MCP tool, the toolbox routes the call to its server\n"+
		"  tool result from the MCP server: \"42\" (server \""+server+"\")\n  thinking blocks: ")
	assert.Contains(t, out, "\n\nTurn 2: the same question, with the server's answer in the prompt\n"+
		"  reply (scripted): The sum of 21 and 21 is 42.\n  thinking blocks: ")
	assert.NotContains(t, out, "thinking blocks: 0", "the script streams reasoning on both turns")
}

var (
	scriptedURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/v1`)
	thinking    = regexp.MustCompile(`thinking blocks: [1-9]\d*`)
)

func TestRunScriptedWithTheBundledFile(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted}))
	t.Log("\n" + out.String())

	// The whole output, but for the endpoint's port and the number of
	// reasoning deltas.
	got := thinking.ReplaceAllString(scriptedURL.ReplaceAllString(out.String(), "http://127.0.0.1:PORT/v1"), "thinking blocks: N")
	assert.Equal(t, "Model: the built-in scripted endpoint at http://127.0.0.1:PORT/v1, a stand-in that follows a script.\n\n"+
		bundledServers+
		"\n"+
		"Turn 1: the model calls an MCP tool, the toolbox routes the call to its server\n"+
		"  tool result from the MCP server: \"42\" (server \"local\")\n"+
		"  thinking blocks: N\n"+
		"\n"+
		"Turn 2: the same question, with the server's answer in the prompt\n"+
		"  reply (scripted): The sum of 21 and 21 is 42.\n"+
		"  thinking blocks: N\n", got)
	wantStory(t, out.String(), "local")
}

func TestBothBundledServersAdd(t *testing.T) {
	stop, err := startDemoServers()
	require.NoError(t, err)
	defer stop()
	servers, source, err := loadServers("")
	require.NoError(t, err)
	assert.Equal(t, "mcp.json", source)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tb, err := toolbox.Open(ctx, servers)
	require.NoError(t, err)
	defer tb.Close()

	assert.Equal(t, []string{"local", "remote"}, tb.Servers())
	assert.Equal(t, toolbox.TypeStdio, servers.Servers["local"].Type)
	assert.Equal(t, toolbox.TypeHTTP, servers.Servers["remote"].Type)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/mcp$`, servers.Servers["remote"].URL)
	assert.Equal(t, os.Getenv(httpURLVar), servers.Servers["remote"].URL)
	assert.Equal(t, map[string]string{"Authorization": "Bearer not-a-secret"}, servers.Servers["remote"].Headers,
		"MCP_DEMO_TOKEN is unset, so the default")
	for _, name := range []string{"local__add", "remote__add"} {
		res, err := tb.CallTool(ctx, name, map[string]any{"a": 21, "b": 21}).Await(ctx)
		require.NoError(t, err, name)
		assert.Equal(t, "42", plugin.RenderResult(res), name)
	}
	for name, st := range tb.Status() {
		assert.Equal(t, plugin.StateReady, st.State, name)
	}
}

func TestRunFallsBackWhenNothingAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: demomodel.Target{DefaultBaseURL: closed}}))
	first, rest, _ := strings.Cut(out.String(), "\n")
	assert.True(t, strings.HasPrefix(first, "No LLM answered at "+closed+" ("), "got %q", first)
	assert.Contains(t, first, "built-in scripted endpoint")
	assert.True(t, strings.HasPrefix(rest, "\n"+bundledServers+"\n"), "got %q", rest)
	wantStory(t, out.String(), "local")
}

// writeConfig writes a user's mcp.json into a temporary directory.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// userConfig has one working stdio server, the demo one listed through the
// example's variable, and one whose command does not exist.
const userConfig = `{
  "mcpServers": {
    "adder": {
      "command": "${MCP_DEMO_SELF}",
      "args": ["--mcp-add-server"],
      "env": {"GORACE": "atexit_sleep_ms=0"}
    },
    "broken": {"command": "/nonexistent/mcp-server"}
  }
}`

// wantUserServers asserts the discovery userConfig prints: adder's tool,
// and broken's failure to start.
func wantUserServers(t *testing.T, out, path string) {
	t.Helper()
	_, discovery, ok := strings.Cut(out, "\n\nDiscovered from ")
	require.True(t, ok, out)
	discovery, _, _ = strings.Cut(discovery, "\n\n")
	lines := strings.Split("Discovered from "+discovery, "\n")
	require.Len(t, lines, 5, discovery)
	assert.Equal(t, "Discovered from "+path+" (2 servers):", lines[0])
	assert.Equal(t, "  adder (stdio):", lines[1])
	assert.Equal(t, "    adder__add: Add two numbers and return their sum", lines[2])
	assert.Equal(t, "  broken (stdio):", lines[3])
	assert.True(t, strings.HasPrefix(lines[4], `    status: failed: mcp-connector: io: server "broken" (stdio "/nonexistent/mcp-server"): `), lines[4])
	assert.True(t, strings.HasSuffix(lines[4], ": no such file or directory"), lines[4])
}

func TestRunWithAUserFileWithABrokenServer(t *testing.T) {
	path := writeConfig(t, userConfig)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted, mcpJSON: path}))
	t.Log("\n" + out.String())
	wantUserServers(t, out.String(), path)
	wantStory(t, out.String(), "adder")
}

func TestRunWithAMalformedFile(t *testing.T) {
	// The error points at the file, the line and the server, and comes
	// before anything is printed.
	path := writeConfig(t, "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"${MCP_DEMO_UNSET}\"}\n  }\n}\n")
	require.NoError(t, os.Unsetenv("MCP_DEMO_UNSET"))
	var out bytes.Buffer
	err := run(t.Context(), &out, config{model: scripted, mcpJSON: path})
	require.Error(t, err)
	assert.Equal(t, path+`:3:22: server "a": command: variable "MCP_DEMO_UNSET" is not set`, err.Error())
	assert.Empty(t, out.String())
}

func TestRunWhenTheModelCallsAToolNoServerHas(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), &out, config{model: demomodel.Target{
		BaseURL: demomodel.ScriptedTarget, Script: &demomodel.Scripted{Tool: "nowhere__add"},
	}})
	require.Error(t, err)
	assert.Equal(t, `turn 1: the model called the unknown tool "nowhere__add"`, err.Error())
	assert.Contains(t, out.String(), "  the model called \"nowhere__add\", which no server of the toolbox offers (arguments {\"a\":21,\"b\":21})\n")
	assert.NotContains(t, out.String(), "Turn 2", "no second turn without an answer")
}

// TestBinary builds the example as `go run` would and runs it, with the
// bundled file and with a user's, so that the real os.Executable re-exec
// path and the argument are exercised.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := filepath.Join(t.TempDir(), "toolbox-example")
	build := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	userFile := writeConfig(t, userConfig)

	for _, tc := range []struct {
		name string
		args []string
		want func(t *testing.T, out string)
	}{
		{"bundled mcp.json", nil, func(t *testing.T, out string) {
			assert.Contains(t, out, "\n\n"+bundledServers+"\n")
			wantStory(t, out, "local")
		}},
		{"a user's mcp.json", []string{userFile}, func(t *testing.T, out string) {
			wantUserServers(t, out, userFile)
			wantStory(t, out, "adder")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// CUCA_BASE_URL=scripted so an LLM running on this machine
			// cannot change the answer; the fallback itself is
			// TestRunFallsBackWhenNothingAnswers.
			cmd := exec.CommandContext(t.Context(), bin, tc.args...)
			cmd.Env = append(os.Environ(), "CUCA_BASE_URL=scripted")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), "stderr:\n%s", stderr.String())
			assert.Equal(t, 0, cmd.ProcessState.ExitCode())
			tc.want(t, stdout.String())
			assert.Empty(t, stderr.String())
		})
	}
}

func TestRunPrintsSpansAndServesMetricsForEveryServer(t *testing.T) {
	var scraped string
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{
		model:   scripted,
		observe: observe.Config{Trace: "stdout", MetricsAddr: "127.0.0.1:0"},
		beforeExit: func(metricsURL string) {
			resp, err := http.Get(metricsURL)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			scraped = string(b)
		},
	}))
	wantStory(t, out.String(), "local")
	// The toolbox passed the providers to both servers' plugins: each
	// connected under a span, and the HTTP one has an address.
	spans := out.String()
	assert.Equal(t, 2, strings.Count(spans, `"Name": "mcp connect"`), "one connection per server")
	assert.Contains(t, spans, `"Name": "tools/call add"`)
	assert.Contains(t, spans, `"Value": "tcp"`)
	assert.Contains(t, spans, `"Value": "pipe"`)
	assert.Contains(t, spans, `"Key": "server.port"`)
	assert.Contains(t, scraped, `mcp_client_operation_duration_seconds_bucket{`)
	assert.Contains(t, scraped, `network_transport="tcp"`)
	assert.Contains(t, scraped, `network_transport="pipe"`)
}
