package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// annotatedArg runs this test binary as a stdio server with a read-only
// tool "look" and a writing tool "write", each answering its name.
const annotatedArg = "mcpconnector-toolbox-annotated"

func init() {
	if len(os.Args) < 2 || os.Args[1] != annotatedArg {
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "annotated", Version: "1"}, nil)
	for _, tool := range []*mcp.Tool{
		{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "write", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool)}},
	} {
		tool.InputSchema = map[string]any{"type": "object"}
		s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool.Name + " ran"}}}, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func annotatedEntry(t *testing.T, extra entry) entry {
	exe, err := os.Executable()
	require.NoError(t, err)
	e := entry{"command": exe, "args": []string{annotatedArg}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// asked records the approval requests a host's handler saw and approves them.
type asked struct {
	mu    sync.Mutex
	tools []string
}

func (a *asked) approve(_ context.Context, r plugin.ApprovalRequest) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tools = append(a.tools, r.Tool)
	return nil
}

func (a *asked) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.tools...)
}

func oneTurn(ctx context.Context, t *testing.T, tb *toolbox.Toolbox, calls ...host.ToolCall) []host.ToolResult {
	t.Helper()
	chunk := &host.Chunk{}
	for _, c := range calls {
		chunk.Blocks = append(chunk.Blocks, c)
	}
	require.NoError(t, tb.OnStreamChunk(ctx, chunk))
	out := make([]host.ToolResult, len(calls))
	for i, b := range chunk.Blocks {
		res, ok := b.(host.ToolResult)
		require.True(t, ok, "%T", b)
		out[i] = res
	}
	return out
}

func TestApprovalModes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cfg := config(t, map[string]entry{
		"writes":  annotatedEntry(t, entry{"approval": "writes"}),
		"auto":    annotatedEntry(t, entry{"approval": "auto"}),
		"prompt":  annotatedEntry(t, entry{"approval": "prompt"}),
		"trusted": annotatedEntry(t, entry{"trust": true, "tools": map[string]any{"look": map[string]any{"approval": "approve"}}}),
		"mixed":   annotatedEntry(t, entry{"approval": "approve", "tools": map[string]any{"write": map[string]any{"approval": "auto"}}}),
	})
	var approver asked
	tb := open(t, cfg, toolbox.WithPluginOptions(plugin.WithApproval(approver.approve)))
	for _, c := range []struct {
		server string
		asks   map[string]bool // tool -> whether the host is asked
	}{
		{"writes", map[string]bool{"look": false, "write": true}},
		{"auto", map[string]bool{"look": false, "write": false}},
		{"prompt", map[string]bool{"look": true, "write": true}},
		{"trusted", map[string]bool{"look": true, "write": false}}, // approve asks even when trusted
		{"mixed", map[string]bool{"look": true, "write": false}},   // the tool's mode wins
	} {
		for _, tool := range []string{"look", "write"} {
			before := len(approver.seen())
			res := oneTurn(ctx, t, tb, host.ToolCall{ID: "1", Name: c.server + "__" + tool, Arguments: []byte(`{}`)})
			require.False(t, res[0].IsError, "%s %s: %s", c.server, tool, res[0].Content)
			assert.Equal(t, tool+" ran", res[0].Content)
			asked := len(approver.seen()) > before
			assert.Equal(t, c.asks[tool], asked, "%s: was the host asked for %s", c.server, tool)
		}
	}
}

func TestAnApprovalModeThatAsksWithoutAHandlerDenies(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tb := open(t, config(t, map[string]entry{"w": annotatedEntry(t, entry{"approval": "writes"})}))
	res := oneTurn(ctx, t, tb,
		host.ToolCall{ID: "1", Name: "w__look", Arguments: []byte(`{}`)},
		host.ToolCall{ID: "2", Name: "w__write", Arguments: []byte(`{}`)})
	assert.False(t, res[0].IsError, res[0].Content)
	assert.Equal(t, "look ran", res[0].Content, "read-only: no question needed")
	assert.True(t, res[1].IsError)
	assert.Contains(t, res[1].Content, `approval mode "writes"`)
	assert.Contains(t, res[1].Content, "no approval handler is set")
	_, err := tb.CallTool(ctx, "w__write", nil).Await(ctx)
	require.ErrorIs(t, err, plugin.ErrDenied)
	assert.ErrorIs(t, err, toolbox.ErrApprovalHandlerMissing)
}

func TestASerialServersCallsRunOneAfterAnotherWhileAnothersOverlap(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	serialDir, parallelDir := t.TempDir(), t.TempDir()
	second := filepath.Join(t.TempDir(), "second")
	s := stdioEntry(t)
	s["parallelToolCalls"] = false
	var held atomic.Int32
	var overlap atomic.Value
	tb := open(t, config(t, map[string]entry{"s": s, "p": stdioEntry(t)}),
		toolbox.WithSerialHook(func(server string) {
			// The serial server's first call is sent and its second waits:
			// no second call is in its meeting place. The first meets
			// this note instead.
			held.Add(1)
			entries, _ := os.ReadDir(serialDir)
			if len(entries) > 1 {
				overlap.Store(fmt.Sprintf("%d calls of %s at once", len(entries), server))
			}
			if _, err := os.Stat(second); err == nil {
				overlap.Store("the second call of " + server + " ran before the first answered")
			}
			assert.NoError(t, os.WriteFile(filepath.Join(serialDir, "held"), nil, 0o600))
		}))
	meet := func(id, name, dir string) host.ToolCall {
		args, err := json.Marshal(map[string]any{"dir": dir, "n": 2})
		require.NoError(t, err)
		return host.ToolCall{ID: id, Name: name, Arguments: args}
	}
	record, err := json.Marshal(map[string]any{"path": second, "tag": "s2", "ms": 0})
	require.NoError(t, err)
	res := oneTurn(ctx, t, tb,
		meet("s1", "s__meet", serialDir), meet("p1", "p__meet", parallelDir),
		host.ToolCall{ID: "s2", Name: "s__record", Arguments: record}, meet("p2", "p__meet", parallelDir))
	for i, r := range res {
		require.False(t, r.IsError, "%d: %s", i, r.Content)
	}
	assert.Equal(t, []string{"together", "together", "recorded s2", "together"},
		[]string{res[0].Content, res[1].Content, res[2].Content, res[3].Content})
	assert.Nil(t, overlap.Load())
	assert.EqualValues(t, 1, held.Load(), "the serial server's second call waited for its first")
	// The parallel server's two calls met each other: they overlapped.
	entries, err := os.ReadDir(parallelDir)
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	// The serial server saw its first call and the note; its second ran after.
	entries, err = os.ReadDir(serialDir)
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	data, err := os.ReadFile(second)
	require.NoError(t, err)
	assert.Equal(t, "s2\n", string(data))
}

func TestARequiredServerThatExitsFailsOpenAndClosesTheOthers(t *testing.T) {
	log := filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{
		"needed": counted(t, filepath.Join(t.TempDir(), "needed"), variantExit, entry{"required": true}),
		"other":  counted(t, log, "1", nil),
		"extra":  annotatedEntry(t, entry{"required": true}),
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg, fast)
	require.Error(t, err)
	assert.Nil(t, tb)
	assert.ErrorIs(t, err, toolbox.ErrRequiredServer)
	assert.Contains(t, err.Error(), `server "needed"`)
	assert.Contains(t, err.Error(), "exit status 3", "why")
	assert.NotContains(t, err.Error(), `server "extra"`, "a required server that came up is not named")
	assert.NotContains(t, err.Error(), `server "other"`)

	// The other server's child was started and is gone.
	require.Equal(t, 1, countserver.Starts(t, log))
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(data), "start ")))
	require.NoError(t, err)
	assert.True(t, proc.Gone(pid), "the other server's child was closed")

	// Not required, the same server fails open, as before.
	delete(cfg.Servers, "extra")
	cfg.Servers["needed"].Required = false
	tb = open(t, cfg, fast)
	assert.NotEqual(t, actors.Ready, tb.Status()["needed"].State)
	assert.Equal(t, actors.Ready, tb.Status()["other"].State)
}

func TestADeniedServerIsNotStartedAndSaysWhichRule(t *testing.T) {
	deniedLog, allowedLog := filepath.Join(t.TempDir(), "denied"), filepath.Join(t.TempDir(), "allowed")
	cfg := config(t, map[string]entry{
		"bad":  counted(t, deniedLog, "1", nil),
		"good": counted(t, allowedLog, "1", nil),
	})
	tb := open(t, cfg, toolbox.WithServerPolicy(toolbox.ServerPolicy{Deny: []toolbox.ServerMatch{{Name: "bad"}}}))
	assert.Equal(t, 0, countserver.Starts(t, deniedLog), "never started")
	assert.Equal(t, 1, countserver.Starts(t, allowedLog))
	st := tb.Status()["bad"]
	assert.Equal(t, actors.Failed, st.State)
	require.Error(t, st.LastError)
	assert.ErrorIs(t, st.LastError, toolbox.ErrDeniedByPolicy)
	assert.ErrorIs(t, st.LastError, plugin.ErrDenied)
	assert.Contains(t, st.LastError.Error(), `deny[0] (name "bad")`)
	assert.Equal(t, []string{"good__add", "good__echo"}, exposed(tb))
	_, err := tb.CallTool(t.Context(), "bad__echo", nil).Await(t.Context())
	assert.ErrorIs(t, err, toolbox.ErrUnknownTool)

	// Required and denied: Open fails, saying so.
	cfg.Servers["bad"].Required = true
	_, err = toolbox.Open(t.Context(), cfg, toolbox.WithServerPolicy(toolbox.ServerPolicy{Allow: []toolbox.ServerMatch{{Name: "good"}}}))
	require.Error(t, err)
	assert.ErrorIs(t, err, toolbox.ErrRequiredServer)
	assert.ErrorIs(t, err, toolbox.ErrDeniedByPolicy)
	assert.Contains(t, err.Error(), "no allow rule matches")
	assert.Equal(t, 0, countserver.Starts(t, deniedLog))
	assert.False(t, errors.Is(err, plugin.ErrValidation))
}
