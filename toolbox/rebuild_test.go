package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// flipArg is the first argument that makes the test binary the flip
// server.
const flipArg = "toolbox-flip-server"

// runFlipServerIfChild serves the flip server on stdio and exits when the
// test binary was started as one.
func runFlipServerIfChild() {
	if len(os.Args) < 2 || os.Args[1] != flipArg {
		return
	}
	if err := newFlipServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "flip server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// newFlipServer is a server whose list changes on demand: flip {n} makes
// tool "x" version n (its description "x v<n>", its one property "v<n>"),
// and has tool "y" (version n too) for even n only. Each change tells the
// subscribed clients (list_changed).
func newFlipServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flip", Version: "1.0.0"}, nil)
	version := func(name string, n int) {
		s.AddTool(&mcp.Tool{Name: name, Description: fmt.Sprintf("%s v%d", name, n), InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{fmt.Sprintf("v%d", n): map[string]any{"type": "string"}}}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	version("x", 0)
	version("y", 0)
	type flipIn struct {
		N int `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "flip", Description: "Change the list to version n"},
		func(_ context.Context, _ *mcp.CallToolRequest, in flipIn) (*mcp.CallToolResult, any, error) {
			version("x", in.N)
			if in.N%2 == 0 {
				version("y", in.N)
			} else {
				s.RemoveTools("y")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flipped"}}}, nil, nil
		})
	return s
}

func flipEntry(t *testing.T) entry {
	exe, err := os.Executable()
	require.NoError(t, err)
	return entry{"command": exe, "args": []string{flipArg}, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
}

// tables records every table that goes in and tells a waiter of each.
type tables struct {
	mu     sync.Mutex
	latest toolbox.Table
	bad    []string // what disagreed, in any table
	seen   int
	next   chan struct{}
}

func newTables() *tables { return &tables{next: make(chan struct{}, 1)} }

// committed checks tb: each exposed tool's definition is the one of its
// own list (same name, description, schema version) and its owner is the
// server the tool came from.
func (r *tables) committed(tb toolbox.Table) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	r.latest = tb
	if len(tb.Tools) != len(tb.Defs) || len(tb.Tools) != len(tb.Owners) {
		r.bad = append(r.bad, fmt.Sprintf("%d tools, %d definitions, %d owners", len(tb.Tools), len(tb.Defs), len(tb.Owners)))
	}
	for i, tl := range tb.Tools {
		if i >= len(tb.Defs) {
			break
		}
		d := tb.Defs[i]
		if d.Name != tl.Name || d.Description != tl.Tool.Description || tb.Owners[tl.Name] != tl.Server {
			r.bad = append(r.bad, fmt.Sprintf("%s of %s (%q) has definition %s (%q), owner %s",
				tl.Name, tl.Server, tl.Tool.Description, d.Name, d.Description, tb.Owners[tl.Name]))
			continue
		}
		// The flip server's versions: description "x v7", property "v7".
		if v, ok := strings.CutPrefix(tl.Tool.Description, tl.Tool.Name+" v"); ok && tl.Server == "f" {
			var schema struct {
				Properties map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(d.InputSchema, &schema); err != nil || len(schema.Properties) != 1 || schema.Properties["v"+v] == nil {
				r.bad = append(r.bad, fmt.Sprintf("%s %q has schema %s", tl.Name, tl.Tool.Description, d.InputSchema))
			}
		}
	}
	select {
	case r.next <- struct{}{}:
	default:
	}
}

// waitFor waits until a table that went in satisfies ok, or fails the
// test when ctx ends first (a guard against a hang, not a timing check).
func (r *tables) waitFor(ctx context.Context, t *testing.T, what string, ok func(toolbox.Table) bool) {
	t.Helper()
	for {
		r.mu.Lock()
		done := ok(r.latest)
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.next:
		case <-ctx.Done():
			t.Fatalf("no table with %s went in", what)
		}
	}
}

// owner is the server the latest table routes name to.
func (r *tables) owner(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latest.Owners[name]
}

// count is how many tables have gone in.
func (r *tables) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// waitPast waits until more than n tables have gone in.
func (r *tables) waitPast(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	r.waitFor(ctx, t, fmt.Sprintf("number %d", n+1), func(toolbox.Table) bool { return r.seen > n })
}

func (r *tables) problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

func description(tb toolbox.Table, name string) string { return descriptionIn(tb.Tools, name) }

func descriptionIn(tools []toolbox.Tool, name string) string {
	for _, tl := range tools {
		if tl.Name == name {
			return tl.Tool.Description
		}
	}
	return ""
}

// Rebuilds race a server's list as it changes again and again (every
// change heard through list_changed): no table that goes in pairs a tool
// with a definition or an owner of another list, and the last one has the
// server's final list.
func TestRacingRebuildsNeverMixTwoLists(t *testing.T) {
	rec := newTables()
	tb := open(t, config(t, map[string]entry{"f": flipEntry(t), "a": stdioEntry(t)}),
		toolbox.WithPluginOptions(plugin.WithToolRefresh()), toolbox.WithTestHooks(nil, rec.committed))
	require.Equal(t, "x v0", descriptionIn(tb.Tools(), "f__x"))

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if i%2 == 0 {
					toolbox.RebuildNow(tb)
				} else {
					toolbox.QueueRebuild(tb)
				}
			}
		})
	}
	const flips = 40
	for n := 1; n <= flips; n++ {
		assert.Equal(t, "flipped", call(t, tb, "f__flip", map[string]any{"n": n}))
	}
	close(stop)
	wg.Wait()

	final := fmt.Sprintf("x v%d", flips)
	rec.waitFor(ctx, t, final, func(tl toolbox.Table) bool {
		return description(tl, "f__x") == final && description(tl, "f__y") == fmt.Sprintf("y v%d", flips)
	})
	assert.Empty(t, rec.problems())
	// The table in force is the plugin's own list now.
	tools, defs := tb.Plugin("f").ToolSet()
	require.Len(t, tools, 3)
	for i, tool := range tools {
		assert.Equal(t, tool.Description, descriptionIn(tb.Tools(), "f__"+tool.Name))
		assert.Equal(t, tool.Name, defs[i].Name)
	}
	names := exposed(tb)
	assert.Contains(t, names, "a__echo", "the other server keeps its tools")
	assert.Contains(t, names, "f__y")
}

// holder holds a rebuild, once, when it has read a server's list and not
// yet let go of it.
type holder struct {
	server  atomic.Value // string: the server to hold, "" none
	entered chan struct{}
	release chan struct{}
}

func newHolder() *holder {
	h := &holder{}
	h.server.Store("")
	return h
}

func (h *holder) read(server string) {
	if server != "" && h.server.CompareAndSwap(server, "") {
		h.entered <- struct{}{}
		<-h.release
	}
}

// arm makes the next read of server wait for release.
func (h *holder) arm(server string) {
	h.entered, h.release = make(chan struct{}), make(chan struct{})
	h.server.Store(server)
}

// Two rebuilds race: one holds a server's list (and its lock) while the
// list changes, and the rebuild the change queues goes in meanwhile with
// the lists it could read. Whichever way they cross, the table that goes
// in last has the server's new list.
func TestRebuildsThatRaceEndWithTheNewestLists(t *testing.T) {
	rec, hold := newTables(), newHolder()
	changed := make(chan int, 4) // tables gone in when f's list changed
	onChange := plugin.WithStatusHandler(func(st plugin.Status) {
		if len(st.ToolsAdded)+len(st.ToolsRemoved) > 0 {
			changed <- rec.count()
		}
	})
	tb := open(t, config(t, map[string]entry{"f": flipEntry(t), "g": stdioEntry(t)}),
		toolbox.WithPluginOptions(plugin.WithToolRefresh(), onChange), toolbox.WithTestHooks(hold.read, rec.committed))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	// race holds a rebuild at server's list, flips f to version n and
	// waits for the rebuild the change queues to go in (f's "x" in its
	// table is meanwhile's); then it lets the held one go on, and waits
	// for it.
	race := func(server string, n int, meanwhile string) {
		t.Helper()
		hold.arm(server)
		done := make(chan struct{})
		go func() {
			defer close(done)
			toolbox.RebuildNow(tb)
		}()
		select {
		case <-hold.entered:
		case <-ctx.Done():
			t.Fatalf("no rebuild read %s", server)
		}
		assert.Equal(t, "flipped", call(t, tb, "f__flip", map[string]any{"n": n}))
		select {
		case seen := <-changed:
			rec.waitPast(ctx, t, seen)
		case <-ctx.Done():
			t.Fatal("f's list did not change")
		}
		rec.mu.Lock()
		assert.Equal(t, meanwhile, description(rec.latest, "f__x"), "the table that went in meanwhile")
		rec.mu.Unlock()
		close(hold.release)
		<-done
	}

	// The held rebuild has read f's old list when f changes; the queued
	// one finds f's list taken and goes in with its last one. The held one
	// reads f again before it lets go.
	race("f", 1, "x v0")
	assert.Equal(t, "x v1", descriptionIn(tb.Tools(), "f__x"))
	assert.False(t, tb.HasTool("f__y"))

	// The held rebuild has read f's list (version 1) and holds g's when f
	// changes; the queued one reads f's new list and goes in first. The
	// held one goes in after it, with f's newer list, not its own.
	race("g", 2, "x v2")
	assert.Equal(t, "x v2", descriptionIn(tb.Tools(), "f__x"))
	assert.Equal(t, "y v2", descriptionIn(tb.Tools(), "f__y"))
	assert.True(t, tb.HasTool("g__echo"))
	assert.Empty(t, rec.problems())
}

// While one server's list is slow to read, the other server's calls go
// through, Status and the table answer, and a change of the other
// server's list goes in; once the slow read ends, both are in the table.
func TestASlowListReadHoldsUpNoOtherServer(t *testing.T) {
	var armed atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	read := func(server string) {
		if server == "slow" && armed.CompareAndSwap(true, false) {
			entered <- struct{}{}
			<-release
		}
	}
	rec := newTables()
	tb := open(t, config(t, map[string]entry{"slow": stdioEntry(t), "b": controlsEntry(t)}),
		toolbox.WithPluginOptions(plugin.WithToolRefresh()), toolbox.WithTestHooks(read, rec.committed))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	armed.Store(true)
	toolbox.QueueRebuild(tb)
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("no rebuild read the slow server")
	}
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()

	// guard runs f, failing the test if it has not returned when ctx ends.
	guard := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			f()
		}()
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatalf("%s waited for the slow read", what)
		}
	}
	guard("Status", func() {
		st := tb.Status()
		assert.Equal(t, actors.Ready, st["b"].State)
		assert.Equal(t, actors.Ready, st["slow"].State)
	})
	guard("Tools", func() { assert.Contains(t, exposed(tb), "b__stats") })
	guard("HeldTools", func() { assert.Empty(t, tb.HeldTools()) })
	var res *mcp.CallToolResult
	var err error
	guard("a call of the other server", func() {
		res, err = tb.CallTool(ctx, "b__add_tool", map[string]any{"name": "fresh"}).Await(ctx)
	})
	require.NoError(t, err)
	assert.Equal(t, "added fresh", plugin.RenderResult(res))
	// b's new list goes in, though the slow server is still being read.
	rec.waitFor(ctx, t, "b__fresh", func(tl toolbox.Table) bool { return tl.Owners["b__fresh"] == "b" })
	assert.Equal(t, "slow", rec.owner("slow__echo"), "the slow server's last list stays in")

	released = true
	close(release)
	// The slow read, done, is read again and goes in after: nothing of b's
	// is lost.
	rec.waitFor(ctx, t, "both lists after the slow read", func(tl toolbox.Table) bool {
		return tl.Owners["b__fresh"] == "b" && tl.Owners["slow__echo"] == "slow"
	})
	toolbox.RebuildNow(tb)
	assert.True(t, tb.HasTool("b__fresh"))
	assert.True(t, tb.HasTool("slow__echo"))
	assert.Empty(t, rec.problems())
}

// lazyOnly writes the manifest of a lazy count server (by starting it
// once) and returns its config and the file its starts are logged in.
func lazyOnly(t *testing.T, dir string) (*mcpconfig.Config, string) {
	log := filepath.Join(t.TempDir(), "starts")
	cfg := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close())
	require.Equal(t, 1, countserver.Starts(t, log))
	return cfg, log
}

// A toolbox whose servers are all lazy starts none at Open, and still
// fails Open with ErrValidation for a plugin option with no effect on
// them, as one with a server started at Open does.
func TestAllLazyToolboxChecksPluginOptionsAtOpen(t *testing.T) {
	dir := t.TempDir()
	cfg, log := lazyOnly(t, dir)

	tb, err := toolbox.Open(t.Context(), cfg, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(plugin.WithLossGrace(time.Second)))
	if tb != nil {
		_ = tb.Close()
	}
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithLossGrace")
	assert.Equal(t, 1, countserver.Starts(t, log), "nothing started")

	// Options in their place pass, and still nothing starts.
	tb = open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(plugin.WithConnectTimeout(5*time.Second)))
	assert.Equal(t, actors.NotStarted, tb.Status()["c"].State)
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	assert.Equal(t, 1, countserver.Starts(t, log))
}

// A toolbox that starts nothing at Open because its one server's
// transport is not supported checks its plugin options all the same.
func TestAToolboxThatStartsNothingChecksPluginOptions(t *testing.T) {
	cfg := config(t, map[string]entry{"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}})
	tb, err := toolbox.Open(t.Context(), cfg, toolbox.WithPluginOptions(plugin.WithLossGrace(time.Second)))
	if tb != nil {
		_ = tb.Close()
	}
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithLossGrace")

	tb = open(t, cfg)
	assert.ErrorIs(t, tb.Status()["legacy"].LastError, plugin.ErrNotSupported)
}

// The same over grains: an all-lazy toolbox reached through a cluster
// checks its plugin options as facades at Open, and attaches nothing.
func TestAllLazyRemoteToolboxChecksPluginOptionsAtOpen(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := lazyOnly(t, dir)
	system := quietSystem()
	defer system.Shutdown()
	var attached atomic.Int32
	remote := remoteOf(testRemote{system: system,
		connect: func(context.Context, string, ...plugin.Option) (*plugin.McpPlugin, error) {
			attached.Add(1)
			return nil, fmt.Errorf("not in this test")
		}})

	// A connection's option has no effect on a facade.
	tb, err := toolbox.Open(t.Context(), cfg, remote, toolbox.WithManifestDir(dir),
		toolbox.WithPluginOptions(plugin.WithLogger(nil), plugin.WithBackoff(time.Second, time.Second)))
	if tb != nil {
		_ = tb.Close()
	}
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "option plugin.WithBackoff of WithPluginOptions configures the connection")

	// A facade's option passes.
	tb = open(t, cfg, remote, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(plugin.WithLossGrace(time.Second)))
	assert.Equal(t, []string{"c__add", "c__echo"}, exposed(tb))
	assert.Equal(t, int32(0), attached.Load(), "nothing attached at Open")
}

// quietSystem is an actor system that logs nothing.
func quietSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
}

// A toolbox over a cluster's grains uses the cluster's actor system:
// another one given with WithActorSystem fails Open, naming the option.
func TestActorSystemOfAToolboxOverGrainsFailsOpen(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": stdioEntry(t)})
	cluster, mine := quietSystem(), quietSystem()
	defer cluster.Shutdown()
	defer mine.Shutdown()
	remote := remoteOf(testRemote{system: cluster,
		connect: func(context.Context, string, ...plugin.Option) (*plugin.McpPlugin, error) {
			return nil, fmt.Errorf("not in this test")
		}})
	tb, err := toolbox.Open(t.Context(), cfg, remote, toolbox.WithPluginOptions(plugin.WithActorSystem(mine)))
	if tb != nil {
		_ = tb.Close()
	}
	require.ErrorIs(t, err, plugin.ErrValidation)
	assert.Contains(t, err.Error(), "WithActorSystem")
}

// In a toolbox over a cluster's grains, WithConnectTimeout bounds how long
// Open waits for a grain: a grain that never answers is reported failed
// with the deadline, and Open returns.
func TestConnectTimeoutBoundsOpenOverGrains(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": stdioEntry(t)})
	system := quietSystem()
	defer system.Shutdown()
	remote := remoteOf(testRemote{system: system,
		connect: func(ctx context.Context, _ string, _ ...plugin.Option) (*plugin.McpPlugin, error) {
			d, ok := ctx.Deadline()
			if !ok || time.Until(d) > time.Second {
				return nil, errors.New("the attach is not bound by the connect timeout")
			}
			<-ctx.Done() // a grain that never answers
			return nil, ctx.Err()
		}})
	tb := open(t, cfg, remote, toolbox.WithPluginOptions(plugin.WithConnectTimeout(50*time.Millisecond)))
	st := tb.Status()["alpha"]
	require.Error(t, st.LastError)
	assert.ErrorIs(t, st.LastError, context.DeadlineExceeded)
}

// remoteOf is r as grid.OpenToolbox gives its grains to toolbox.Open: a
// toolbox option (an empty WithPluginOptions) that also has r's methods,
// which Open looks for (remoteServers).
func remoteOf(r testRemote) toolbox.Option {
	return struct {
		toolbox.Option
		testRemote
	}{toolbox.WithPluginOptions(), r}
}

// testRemote has the methods of a remoteServers; its Connect is connect.
type testRemote struct {
	system  *actor.ActorSystem
	connect func(ctx context.Context, server string, opts ...plugin.Option) (*plugin.McpPlugin, error)
}

func (r testRemote) ActorSystem() *actor.ActorSystem { return r.system }

func (r testRemote) Connect(ctx context.Context, server string, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	return r.connect(ctx, server, opts...)
}
