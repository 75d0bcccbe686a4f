package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/examples/demomodel"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/examples/observe"
)

// TestMain doubles as the MCP server: run() re-executes os.Executable(),
// which under test is this test binary, with demoserver.AddFlag.
func TestMain(m *testing.M) {
	demoserver.ServeAddIfAsked()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a message to an actor that has just stopped) that ends
		// by itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// wantStory asserts the lines the example prints on the scripted model: the
// discovered tool, the server's result, then the second turn's reply.
func wantStory(t *testing.T, out string) {
	t.Helper()
	assert.Contains(t, out, "Discovered over stdio, from tools/list:\n  add: Add two numbers and return their sum\n")
	assert.Contains(t, out, "Turn 1: the model calls the MCP tool, the child process answers\n"+
		"  tool result from the MCP server: \"42\"\n  thinking blocks: ")
	assert.Contains(t, out, "Turn 2: the same question, with the server's answer in the prompt\n")
	assert.Contains(t, out, ": The sum of 21 and 21 is 42.\n  thinking blocks: ")
}

func TestRunScripted(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{baseURL: demomodel.ScriptedTarget}))
	t.Log("\n" + out.String())
	wantStory(t, out.String())
	assert.Contains(t, out.String(), "built-in scripted endpoint")
	assert.Contains(t, out.String(), "reply (scripted): The sum of 21 and 21 is 42.")
	assert.NotContains(t, out.String(), "thinking blocks: 0", "the script streams reasoning on both turns")
}

func TestRunFallsBackWhenNothingAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{defaultBaseURL: closed}))
	first, _, _ := strings.Cut(out.String(), "\n")
	assert.True(t, strings.HasPrefix(first, "No LLM answered at "+closed+" ("), "got %q", first)
	assert.Contains(t, first, "scripted")
	wantStory(t, out.String())
}

func TestRunAgainstAGivenServer(t *testing.T) {
	// CUCA_BASE_URL names a server that answers: it is used as is, with
	// CUCA_MODEL, and nothing says "scripted".
	srv := httptest.NewServer(&demomodel.Scripted{})
	defer srv.Close()

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{baseURL: srv.URL + "/v1", model: "my-model"}))
	assert.True(t, strings.HasPrefix(out.String(), "Model: my-model at "+srv.URL+"/v1\n"), out.String())
	wantStory(t, out.String())
	assert.Contains(t, out.String(), "  reply: The sum of 21 and 21 is 42.")
}

func TestRunBadToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  *demomodel.Scripted
		line    string
		errText string
	}{
		{
			name:    "malformed argument JSON becomes an error result from the real plugin",
			script:  &demomodel.Scripted{ArgFragments: []string{`{"a":21,`, `"b":`}},
			line:    "  tool error from the MCP server: ",
			errText: "the add tool failed",
		},
		{
			name:    "arguments that are not an object",
			script:  &demomodel.Scripted{ArgFragments: []string{`[21,`, `21]`}},
			line:    "  tool error from the MCP server: ",
			errText: "the add tool failed",
		},
		{
			name:    "an unknown tool passes through",
			script:  &demomodel.Scripted{Tool: "subtract"},
			line:    `  the model called "subtract", which the MCP server does not offer`,
			errText: `unknown tool "subtract"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(t.Context(), &out, config{baseURL: demomodel.ScriptedTarget, script: tc.script})
			t.Log("\n" + out.String())
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.errText)
			assert.Contains(t, out.String(), tc.line)
			assert.NotContains(t, out.String(), "Turn 2", "no second turn without an answer")
		})
	}
}

// TestBinary builds the example as `go run` would and runs it, so the real
// os.Executable re-exec path is exercised.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := filepath.Join(t.TempDir(), "mcp-example")
	build := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}

	// CUCA_BASE_URL=scripted so an LLM running on this machine cannot change
	// the answer; the fallback itself is TestRunFallsBackWhenNothingAnswers.
	cmd := exec.CommandContext(t.Context(), bin)
	cmd.Env = append(os.Environ(), "CUCA_BASE_URL=scripted")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr:\n%s", stderr.String())
	wantStory(t, stdout.String())
	assert.Empty(t, stderr.String())
}

func TestRunPrintsSpansAndServesMetrics(t *testing.T) {
	var scraped string
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{
		baseURL: demomodel.ScriptedTarget,
		observe: observe.Config{Trace: "stdout", MetricsAddr: "127.0.0.1:0"},
		beforeExit: func(metricsURL string) {
			require.NotEmpty(t, metricsURL)
			resp, err := http.Get(metricsURL)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			scraped = string(b)
		},
	}))
	wantStory(t, out.String())
	assert.Contains(t, out.String(), "Metrics for Prometheus at http://127.0.0.1:")
	for _, span := range []string{`"Name": "tools/call add"`, `"Name": "server/discover"`, `"Name": "tools/list"`, `"Name": "mcp connect"`, `"Name": "turn 1"`} {
		assert.Contains(t, out.String(), span)
	}
	assert.Contains(t, out.String(), `"Key": "gen_ai.tool.name"`)
	assert.Contains(t, scraped, `mcp_client_operation_duration_seconds_bucket{`)
	assert.Contains(t, scraped, `gen_ai_tool_name="add"`)
	assert.Contains(t, scraped, `le="0.01"`, "the conventions' buckets")
	assert.Contains(t, scraped, `mcp_method_name="tools/call"`)
}

func TestObserveRefusesANonLoopbackMetricsAddress(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), &out, config{baseURL: demomodel.ScriptedTarget, observe: observe.Config{MetricsAddr: "0.0.0.0:0"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "loopback")
	err = run(t.Context(), &out, config{baseURL: demomodel.ScriptedTarget, observe: observe.Config{Trace: "jaeger"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CUCA_TRACE")
}
