//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
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
	// TaskDeadline, and the grain's connection ends the task at it.
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
