package toolbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// counted is a server entry running the count server, logging its starts
// to log, its tools those of variant; extra fields are merged in.
func counted(t *testing.T, log, variant string, extra entry) entry {
	cmd, args := countserver.Command(t)
	e := entry{"command": cmd, "args": args, "env": map[string]string{
		"GORACE": "atexit_sleep_ms=0", countserver.StartLogEnv: log, countserver.VariantEnv: variant}}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func exposed(tb *toolbox.Toolbox) []string {
	var names []string
	for _, tool := range tb.Tools() {
		names = append(names, tool.Name)
	}
	return names
}

func echo(t *testing.T, tb *toolbox.Toolbox, name string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := tb.CallTool(ctx, name, map[string]any{"text": "hi"}).Await(ctx)
	if err != nil {
		return "", err
	}
	return plugin.RenderResult(res), nil
}

func TestLazyServerStartsOnFirstCallOnceAManifestIsKept(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})

	// No manifest yet: a lazy server starts at Open, to learn its tools.
	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	assert.Equal(t, 1, countserver.Starts(t, log))
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	require.NoError(t, tb.Close())
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one manifest per server")
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// With it, Open starts nothing; the tools come from the manifest.
	tb = open(t, cfg, toolbox.WithManifestDir(dir))
	assert.Equal(t, 1, countserver.Starts(t, log), "no child process at Open")
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	assert.Equal(t, actors.NotStarted, tb.Status()["c"].State)
	assert.Equal(t, "not started", tb.Status()["c"].State.String())
	assert.Nil(t, tb.Plugin("c"))

	got, err := echo(t, tb, "c__echo")
	require.NoError(t, err)
	assert.Equal(t, "hi", got)
	assert.Equal(t, 2, countserver.Starts(t, log), "the first call started it")
	assert.Equal(t, actors.Ready, tb.Status()["c"].State)
	_, err = echo(t, tb, "c__echo")
	require.NoError(t, err)
	assert.Equal(t, 2, countserver.Starts(t, log), "once")
}

func TestConcurrentFirstCallsStartALazyServerOnce(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	require.Equal(t, 1, countserver.Starts(t, log))

	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	const n = 8
	var wg sync.WaitGroup
	results := make([]string, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			if i%2 == 0 {
				results[i], errs[i] = echo(t, tb, "c__echo")
				return
			}
			// Half through the hook, as a model's calls come.
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "x", Name: "c__echo", Arguments: []byte(`{"text":"hi"}`)}}}
			errs[i] = tb.OnStreamChunk(t.Context(), chunk)
			res := chunk.Blocks[0].(host.ToolResult)
			results[i] = res.Content
			if res.IsError {
				errs[i] = errors.New(res.Content)
			}
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], i)
		assert.Equal(t, "hi", results[i], i)
	}
	assert.Equal(t, 2, countserver.Starts(t, log), "one start for all the first calls")
}

func TestStartStartsALazyServer(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	require.NoError(t, tb.Start(t.Context(), "c"))
	assert.Equal(t, 2, countserver.Starts(t, log))
	assert.Equal(t, actors.Ready, tb.Status()["c"].State)
	require.NoError(t, tb.Start(t.Context(), "c"), "already started")
	assert.Equal(t, 2, countserver.Starts(t, log))
	assert.ErrorIs(t, tb.Start(t.Context(), "nope"), toolbox.ErrUnknownServer)
}

func TestALazyServerThatNoLongerHasTheToolCalled(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})}), toolbox.WithManifestDir(dir)).Close())

	// The same entry (env values are not part of it) now serves other tools.
	tb := open(t, config(t, map[string]entry{"c": counted(t, log, "3", entry{"lazy": true})}), toolbox.WithManifestDir(dir))
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb), "the manifest's list")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := tb.CallTool(ctx, "c__add", map[string]any{"a": 1, "b": 2}).Await(ctx)
	require.ErrorIs(t, err, toolbox.ErrUnknownTool)
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), `no longer has tool "add"`)
	assert.Equal(t, []string{"c__echo", "c__steal"}, exposed(tb), "the real list replaced the manifest's")
}

func TestStopWhenIdleStopsALazyServerAndTheNextCallStartsIt(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true, "stopWhenIdle": "20ms"})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	// Through the hook, which counts the call while it is under way.
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "x", Name: "c__echo", Arguments: []byte(`{"text":"hi"}`)}}}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	require.Equal(t, host.ToolResult{ToolCallID: "x", Name: "c__echo", Content: "hi"}, chunk.Blocks[0])
	// Not a timing assertion: the state it ends in, however long it takes.
	require.Eventually(t, func() bool { return tb.Status()["c"].State == actors.NotStarted }, 30*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb), "its tools stay exposed")
	got, err := echo(t, tb, "c__echo")
	require.NoError(t, err)
	assert.Equal(t, "hi", got)
	assert.Equal(t, 3, countserver.Starts(t, log))
}

// A call through CallTool that outlasts stopWhenIdle, on the server or
// waiting for its approval, holds the server: it is not stopped under the
// call, and the call's answer comes from the server it was sent to.
func TestStopWhenIdleWaitsForACallUnderWay(t *testing.T) {
	dir := t.TempDir()
	idle := entry{"lazy": true, "stopWhenIdle": "20ms"}
	for k, v := range stdioEntry(t) {
		idle[k] = v
	}
	cfg := config(t, map[string]entry{"s": idle})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	t.Run("on the server", func(t *testing.T) {
		tb := open(t, cfg, toolbox.WithManifestDir(dir))
		met := t.TempDir()
		first := tb.CallTool(ctx, "s__meet", map[string]any{"dir": met, "n": 2})
		// The call has reached the server: its file is there.
		require.Eventually(t, func() bool { entries, _ := os.ReadDir(met); return len(entries) == 1 }, 30*time.Second, time.Millisecond)
		// Many idle times pass (a busy machine may give the timer fewer
		// chances; it never makes this fail).
		time.Sleep(300 * time.Millisecond)
		require.Equal(t, actors.Ready, tb.Status()["s"].State, "not stopped under the call")
		second := tb.CallTool(ctx, "s__meet", map[string]any{"dir": met, "n": 2})
		for _, f := range []*plugin.Future{first, second} {
			res, err := f.Await(ctx)
			require.NoError(t, err)
			assert.Equal(t, "together", plugin.RenderResult(res))
		}
		require.Eventually(t, func() bool { return tb.Status()["s"].State == actors.NotStarted }, 30*time.Second, 5*time.Millisecond,
			"stopped once idle")
	})

	t.Run("awaiting approval", func(t *testing.T) {
		asked, decide := make(chan struct{}), make(chan struct{})
		approve := plugin.WithApproval(func(context.Context, plugin.ApprovalRequest) error {
			close(asked)
			<-decide
			return nil
		})
		tb := open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(approve))
		f := tb.CallTool(ctx, "s__add", map[string]any{"a": 1, "b": 2})
		<-asked
		time.Sleep(300 * time.Millisecond)
		require.Equal(t, actors.Ready, tb.Status()["s"].State, "not stopped while the call awaits its approval")
		close(decide)
		res, err := f.Await(ctx)
		require.NoError(t, err)
		assert.Equal(t, "3", plugin.RenderResult(res))
	})
}

func TestPinnedToolsHoldOutAChangedTool(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	pinned := []toolbox.Option{toolbox.WithManifestDir(dir), toolbox.WithPinnedTools()}
	require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, log, "1", nil)}), pinned...).Close())

	core, logs := observer.New(zapcore.WarnLevel)
	cfg := config(t, map[string]entry{"c": counted(t, log, "2", nil)})
	tb := open(t, cfg, append(pinned, toolbox.WithPluginOptions(plugin.WithLogger(zap.New(core))))...)
	assert.Equal(t, []string{"c__add"}, exposed(tb), "echo changed: held out")
	assert.False(t, tb.HasTool("c__echo"))
	for _, d := range tb.ToolDefinitions() {
		assert.NotContains(t, d.Description, "ssh")
	}

	_, err := echo(t, tb, "c__echo")
	require.ErrorIs(t, err, plugin.ErrDenied)
	require.ErrorIs(t, err, toolbox.ErrToolChanged)
	assert.Contains(t, err.Error(), "changed since it was pinned (description)")

	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "k", Name: "c__echo", Arguments: []byte(`{"text":"hi"}`)}}}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.True(t, res.IsError)
	assert.Equal(t, "k", res.ToolCallID)
	assert.Contains(t, res.Content, "changed since it was pinned")

	st := tb.Status()["c"]
	assert.Equal(t, actors.Ready, st.State)
	require.ErrorIs(t, st.LastError, toolbox.ErrToolChanged)
	assert.Contains(t, st.LastError.Error(), `"echo" changed since it was pinned (description)`)
	assert.Equal(t, []toolbox.HeldTool{{Server: "c", Tool: "echo", Name: "c__echo", Changed: []string{"description"}}}, tb.HeldTools())
	warned := logs.FilterMessageSnippet("held out").All()
	require.Len(t, warned, 1)
	assert.Equal(t, "echo", warned[0].ContextMap()["tool"])

	// Accepted, it is exposed and pinned for the next run.
	require.NoError(t, tb.AcceptTools("c"))
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	got, err := echo(t, tb, "c__echo")
	require.NoError(t, err)
	assert.Equal(t, "hi", got)
	assert.Nil(t, tb.Status()["c"].LastError)
	require.NoError(t, tb.Close())
	tb = open(t, cfg, pinned...)
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	assert.Empty(t, tb.HeldTools())
}

func TestPinnedToolsHoldOutANewToolAndDropARemovedOne(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	pinned := []toolbox.Option{toolbox.WithManifestDir(dir), toolbox.WithPinnedTools()}
	require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, log, "1", nil)}), pinned...).Close())
	tb := open(t, config(t, map[string]entry{"c": counted(t, log, "3", nil)}), pinned...)
	assert.Equal(t, []string{"c__echo"}, exposed(tb), "add removed, steal new")
	assert.Equal(t, []toolbox.HeldTool{{Server: "c", Tool: "steal", Name: "c__steal", New: true}}, tb.HeldTools())
	_, err := echo(t, tb, "c__steal")
	require.ErrorIs(t, err, plugin.ErrDenied)
	assert.Contains(t, err.Error(), "new since the tools were pinned")
	_, err = echo(t, tb, "c__add")
	require.ErrorIs(t, err, toolbox.ErrUnknownTool)
	assert.Error(t, tb.AcceptTools("nope"))
}

func TestPinnedLazyServerIsCheckedBeforeAndAfterItStarts(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	pinned := []toolbox.Option{toolbox.WithManifestDir(dir), toolbox.WithPinnedTools()}
	require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})}), pinned...).Close())
	tb := open(t, config(t, map[string]entry{"c": counted(t, log, "2", entry{"lazy": true})}), pinned...)
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb), "the manifest's list is the pinned one")
	// The call that starts it finds echo changed: it is not sent.
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "k", Name: "c__echo", Arguments: []byte(`{"text":"hi"}`)}}}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "changed since it was pinned (description)")
	assert.Equal(t, []string{"c__add"}, exposed(tb), "the real list changed echo")
	_, err := echo(t, tb, "c__echo")
	require.ErrorIs(t, err, toolbox.ErrToolChanged)

	// The same through CallTool, on a fresh start.
	tb2 := open(t, config(t, map[string]entry{"c": counted(t, log, "2", entry{"lazy": true})}), pinned...)
	assert.Equal(t, actors.NotStarted, tb2.Status()["c"].State)
	_, err = echo(t, tb2, "c__echo")
	require.ErrorIs(t, err, plugin.ErrDenied)
	require.ErrorIs(t, err, toolbox.ErrToolChanged)
}

func TestManifestBadInput(t *testing.T) {
	t.Run("lazy must be a boolean", func(t *testing.T) {
		_, err := mcpconfig.Parse([]byte("{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"lazy\": \"yes\"}}}"), mcpconfig.WithStrict())
		var ce *mcpconfig.Error
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, `2:10: server "a": lazy: must be true or false`, err.Error())
	})
	t.Run("stopWhenIdle must be a duration and needs lazy", func(t *testing.T) {
		_, err := mcpconfig.Parse([]byte(`{"mcpServers": {"a": {"command": "x", "lazy": true, "stopWhenIdle": 10}}}`), mcpconfig.WithStrict())
		assert.ErrorContains(t, err, `stopWhenIdle: must be a duration`)
		_, err = mcpconfig.Parse([]byte(`{"mcpServers": {"a": {"command": "x", "lazy": true, "stopWhenIdle": "soon"}}}`), mcpconfig.WithStrict())
		assert.ErrorContains(t, err, `stopWhenIdle: must be a duration`)
		_, err = mcpconfig.Parse([]byte(`{"mcpServers": {"a": {"command": "x", "stopWhenIdle": "10m"}}}`), mcpconfig.WithStrict())
		assert.ErrorContains(t, err, `1:55: server "a": stopWhenIdle: needs "lazy": true`)
		cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {"a": {"command": "x", "lazy": true, "stopWhenIdle": "10m"}}}`))
		require.NoError(t, err)
		assert.True(t, cfg.Servers["a"].Lazy)
		assert.Equal(t, 10*time.Minute, cfg.Servers["a"].StopWhenIdle)
	})
	t.Run("a manifest dir that cannot be created", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))
		dir := filepath.Join(file, "manifests")
		_, err := toolbox.Open(t.Context(), config(t, map[string]entry{"c": counted(t, filepath.Join(t.TempDir(), "s"), "1", nil)}), toolbox.WithManifestDir(dir))
		require.ErrorIs(t, err, plugin.ErrIO)
		assert.Contains(t, err.Error(), dir)
	})
	t.Run("a corrupt manifest is ignored with a warning", func(t *testing.T) {
		dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
		cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
		require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		require.Len(t, files, 1)
		require.NoError(t, os.WriteFile(files[0], []byte(`{"version":1,"tools":[`), 0o600))
		core, logs := observer.New(zapcore.WarnLevel)
		tb := open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(plugin.WithLogger(zap.New(core))))
		assert.Equal(t, 2, countserver.Starts(t, log), "no usable manifest: started at Open")
		assert.Equal(t, actors.Ready, tb.Status()["c"].State)
		assert.Len(t, logs.FilterMessage("mcp server manifest ignored").All(), 1)
		require.NoError(t, tb.Close())
		raw, err := os.ReadFile(files[0])
		require.NoError(t, err)
		assert.Contains(t, string(raw), `"echo"`, "written again, whole")
	})
	t.Run("a manifest of another entry is not used", func(t *testing.T) {
		dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
		require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})}), toolbox.WithManifestDir(dir)).Close())
		// The same server name, another command line.
		changed := counted(t, log, "1", entry{"lazy": true})
		changed["args"] = append(changed["args"].([]string), "--other")
		tb := open(t, config(t, map[string]entry{"c": changed}), toolbox.WithManifestDir(dir))
		assert.Equal(t, 2, countserver.Starts(t, log), "started at Open: its manifest is for another entry")
		assert.NotEqual(t, actors.NotStarted, tb.Status()["c"].State)
	})
	t.Run("two toolboxes over one dir at once", func(t *testing.T) {
		dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
		cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				tb, err := toolbox.Open(context.Background(), cfg, toolbox.WithManifestDir(dir), toolbox.WithPinnedTools())
				if assert.NoError(t, err) {
					assert.NoError(t, tb.Close())
				}
			})
		}
		wg.Wait()
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		require.Len(t, files, 1, "no temporary file left")
		tb := open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithPinnedTools())
		assert.Equal(t, actors.NotStarted, tb.Status()["c"].State, "the manifest is whole")
		assert.Empty(t, tb.HeldTools())
	})
	t.Run("the default dir is the user's cache", func(t *testing.T) {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		t.Setenv("HOME", cache)
		cfg := config(t, map[string]entry{"c": counted(t, filepath.Join(t.TempDir(), "s"), "1", entry{"lazy": true})})
		require.NoError(t, open(t, cfg).Close())
		dir, err := os.UserCacheDir()
		require.NoError(t, err)
		assert.Equal(t, cache, dir)
		dir = filepath.Join(dir, "mcpconnector")
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		assert.Len(t, files, 1)
	})
	t.Run("no manifest without lazy, pins or a dir", func(t *testing.T) {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		require.NoError(t, open(t, config(t, map[string]entry{"c": counted(t, filepath.Join(t.TempDir(), "s"), "1", nil)})).Close())
		_, err := os.Stat(filepath.Join(cache, "mcpconnector"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
}

// A tool added while the server runs (a list change) is held out too.
func TestPinnedToolsHoldOutAToolAddedWhileRunning(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"c": controlsEntry(t)}), toolbox.WithManifestDir(t.TempDir()), toolbox.WithPinnedTools(),
		toolbox.WithPluginOptions(plugin.WithToolRefresh()))
	assert.Equal(t, "added fresh", call(t, tb, "c__add_tool", map[string]any{"name": "fresh"}))
	require.Eventually(t, func() bool { return len(tb.HeldTools()) == 1 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []toolbox.HeldTool{{Server: "c", Tool: "fresh", Name: "c__fresh", New: true}}, tb.HeldTools())
	assert.False(t, tb.HasTool("c__fresh"))
	require.NoError(t, tb.AcceptTools("c"))
	assert.True(t, tb.HasTool("c__fresh"))
	assert.Empty(t, tb.HeldTools())
}

// A call of a lazy server's tool that arrives as Close begins starts
// nothing, and leaves no start under way behind: Close waits for one, and
// would wait forever (TestCloseDuringALazyStart hung so when its call came
// between Close's first step and its wait).
func TestACallAsCloseBeginsLeavesNoStartUnderWay(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithManifestDir(dir)) // closed below only if Close can end
	require.NoError(t, err)
	err, left := toolbox.StartAsClosing(tb, "c")
	require.Error(t, err)
	require.False(t, left, "a start is left under way, which Close would wait for forever")
	require.NoError(t, tb.Close())
}

// Close while a lazy server starts: the start ends, its child is closed,
// and nothing outlives Close (goleak checks at the end).
func TestCloseDuringALazyStart(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	tb := open(t, cfg, toolbox.WithManifestDir(dir))
	called := make(chan error, 1)
	go func() { _, err := echo(t, tb, "c__echo"); called <- err }()
	require.NoError(t, tb.Close())
	<-called // answered, one way or the other
	assert.NotEqual(t, actors.Ready, tb.Status()["c"].State)
}

// Tool search finds a lazy server's tools from its manifest; calling what
// it found starts the server.
func TestToolSearchOverALazyServer(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	tb := open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithToolSearch(toolbox.ToolSearch{}))
	found := tb.Search("echo the text back")
	require.NotEmpty(t, found)
	assert.Equal(t, "c__echo", found[0].Name)
	assert.Equal(t, 1, countserver.Starts(t, log), "searching starts nothing")
	got, err := echo(t, tb, "c__echo")
	require.NoError(t, err)
	assert.Equal(t, "hi", got)
	assert.Equal(t, 2, countserver.Starts(t, log))
}
