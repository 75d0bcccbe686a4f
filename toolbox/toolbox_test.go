package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// fast restarts keep the fault tests short.
var fast = toolbox.WithPluginOptions(plugin.WithBackoff(10*time.Millisecond, 50*time.Millisecond))

// entry is one mcpServers entry of a test config.
type entry map[string]any

// stdioEntry runs the go-sdk test server (every tool of testserver.NewServer)
// in a child process.
func stdioEntry(t *testing.T) entry {
	cmd, args := testserver.Command(t, "sdk")
	return entry{"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
}

func httpEntry(t *testing.T) entry {
	return entry{"type": "http", "url": testserver.HTTP(t)}
}

// config builds an mcp.json from entries and parses it as a user's file.
func config(t *testing.T, servers map[string]entry) *mcpconfig.Config {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	cfg, err := mcpconfig.Load(path)
	require.NoError(t, err)
	return cfg
}

func open(t *testing.T, cfg *mcpconfig.Config, opts ...toolbox.Option) *toolbox.Toolbox {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })
	return tb
}

// call runs a tool through the toolbox and returns its rendered text.
func call(t *testing.T, tb *toolbox.Toolbox, name string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tb.CallTool(ctx, name, args).Await(ctx)
	require.NoError(t, err, name)
	return plugin.RenderResult(res)
}

func TestThreeServersSharingToolNamesAreRoutedByPrefix(t *testing.T) {
	tb := open(t, config(t, map[string]entry{
		"alpha": stdioEntry(t),
		"beta":  stdioEntry(t),
		"gamma": httpEntry(t),
	}))
	assert.Equal(t, []string{"alpha", "beta", "gamma"}, tb.Servers())

	// Every server has every test tool; each is exposed once per server.
	var names []string
	for _, d := range tb.ToolDefinitions() {
		names = append(names, d.Name)
	}
	var want []string
	for _, server := range []string{"alpha", "beta", "gamma"} {
		for _, tool := range testserver.ToolNames {
			want = append(want, server+"__"+tool)
		}
	}
	assert.Equal(t, want, names, "exposed names, sorted")
	add := tb.ToolDefinitions()[0]
	assert.Equal(t, "alpha__add", add.Name)
	assert.Equal(t, "Add two numbers and return their sum", add.Description)
	assert.Contains(t, string(add.InputSchema), `"a"`)

	// pid proves which process answered: two children, and this process
	// for the HTTP server.
	pa, pb := call(t, tb, "alpha__pid", nil), call(t, tb, "beta__pid", nil)
	assert.NotEqual(t, pa, pb)
	assert.Equal(t, strconv.Itoa(os.Getpid()), call(t, tb, "gamma__pid", nil))
	assert.NotEqual(t, strconv.Itoa(os.Getpid()), pa)
	assert.Equal(t, "42", call(t, tb, "gamma__add", map[string]any{"a": 40, "b": 2}))

	for name, st := range tb.Status() {
		assert.Equal(t, actors.Ready, st.State, name)
	}
	require.NotNil(t, tb.Plugin("alpha"))
	assert.Nil(t, tb.Plugin("nope"))
	assert.True(t, tb.HasTool("beta__add"))
	assert.False(t, tb.HasTool("add"))
}

func TestHookRoutesEachCallAndPassesTheRestThrough(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "gamma": httpEntry(t)}))
	var _ host.Plugin = tb
	assert.Equal(t, "mcp-toolbox", tb.Name())

	chunk := &host.Chunk{Blocks: []host.Block{
		host.Text{Text: "thinking aloud"},
		host.ToolCall{ID: "1", Name: "alpha__add", Arguments: json.RawMessage(`{"a":1,"b":2}`)},
		host.ToolCall{ID: "2", Name: "gamma__fail"},
		host.ToolCall{ID: "3", Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}, // not exposed
		host.ToolCall{ID: "4", Name: "gamma__add", Arguments: json.RawMessage(`[1,2]`)},
	}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.Text{Text: "thinking aloud"}, chunk.Blocks[0])
	assert.Equal(t, host.ToolResult{ToolCallID: "1", Name: "alpha__add", Content: "3"}, chunk.Blocks[1])
	assert.Equal(t, host.ToolResult{ToolCallID: "2", Name: "gamma__fail", Content: "tool error: boom", IsError: true}, chunk.Blocks[2])
	assert.Equal(t, host.ToolCall{ID: "3", Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}, chunk.Blocks[3])
	res := chunk.Blocks[4].(host.ToolResult)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "validation")
	assert.Contains(t, res.Content, `server "gamma"`)

	// A chunk without exposed tool calls is left alone.
	plain := &host.Chunk{Blocks: []host.Block{host.Text{Text: "hi"}, host.ToolCall{ID: "9", Name: "alpha__nope"}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), plain))
	assert.Equal(t, host.ToolCall{ID: "9", Name: "alpha__nope"}, plain.Blocks[1])
}

func TestCallsToDifferentServersInOneChunkRunConcurrently(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": stdioEntry(t)}))
	// Each call waits until both have reached their servers (two
	// processes): run one after the other, the first would answer "alone".
	dir, _ := json.Marshal(t.TempDir())
	args := json.RawMessage(`{"dir":` + string(dir) + `,"n":2}`)
	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "1", Name: "alpha__meet", Arguments: args},
		host.ToolCall{ID: "2", Name: "beta__meet", Arguments: args},
	}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	for _, b := range chunk.Blocks {
		assert.Equal(t, "together", b.(host.ToolResult).Content, "the two calls overlapped")
	}
}

func TestUnknownToolFailsWithoutReachingAServer(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t)}))
	_, err := tb.CallTool(context.Background(), "beta__add", nil).Await(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, toolbox.ErrUnknownTool)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), `"beta__add"`)
}

func TestServerThatNeverStartsDoesNotFailOpen(t *testing.T) {
	tb := open(t, config(t, map[string]entry{
		"alpha":  stdioEntry(t),
		"absent": {"command": "/nonexistent/mcp-server"},
	}), fast)
	st := tb.Status()["absent"]
	assert.Equal(t, actors.Failed, st.State)
	require.Error(t, st.LastError)
	assert.ErrorIs(t, st.LastError, plugin.ErrIO)
	assert.Contains(t, st.LastError.Error(), `server "absent"`)
	assert.Equal(t, "3", call(t, tb, "alpha__add", map[string]any{"a": 1, "b": 2}))
	for _, tl := range tb.Tools() {
		assert.Equal(t, "alpha", tl.Server)
	}
	// A command that cannot be started is not retried by itself: it stays
	// failed, with that reason, until the host asks again.
	assert.Zero(t, st.Restarts)
	p := tb.Plugin("absent")
	require.NotNil(t, p)
	assert.ErrorIs(t, p.Reconnect(context.Background()), plugin.ErrIO)
	st = tb.Status()["absent"]
	assert.Equal(t, actors.Failed, st.State)
	assert.ErrorIs(t, st.LastError, plugin.ErrIO)
	assert.Equal(t, 1, st.Restarts, "one try, the one asked for")
}

func TestStrictFailsOpenAndStopsTheOthers(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": stdioEntry(t), "absent": {"command": "/nonexistent/mcp-server"}})
	tb, err := toolbox.Open(context.Background(), cfg, toolbox.WithStrict())
	require.Error(t, err)
	assert.Nil(t, tb)
	assert.ErrorIs(t, err, plugin.ErrIO)
	assert.Contains(t, err.Error(), `server "absent"`)
}

func TestUnsupportedTransportIsReportedNotStarted(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": stdioEntry(t), "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}})
	tb := open(t, cfg)
	st := tb.Status()["legacy"]
	assert.Equal(t, actors.Failed, st.State)
	assert.ErrorIs(t, st.LastError, plugin.ErrNotSupported)
	assert.Contains(t, st.LastError.Error(), `"legacy"`)
	assert.Nil(t, tb.Plugin("legacy"))

	_, err := toolbox.Open(context.Background(), cfg, toolbox.WithStrict())
	assert.ErrorIs(t, err, plugin.ErrNotSupported)
}

// plugin.WithLegacyFallback among the plugin options is "legacyFallback":
// true in every entry: an "sse" entry is started (here it finds no
// server), not refused as a transport the toolbox does not support.
func TestLegacyFallbackAmongPluginOptionsStartsAnSSEEntry(t *testing.T) {
	cfg := config(t, map[string]entry{"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}})
	tb := open(t, cfg, toolbox.WithPluginOptions(plugin.WithLegacyFallback()))
	st := tb.Status()["legacy"]
	assert.NotErrorIs(t, st.LastError, plugin.ErrNotSupported, "%v", st.LastError)
	assert.NotNil(t, tb.Plugin("legacy"), "started")
}

func TestDisabledServerIsNotStarted(t *testing.T) {
	alpha := stdioEntry(t)
	off := stdioEntry(t)
	off["disabled"] = true
	tb := open(t, config(t, map[string]entry{"alpha": alpha, "off": off}))
	assert.Equal(t, []string{"alpha"}, tb.Servers())
	assert.NotContains(t, tb.Status(), "off")
	assert.False(t, tb.HasTool("off__add"))
}

func TestLateServerComesUpAndItsToolsAppear(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "up")
	cmd, args := testserver.Command(t, "sdk")
	script := `test -f "$1" || { echo "not yet" >&2; exit 1; }; shift; exec "$@"`
	late := entry{"command": "sh", "args": append([]string{"-c", script, "sh", flag, cmd}, args...),
		"env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "late": late}), fast)

	st := tb.Status()["late"]
	assert.Equal(t, actors.Failed, st.State)
	assert.Contains(t, st.LastError.Error(), "not yet", "the child's stderr is in the error")
	assert.False(t, tb.HasTool("late__add"))
	_, err := tb.Plugin("late").CallTool(context.Background(), "add", nil).Await(context.Background())
	assert.ErrorContains(t, err, "has not come up")

	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	require.Eventually(t, func() bool { return tb.HasTool("late__add") }, time.Minute, 5*time.Millisecond)
	assert.Equal(t, actors.Ready, tb.Status()["late"].State)
	assert.Equal(t, "5", call(t, tb, "late__add", map[string]any{"a": 2, "b": 3}))
}

func TestKilledServerRestartsWhileTheOthersKeepAnswering(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": stdioEntry(t)}), fast)
	pid, err := strconv.Atoi(call(t, tb, "alpha__pid", nil))
	require.NoError(t, err)
	require.NoError(t, proc.Kill(pid))

	// beta answers throughout alpha's restart.
	deadline := time.Now().Add(time.Minute)
	for tb.Status()["alpha"].Restarts < 1 || tb.Status()["alpha"].State != actors.Ready {
		require.True(t, time.Now().Before(deadline), "alpha did not restart")
		assert.Equal(t, "3", call(t, tb, "beta__add", map[string]any{"a": 1, "b": 2}))
	}
	after := call(t, tb, "alpha__pid", nil)
	assert.NotEqual(t, strconv.Itoa(pid), after, "a new child")
	assert.True(t, tb.HasTool("alpha__add"))
	assert.Equal(t, 0, tb.Status()["beta"].Restarts)
}

func TestIncludeAndExcludeTools(t *testing.T) {
	some := stdioEntry(t)
	some["includeTools"] = []string{"add*", "echo", "pid"}
	some["excludeTools"] = []string{"add_structured", "pid"}
	tb := open(t, config(t, map[string]entry{"some": some}))
	var names []string
	for _, tl := range tb.Tools() {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"some__add", "some__echo"}, names)
	_, err := tb.CallTool(context.Background(), "some__pid", nil).Await(context.Background())
	assert.ErrorIs(t, err, toolbox.ErrUnknownTool)
}

func TestNamesAreSanitisedAndTruncated(t *testing.T) {
	long := stdioEntry(t)
	long["prefix"] = strings.Repeat("p", 60) + "."
	tb := open(t, config(t, map[string]entry{"my.server": stdioEntry(t), "long": long}))
	assert.True(t, tb.HasTool("my_server__add"))

	// 61-character prefix: every name is cut, a hash keeps them distinct,
	// and a call through a cut name reaches the right tool.
	seen := map[string]string{}
	for _, tl := range tb.Tools() {
		if tl.Server != "long" {
			continue
		}
		assert.LessOrEqual(t, len(tl.Name), 64, "OpenAI-compatible APIs' longest tool name")
		assert.Regexp(t, `^[A-Za-z0-9_-]{1,64}$`, tl.Name)
		_, dup := seen[tl.Name]
		assert.False(t, dup, tl.Name)
		seen[tl.Name] = tl.Tool.Name
	}
	assert.Len(t, seen, len(testserver.ToolNames))
	for exposed, tool := range seen {
		if tool == "add" {
			assert.Equal(t, "7", call(t, tb, exposed, map[string]any{"a": 3, "b": 4}))
		}
	}
}

func TestCollisionAtOpenNamesBothServers(t *testing.T) {
	a, b := stdioEntry(t), httpEntry(t)
	a["prefix"], b["prefix"] = "", ""
	_, err := toolbox.Open(context.Background(), config(t, map[string]entry{"alpha": a, "beta": b}))
	require.Error(t, err)
	assert.ErrorIs(t, err, toolbox.ErrNameCollision)
	assert.Contains(t, err.Error(), `server "alpha"`)
	assert.Contains(t, err.Error(), `server "beta"`)
	assert.Contains(t, err.Error(), `"add"`)
}

func TestLateServerThatWouldCollideStaysOut(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "up")
	cmd, args := testserver.Command(t, "sdk")
	script := `test -f "$1" || exit 1; shift; exec "$@"`
	late := entry{"command": "sh", "args": append([]string{"-c", script, "sh", flag, cmd}, args...),
		"env": map[string]string{"GORACE": "atexit_sleep_ms=0"}, "prefix": "x_"}
	early := httpEntry(t)
	early["prefix"] = "x_"
	tb := open(t, config(t, map[string]entry{"early": early, "late": late}), fast)
	require.True(t, tb.HasTool("x_add"))

	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	require.Eventually(t, func() bool {
		return errors.Is(tb.Status()["late"].LastError, toolbox.ErrNameCollision)
	}, 10*time.Second, 5*time.Millisecond)
	st := tb.Status()["late"]
	assert.Equal(t, actors.Failed, st.State)
	assert.Contains(t, st.LastError.Error(), `server "early"`)
	assert.Contains(t, st.LastError.Error(), `server "late"`)
	// The early server keeps every name; none of late's tools got in.
	assert.Equal(t, strconv.Itoa(os.Getpid()), call(t, tb, "x_pid", nil))
	for _, tl := range tb.Tools() {
		assert.Equal(t, "early", tl.Server)
	}
}

func TestServerTimeoutBoundsEachCall(t *testing.T) {
	quick := stdioEntry(t)
	quick["timeout"] = 200
	tb := open(t, config(t, map[string]entry{"quick": quick}))
	// The ctx allows a minute; the server's timeout ends the call first.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := tb.CallTool(ctx, "quick__slow", map[string]any{"ms": 20000}).Await(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, "3", call(t, tb, "quick__add", map[string]any{"a": 1, "b": 2}))
}

func TestCloseEndsEveryServerAndLaterCallsFail(t *testing.T) {
	tb, err := toolbox.Open(context.Background(), config(t, map[string]entry{"alpha": stdioEntry(t), "beta": stdioEntry(t)}))
	require.NoError(t, err)
	var pids []int
	for _, name := range []string{"alpha__pid", "beta__pid"} {
		pid, err := strconv.Atoi(call(t, tb, name, nil))
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.NoError(t, tb.Close())
	require.NoError(t, tb.Close(), "idempotent")
	for _, pid := range pids {
		assert.True(t, proc.Gone(pid), "child %d is gone, not a zombie", pid)
	}
	for name, st := range tb.Status() {
		assert.Equal(t, actors.Closed, st.State, name)
	}
	_, err = tb.CallTool(context.Background(), "alpha__add", nil).Await(context.Background())
	assert.Error(t, err)
}
