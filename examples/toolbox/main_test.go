package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/examples/demomodel"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/examples/observe"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestMain doubles as the stdio add server: the bundled mcp.json runs
// ${MCP_DEMO_SELF}, which under test is this test binary, with demoserver.AddFlag.
func TestMain(m *testing.M) {
	demoserver.ServeAddIfAsked()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a message to an actor that has just stopped) that ends
		// by itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// scripted runs the model on the built-in scripted endpoint.
var scripted = demomodel.Target{BaseURL: demomodel.ScriptedTarget}

// bundledServers is the discovery the bundled mcp.json prints.
const bundledServers = "Discovered from mcp.json (2 servers):\n" +
	"  local   stdio  ready (1 tool)\n" +
	"    local__add\n" +
	"      Add two numbers and return their sum\n" +
	"  remote  http   ready (1 tool)\n" +
	"    remote__add\n" +
	"      Add two numbers and return their sum\n"

// wantStory asserts the example's two turns (the model calls add, a second
// turn answers from the result), the tool call answered by server.
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
	require.NoError(t, run(t.Context(), &out, config{model: scripted, demo: true}))
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

// searchStoryOutput is the demo with -tool-search: the first request
// carries the search tool only, the second the tools it loaded too.
const searchStoryOutput = "\n\nTurn 1: the request carries only the search tool; the model searches\n" +
	"  tools in the request: tool_search\n" +
	"  tool_search answered:\n" +
	"    Loaded 2 tools; call them by name from the next step on:\n" +
	"    - local__add: Add two numbers and return their sum\n" +
	"    - remote__add: Add two numbers and return their sum\n" +
	"\n" +
	"Turn 2: the tools it found join the request; the model calls add\n" +
	"  tools in the request: tool_search, local__add, remote__add\n" +
	"  tool result from the MCP server: \"42\" (server \"local\")\n"

func TestRunScriptedWithToolSearch(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted, demo: true, toolSearch: true}))
	t.Log("\n" + out.String())
	assert.True(t, strings.HasSuffix(out.String(), searchStoryOutput), out.String())
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
	assert.Equal(t, mcpconfig.TypeStdio, servers.Servers["local"].Type)
	assert.Equal(t, mcpconfig.TypeHTTP, servers.Servers["remote"].Type)
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
		assert.Equal(t, actors.Ready, st.State, name)
	}
}

func TestRunFallsBackWhenNothingAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close())

	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: demomodel.Target{DefaultBaseURL: closed}, demo: true}))
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
	i := strings.Index(out, "Discovered from ")
	require.GreaterOrEqual(t, i, 0, out)
	discovery, _, _ := strings.Cut(out[i:], "\n\n")
	lines := strings.Split(strings.TrimSuffix(discovery, "\n"), "\n")
	require.Len(t, lines, 5, discovery)
	assert.Equal(t, "Discovered from "+path+" (2 servers):", lines[0])
	assert.Equal(t, "  adder   stdio  ready (1 tool)", lines[1])
	assert.Equal(t, "    adder__add", lines[2])
	assert.Equal(t, "      Add two numbers and return their sum", lines[3])
	assert.True(t, strings.HasPrefix(lines[4], `  broken  stdio  failed: mcp-connector: io: server "broken" (stdio "/nonexistent/mcp-server"): `), lines[4])
	assert.True(t, strings.HasSuffix(lines[4], ": no such file or directory"), lines[4])
}

func TestRunWithAUserFileListsItsServersAndStops(t *testing.T) {
	path := writeConfig(t, userConfig)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted, mcpJSON: path}),
		"a server reported with its reason is no failure")
	t.Log("\n" + out.String())
	wantUserServers(t, out.String(), path)
	assert.NotContains(t, out.String(), "Model:", "no model for a user's file")
	assert.NotContains(t, out.String(), "Turn 1")
}

func TestRunWithAUserFileAndDemo(t *testing.T) {
	path := writeConfig(t, userConfig)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted, mcpJSON: path, demo: true}))
	wantUserServers(t, out.String(), path)
	wantStory(t, out.String(), "adder")
}

func TestRunStrict(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), &out, config{mcpJSON: writeConfig(t, userConfig), strict: true})
	require.Error(t, err)
	assert.Equal(t, "-strict: not ready: broken", err.Error())
	assert.Contains(t, out.String(), "  broken  stdio  failed: ", "the servers are listed first")

	out.Reset()
	require.NoError(t, run(t.Context(), &out, config{model: scripted, demo: true, strict: true}),
		"every bundled server is ready")
	wantStory(t, out.String(), "local")
}

func TestRunCall(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		want, err        string
	}{
		{"a result", "local__add", `{"a":2,"b":3}`, "\nCalled local__add: what the model reads\n5\n", ""},
		{"over HTTP", "remote__add", `{"a":40,"b":2}`, "\nCalled remote__add: what the model reads\n42\n", ""},
		{"arguments the server refuses", "local__add", `{"a":"two","b":3}`,
			"\nCalled local__add: what the model reads\n", "-call: local__add failed"},
		{"a tool no server exposes", "nowhere__add", "", "", `-call: no server of the toolbox exposes a tool "nowhere__add"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(t.Context(), &out, config{call: tc.tool, args: tc.args})
			if tc.err != "" {
				require.Error(t, err)
				assert.Equal(t, tc.err, err.Error())
			} else {
				require.NoError(t, err)
			}
			assert.True(t, strings.HasPrefix(out.String(), bundledServers), out.String())
			assert.Contains(t, out.String(), tc.want)
			assert.NotContains(t, out.String(), "Turn 1", "no demo with -call")
		})
	}
}

// heldOutAdd is the error of -call local__add once -changed changed it
// after -pin pinned it.
const heldOutAdd = `-call: local__add is held out: tool "add" of server "local" changed since it was pinned (description); ` +
	`to accept the server's current tools, run the same command with -accept local`

// A pinned tool that changed: -call says it is held out, what changed and
// how to accept it, and -accept does.
func TestRunCallOfAHeldOutTool(t *testing.T) {
	dir := t.TempDir()
	call := func(cfg config) (string, error) {
		t.Helper()
		var out bytes.Buffer
		cfg.manifestDir, cfg.call, cfg.args = dir, "local__add", `{"a":1,"b":2}`
		err := run(t.Context(), &out, cfg)
		t.Log("\n" + out.String())
		return out.String(), err
	}
	out, err := call(config{pin: true})
	require.NoError(t, err, "the first run pins the tools")
	assert.Contains(t, out, "\nCalled local__add: what the model reads\n3\n")

	out, err = call(config{pin: true, changed: true})
	require.Error(t, err)
	assert.Equal(t, heldOutAdd, err.Error())
	assert.Contains(t, out, "    local__add  held out: changed since it was pinned (description)\n")
	assert.NotContains(t, out, "Called local__add", "a held-out tool is not called")

	out, err = call(config{changed: true, accept: "local"})
	require.NoError(t, err, "-accept pins the changed tool")
	assert.True(t, strings.HasPrefix(out, "Accepted the current tools of local: pinned again\n\n"), out)
	assert.Contains(t, out, "  local   stdio  ready (1 tool)\n    local__add\n      Add two numbers and return their sum. Before answering,")
	assert.Contains(t, out, "\nCalled local__add: what the model reads\n3\n")

	out, err = call(config{pin: true, changed: true})
	require.NoError(t, err, "accepted, the changed tool is the pinned one")
	assert.NotContains(t, out, "held out")

	var stderr bytes.Buffer
	err = parseArgs([]string{"-accept", "nowhere"}, io.Discard, &stderr, new(config))
	require.NoError(t, err)
	err = run(t.Context(), io.Discard, config{accept: "nowhere", manifestDir: dir})
	require.Error(t, err)
	assert.Equal(t, `-accept: mcp.json has no enabled server "nowhere"`, err.Error())
}

// -lazy -call: the listing says "not started"; after the call the
// server's line says what the call made of it.
func TestRunLazyCallPrintsTheServerAgain(t *testing.T) {
	dir := t.TempDir()
	call := func(cfg config) (string, error) {
		t.Helper()
		var out bytes.Buffer
		cfg.manifestDir, cfg.lazy, cfg.pin, cfg.call, cfg.args = dir, true, true, "local__add", `{"a":20,"b":22}`
		err := run(t.Context(), &out, cfg)
		t.Log("\n" + out.String())
		return out.String(), err
	}
	const after = "\nCalled local__add: what the model reads\n42\n\nAfter the call:\n  local   stdio  ready (1 tool)\n"
	out, err := call(config{})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, bundledServers), "no manifest yet: every server starts\n%s", out)
	assert.True(t, strings.HasSuffix(out, after), out)

	out, err = call(config{})
	require.NoError(t, err)
	assert.Contains(t, out, "  local   stdio  not started (1 tool from its manifest)\n")
	assert.True(t, strings.HasSuffix(out, after), "the server's line again, started by the call\n%s", out)

	out, err = call(config{changed: true})
	require.Error(t, err, "the call that starts it finds the tool changed")
	assert.Equal(t, heldOutAdd, err.Error())
	assert.Contains(t, out, "  local   stdio  not started (1 tool from its manifest)\n")
	assert.True(t, strings.HasSuffix(out, "\n\nAfter the call:\n  local   stdio  ready (0 tools)\n"), out)
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want config
		err  error
	}{
		{"nothing: the bundled file and its demo", nil, config{demo: true}, nil},
		{"a positional file", []string{"my.json"}, config{mcpJSON: "my.json"}, nil},
		{"-config", []string{"-config", "my.json"}, config{mcpJSON: "my.json"}, nil},
		{"-config and the same file", []string{"-config", "my.json", "my.json"}, config{mcpJSON: "my.json"}, nil},
		{"-demo on a user's file", []string{"-demo", "my.json"}, config{mcpJSON: "my.json", demo: true}, nil},
		{"-tool-search", []string{"-tool-search"}, config{demo: true, toolSearch: true}, nil},
		{"-resources", []string{"-resources"}, config{demo: true, resources: true}, nil},
		{"-strict", []string{"-strict", "-config=my.json"}, config{mcpJSON: "my.json", strict: true}, nil},
		{"-call", []string{"-call", "s__t", "-args", `{"x":1}`}, config{call: "s__t", args: `{"x":1}`}, nil},
		{"-h", []string{"-h"}, config{}, flag.ErrHelp},
		{"two files", []string{"a.json", "b.json"}, config{}, errUsage},
		{"-config and another file", []string{"-config", "a.json", "b.json"}, config{}, errUsage},
		{"-args alone", []string{"-args", "{}"}, config{}, errUsage},
		{"-args that is not JSON", []string{"-call", "s__t", "-args", `{"a":1`}, config{}, errUsage},
		{"-args that is no object", []string{"-call", "s__t", "-args", `[1,2]`}, config{}, errUsage},
		{"-args with two values", []string{"-call", "s__t", "-args", `{} {}`}, config{}, errUsage},
		{"-accept", []string{"-accept", "local"}, config{demo: true, accept: "local"}, nil},
		{"an unknown flag", []string{"-bogus"}, config{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg config
			var stdout, stderr bytes.Buffer
			err := parseArgs(tc.args, &stdout, &stderr, &cfg)
			switch {
			case tc.name == "an unknown flag":
				require.Error(t, err)
				assert.Contains(t, stderr.String(), "-bogus")
				return
			case tc.err != nil:
				require.ErrorIs(t, err, tc.err)
				if tc.err == flag.ErrHelp {
					assert.Contains(t, stdout.String(), "Usage: toolbox [flags] [mcp.json]")
					assert.Contains(t, stdout.String(), "-config")
					assert.Empty(t, stderr.String())
				} else {
					assert.Contains(t, stderr.String(), "toolbox -h")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg)
		})
	}
}

func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"Add two numbers", "and return", "their sum"}, wrap("Add two numbers and return their sum", 15))
	assert.Equal(t, []string{"Search issues.", "", "Arguments: q, the", "query; page."},
		wrap("Search issues.\n\n\n  Arguments:   q, the\n\tquery; page.\n", 18), "paragraphs kept, blank runs once, spaces folded")
	assert.Equal(t, []string{"short", "averyveryverylongword", "end"}, wrap("short averyveryverylongword end", 10))
	assert.Nil(t, wrap("  \n ", 10))
}

// testHTTPServer serves, over stateless Streamable HTTP on loopback, a
// server with one tool, lookup, described by desc, and returns its URL.
func testHTTPServer(t *testing.T, desc string) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "lookup", Description: desc, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestMultiLineDescriptionsStayIndented(t *testing.T) {
	srv := testHTTPServer(t, "Look a thing up.\nArguments:\n  key: what to look up, a string that may be long enough to wrap past the column")
	servers, err := mcpconfig.Parse([]byte(`{"mcpServers": {"docs": {"url": "` + srv + `"}}}`))
	require.NoError(t, err)
	tb, err := toolbox.Open(t.Context(), servers)
	require.NoError(t, err)
	defer tb.Close()
	var out bytes.Buffer
	printServers(&out, "mcp.json", servers, tb)
	assert.Equal(t, "Discovered from mcp.json (1 server):\n"+
		"  docs  http  ready (1 tool)\n"+
		"    docs__lookup\n"+
		"      Look a thing up.\n"+
		"      Arguments:\n"+
		"      key: what to look up, a string that may be long enough to wrap past\n"+
		"      the column\n", out.String())
}

func TestRunWithAMalformedFile(t *testing.T) {
	// The error points at the file, the line and the server, and comes
	// before anything is printed.
	path := writeConfig(t, "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"${MCP_DEMO_UNSET}\"}\n  }\n}\n")
	require.NoError(t, os.Unsetenv("MCP_DEMO_UNSET"))
	var out bytes.Buffer
	err := run(t.Context(), &out, config{model: scripted, mcpJSON: path})
	require.Error(t, err)
	assert.Equal(t, path+`:3:22: server "a": command: variable "MCP_DEMO_UNSET" is not set; set it in the environment or supply it with mcpconfig.WithVariables`, err.Error())
	assert.Empty(t, out.String())
}

func TestRunWhenTheModelCallsAToolNoServerHas(t *testing.T) {
	var out bytes.Buffer
	err := run(t.Context(), &out, config{model: demomodel.Target{
		BaseURL: demomodel.ScriptedTarget, Script: &demomodel.Scripted{Tool: "nowhere__add"},
	}, demo: true})
	require.Error(t, err)
	assert.Equal(t, `turn 1: the model called the unknown tool "nowhere__add"`, err.Error())
	assert.Contains(t, out.String(), "  the model called \"nowhere__add\", which no server of the toolbox offers (arguments {\"a\":21,\"b\":21})\n")
	assert.NotContains(t, out.String(), "Turn 2", "no second turn without an answer")
}

// TestBinary builds the example as `go run` would and runs it, with the
// bundled file and with a user's, so that the real os.Executable re-exec
// path, the flags and the exit status are exercised.
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
	badFile := writeConfig(t, `{"mcpServers": {"a": {"command": 42}}}`)
	manifests := t.TempDir() // shared by the -lazy and -pin runs, in order

	for _, tc := range []struct {
		name string
		args []string
		code int
		want func(t *testing.T, stdout, stderr string)
	}{
		{"bundled mcp.json", nil, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "\n\n"+bundledServers+"\n")
			wantStory(t, out, "local")
			assert.Empty(t, stderr)
		}},
		{"a user's mcp.json", []string{userFile}, 0, func(t *testing.T, out, stderr string) {
			wantUserServers(t, out, userFile)
			assert.NotContains(t, out, "Turn 1")
			assert.Empty(t, stderr)
		}},
		{"-config and -demo", []string{"-config", userFile, "-demo"}, 0, func(t *testing.T, out, stderr string) {
			wantUserServers(t, out, userFile)
			wantStory(t, out, "adder")
			assert.Empty(t, stderr)
		}},
		{"-tool-search", []string{"-tool-search"}, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "\n\n"+bundledServers+"\n")
			assert.Contains(t, out, searchStoryOutput)
			assert.Empty(t, stderr)
		}},
		{"-resources", []string{"-resources"}, 0, func(t *testing.T, out, stderr string) {
			assert.True(t, strings.HasSuffix(out, resourceStoryOutput), out)
			assert.Empty(t, stderr)
		}},
		{"-lazy, first run: no manifest yet, so every server starts", []string{"-lazy", "-pin", "-manifests", manifests}, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "\n\n"+bundledServers+"\n")
			wantStory(t, out, "local")
			assert.True(t, strings.HasSuffix(out, "\nAfter the run: local ready, remote ready\n"), out)
			assert.Empty(t, stderr)
		}},
		{"-lazy, second run: no child until the call", []string{"-lazy", "-pin", "-manifests", manifests}, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "  local   stdio  not started (1 tool from its manifest)\n"+
				"    local__add\n      Add two numbers and return their sum\n")
			// The HTTP server's URL changes with every run: a new entry.
			assert.Contains(t, out, "  remote  http   ready (1 tool)\n")
			wantStory(t, out, "local")
			assert.True(t, strings.HasSuffix(out, "\nAfter the run: local ready, remote ready\n"), out)
			assert.Empty(t, stderr)
		}},
		{"-lazy -pin with a changed tool: the call that starts it is denied", []string{"-lazy", "-pin", "-changed", "-manifests", manifests}, 1, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "  local   stdio  not started (1 tool from its manifest)\n")
			assert.Contains(t, out, `tool error from the MCP server: "mcp-connector: denied: `)
			assert.Contains(t, stderr, `tool "add" of server "local" changed since it was pinned (description)`)
		}},
		{"-pin with a changed tool: held out", []string{"-pin", "-changed", "-manifests", manifests}, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "  local   stdio  ready (0 tools)\n"+
				"    local__add  held out: changed since it was pinned (description)\n")
			assert.NotContains(t, out, "ssh")
			wantStory(t, out, "remote")
			assert.Empty(t, stderr)
		}},
		{"-lazy -pin with a changed tool known from its manifest: never started", []string{"-lazy", "-pin", "-changed", "-manifests", manifests}, 0, func(t *testing.T, out, stderr string) {
			assert.Contains(t, out, "  local   stdio  not started (0 tools from its manifest)\n"+
				"    local__add  held out: changed since it was pinned (description)\n")
			wantStory(t, out, "remote")
			assert.True(t, strings.HasSuffix(out, "\nAfter the run: local not started, remote ready\n"), out)
			assert.Empty(t, stderr)
		}},
		{"-h", []string{"-h"}, 0, func(t *testing.T, out, stderr string) {
			assert.True(t, strings.HasPrefix(out, "Usage: toolbox [flags] [mcp.json]\n"), out)
			for _, f := range []string{"-config", "-call", "-args", "-strict", "-demo", "-tool-search", "-resources", "-lazy", "-pin", "-changed", "-manifests"} {
				assert.Contains(t, out, "\n  "+f)
			}
			assert.Empty(t, stderr)
		}},
		{"-call", []string{"-config", userFile, "-call", "adder__add", "-args", `{"a":20,"b":22}`}, 0, func(t *testing.T, out, stderr string) {
			assert.True(t, strings.HasSuffix(out, "\nCalled adder__add: what the model reads\n42\n"), out)
			assert.Empty(t, stderr)
		}},
		{"-strict with a server down", []string{"-strict", userFile}, 1, func(t *testing.T, out, stderr string) {
			wantUserServers(t, out, userFile)
			assert.Equal(t, "toolbox example: -strict: not ready: broken\n", stderr)
		}},
		{"a file that does not exist", []string{"-config", filepath.Join(t.TempDir(), "none.json")}, 1, func(t *testing.T, out, stderr string) {
			assert.Empty(t, out)
			assert.Contains(t, stderr, "none.json: no such file or directory")
		}},
		{"a malformed file", []string{badFile}, 1, func(t *testing.T, out, stderr string) {
			assert.Empty(t, out)
			assert.Contains(t, stderr, badFile+":1:")
		}},
		{"-args that is not JSON: said before any server starts", []string{"-config", userFile, "-call", "adder__add", "-args", `{"a":1`}, 2, func(t *testing.T, out, stderr string) {
			assert.Empty(t, out, "no server listed: none was started")
			assert.Contains(t, stderr, "toolbox: -args: not valid JSON (it ends early): {\"a\":1\n")
		}},
		{"two files", []string{userFile, badFile}, 2, func(t *testing.T, out, stderr string) {
			assert.Empty(t, out)
			assert.Contains(t, stderr, "at most one mcp.json")
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
			err := cmd.Run()
			if tc.code == 0 {
				require.NoError(t, err, "stderr:\n%s", stderr.String())
			}
			assert.Equal(t, tc.code, cmd.ProcessState.ExitCode(), "stderr:\n%s", stderr.String())
			tc.want(t, stdout.String(), stderr.String())
		})
	}
}

func TestRunPrintsSpansAndServesMetricsForEveryServer(t *testing.T) {
	var scraped string
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{
		model:   scripted,
		demo:    true,
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
