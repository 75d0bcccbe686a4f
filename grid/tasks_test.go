//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/gridmember"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// taskServer serves the task server over Streamable HTTP, its tasks in a
// directory of t's, and returns the mcp.json naming it "jobs", and the
// directory.
func taskServer(t *testing.T) (*mcpconfig.Config, string) {
	t.Helper()
	dir := t.TempDir()
	h, err := taskserver.StartHTTP(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Stop() })
	return &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"jobs": {Name: "jobs", Type: mcpconfig.TypeHTTP, URL: h.URL},
	}}, dir
}

// startKindMembers is startMembers with the kind's options.
func startKindMembers(t *testing.T, n int, cfg *mcpconfig.Config, opts ...grid.KindOption) []*cluster.Cluster {
	t.Helper()
	agent := test.NewInMemAgent()
	name := fmt.Sprintf("grid-tasks-%d", time.Now().UnixNano())
	var members []*cluster.Cluster
	for range n {
		config := cluster.Configure(name, test.NewTestProvider(agent), disthash.New(),
			remote.Configure("127.0.0.1", 0), cluster.WithKinds(grid.NewKind(cfg, opts...)))
		c := cluster.New(actor.NewActorSystem(actor.WithLoggerFactory(quiet)), config)
		c.StartMember()
		members = append(members, c)
	}
	t.Cleanup(func() { shutdown(members...) })
	for _, c := range members {
		require.Eventually(t, func() bool { return c.MemberList.Members().Len() == n }, 20*time.Second, 10*time.Millisecond)
	}
	return members
}

// toolCalls counts the tools/call requests of tool the task server in dir
// received.
func toolCalls(t *testing.T, dir, tool string) int {
	t.Helper()
	reqs, err := taskserver.Requests(dir)
	require.NoError(t, err)
	n := 0
	for _, r := range reqs {
		if r.Method == "tools/call" && r.Tool == tool {
			n++
		}
	}
	return n
}

// A task tool called from a facade on another member than the grain's:
// the grain's connection drives the task, the caller gets its result, and
// the facade's task deadline (plugin.WithTasks's timeout) crosses the
// wire.
func TestTaskThroughAGrain(t *testing.T) {
	cfg, dir := taskServer(t)
	members := startKindMembers(t, 2, cfg, grid.WithPluginOptions(plugin.WithTasks(plugin.TaskOptions{})))
	_, others := hostOf(t, members, "jobs")
	p := connect(t, others[0], "jobs", plugin.WithTasks(plugin.TaskOptions{}))

	assert.Equal(t, "done", callText(t, p, "work", map[string]any{"polls": 3}))
	reqs, err := taskserver.Requests(dir)
	require.NoError(t, err)
	polls := 0
	for _, r := range reqs {
		if r.Method == "tasks/get" {
			polls++
		}
	}
	assert.GreaterOrEqual(t, polls, 3, "the task was polled to its end")
	assert.Equal(t, 1, toolCalls(t, dir, "work"))

	// The task timeout is the facade's: it crosses the wire as the call's
	// task deadline (tasks.Call.Deadline), and the grain's connection ends the task at it.
	short := connect(t, others[0], "jobs", plugin.WithTasks(plugin.TaskOptions{Timeout: 300 * time.Millisecond}))
	_, err = short.CallTool(context.Background(), "work", map[string]any{"outcome": "never"}).Await(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "the task timeout of 300ms (WithTasks)")
}

// A grain handed over while its call's task runs (its member leaves
// gracefully): the call goes to the grain's next home with the task's id,
// the grain there takes the task's latest state from the task store the
// members share, and polls the task on; the tool is not called again, and
// the caller, on another member, gets the result.
func TestTaskOutlivesItsGrainsMember(t *testing.T) {
	cfg, dir := taskServer(t)
	store := plugin.DirTaskStore{Dir: t.TempDir()} // the members' shared store
	members := startKindMembers(t, 2, cfg, grid.WithDrainTimeout(100*time.Millisecond),
		grid.WithPluginOptions(plugin.WithTasks(plugin.TaskOptions{Store: store})))
	hosting, others := hostOf(t, members, "jobs")
	p := connect(t, others[0], "jobs", plugin.WithTasks(plugin.TaskOptions{}))

	until := filepath.Join(t.TempDir(), "until")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The server suggests polls 3 s apart, and the member leaves right
	// after the first poll's answer is kept: no poll is in flight when the
	// connection closes. (The task server gives a new requestState on
	// every answer and refuses an older one, so an answer lost with its
	// connection would lose the task.)
	f := p.CallTool(ctx, "work", map[string]any{"until": until, "interval": 3000})
	var first *string
	require.Eventually(t, func() bool {
		recs, err := store.List(ctx)
		if err != nil || len(recs) != 1 {
			return false
		}
		if first == nil {
			first = recs[0].Task.RequestState
			return false
		}
		return *recs[0].Task.RequestState != *first
	}, 20*time.Second, 5*time.Millisecond, "the task runs, and the store keeps its state after its first poll")

	shutdown(hosting) // the grain drains, its connection closes under the task
	require.NoError(t, os.WriteFile(until, nil, 0o600))
	res, err := f.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "done", plugin.RenderResult(res))
	assert.Equal(t, 1, toolCalls(t, dir, "work"), "the tool ran once")
	pid := others[0].Get("jobs", grid.KindName)
	require.NotNil(t, pid)
	assert.Equal(t, others[0].ActorSystem.Address(), pid.Address, "the grain moved")
	recs, err := store.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs, "the task's record is gone with the task")
}

// The member hosting a grain is killed while its call's task runs: after
// the loss grace, the call goes to the grain's next home with the task's
// id, and the grain there resumes the task from the task store the members
// share (a directory here, standing in for the cluster's store); the tool
// is not called again, and the caller gets the result.
func TestTaskOutlivesItsGrainsMemberKilled(t *testing.T) {
	dir := t.TempDir()
	h, err := taskserver.StartHTTP(dir)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Stop() })
	storeDir := t.TempDir()
	store := plugin.DirTaskStore{Dir: storeDir}
	// Eight servers on the one task server, so that a child hosts one.
	servers := map[string]any{}
	var names []string
	for i := range 8 {
		name := fmt.Sprintf("jobs%d", i)
		names = append(names, name)
		servers[name] = map[string]any{"type": "http", "url": h.URL}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))

	ports, err := gridmember.FreePorts(3)
	require.NoError(t, err)
	clusterName := fmt.Sprintf("grid-tasks-%d", time.Now().UnixNano())
	spec := func(i int, member string) gridmember.Spec {
		return gridmember.Spec{Cluster: clusterName, Port: ports[i], Ports: ports, Config: path, Name: member}
	}
	a, err := gridmember.Start(spec(0, "A"), plugin.WithTasks(plugin.TaskOptions{Store: store}))
	require.NoError(t, err)
	t.Cleanup(func() { a.Shutdown(true) })
	exe, err := os.Executable()
	require.NoError(t, err)
	var children []*gridmember.Process
	for i, member := range []string{"B", "C"} {
		p, err := gridmember.Spawn(exe, spec(i+1, member), gridmember.TaskStoreEnv+"="+storeDir)
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Leave() })
		children = append(children, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, gridmember.WaitMembers(ctx, a, 3))
	var server string
	var hosting *gridmember.Process
	for _, s := range names {
		pid := a.Get(s, grid.KindName)
		require.NotNil(t, pid)
		for _, p := range children {
			if p.Address == pid.Address {
				server, hosting = s, p
			}
		}
		if hosting != nil {
			break
		}
	}
	require.NotNil(t, hosting, "every grain is on member A")

	p := connect(t, a, server, plugin.WithTasks(plugin.TaskOptions{}))
	until := filepath.Join(t.TempDir(), "until")
	// Polls 3 s apart, the member killed right after the first poll's
	// answer is kept (see TestTaskOutlivesItsGrainsMember).
	f := p.CallTool(ctx, "work", map[string]any{"until": until, "interval": 3000})
	var first string
	require.Eventually(t, func() bool {
		recs, err := store.List(ctx)
		if err != nil || len(recs) != 1 || recs[0].Task.RequestState == nil {
			return false
		}
		if first == "" {
			first = *recs[0].Task.RequestState
			return false
		}
		return *recs[0].Task.RequestState != first
	}, 20*time.Second, 5*time.Millisecond, "the task runs, and the store keeps its state after its first poll")

	require.NoError(t, hosting.Kill())
	require.NoError(t, os.WriteFile(until, nil, 0o600))
	res, err := f.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "done", plugin.RenderResult(res))
	assert.Equal(t, 1, toolCalls(t, dir, "work"), "the tool ran once")
	pid := a.Get(server, grid.KindName)
	require.NotNil(t, pid)
	assert.NotEqual(t, hosting.Address, pid.Address, "the grain lives on a live member")
	recs, err := store.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs, "the task's record is gone with the task")
}

// A facade's hook call detaches (plugin.TaskOptions.DetachAfter) as a
// local plugin's does: the task's id crosses the wire (messages.CallTask),
// the hook returns a block naming it, and the result is taken later.
func TestDetachedCallThroughAGrain(t *testing.T) {
	cfg, dir := taskServer(t)
	members := startKindMembers(t, 2, cfg, grid.WithPluginOptions(plugin.WithTasks(plugin.TaskOptions{})))
	_, others := hostOf(t, members, "jobs")
	p := connect(t, others[0], "jobs", plugin.WithTasks(plugin.TaskOptions{DetachAfter: 20 * time.Millisecond}))

	until := filepath.Join(t.TempDir(), "until")
	args, err := json.Marshal(map[string]any{"until": until, "text": "late"})
	require.NoError(t, err)
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "work", Arguments: args}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	out, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok, "the call is replaced: %#v", chunk.Blocks[0])
	detached := p.DetachedTasks()
	require.Len(t, detached, 1)
	assert.Contains(t, out.Content, detached[0].TaskID, "the block names the task")
	assert.Contains(t, out.Content, "still running")

	require.NoError(t, os.WriteFile(until, nil, 0o600))
	res, done := p.DetachedResult(ctx, detached[0].TaskID)
	require.True(t, done)
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "work", Content: "late"}, res)
	assert.Equal(t, 1, toolCalls(t, dir, "work"))
}
