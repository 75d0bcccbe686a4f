//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
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
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// calcConfig is an mcp.json with one stdio server, "calc", the go-sdk test
// server.
func calcConfig(t *testing.T) *mcpconfig.Config {
	t.Helper()
	cmd, args := testserver.Command(t, "sdk")
	return &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"calc": {Name: "calc", Type: mcpconfig.TypeStdio, Command: cmd, Args: args, Env: map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	}}
}

// startMembers starts n cluster members in this process, each with its own
// actor system, sharing an in-memory membership, and registers the grid
// kind on each. Cleanup shuts every member down gracefully.
func startMembers(t *testing.T, n int, cfg *mcpconfig.Config, opts ...plugin.Option) []*cluster.Cluster {
	t.Helper()
	agent := test.NewInMemAgent()
	name := fmt.Sprintf("grid-test-%d", time.Now().UnixNano())
	var members []*cluster.Cluster
	for range n {
		config := cluster.Configure(name, test.NewTestProvider(agent), disthash.New(),
			remote.Configure("127.0.0.1", 0), cluster.WithKinds(grid.NewKind(cfg, grid.WithPluginOptions(opts...))))
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

// quiet keeps protoactor's logs out of the test output.
func quiet(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }

// left records the members already shut down: protoactor panics on a
// second Shutdown.
var left sync.Map

// shutdown stops members gracefully, in parallel: their grains stop, and
// with them the servers' child processes.
func shutdown(members ...*cluster.Cluster) {
	var wg sync.WaitGroup
	for _, c := range members {
		if _, done := left.LoadOrStore(c, true); !done {
			wg.Go(func() { c.Shutdown(true) })
		}
	}
	wg.Wait()
}

// hostOf returns the member whose address the grain of server has.
func hostOf(t *testing.T, members []*cluster.Cluster, server string) (hosting *cluster.Cluster, others []*cluster.Cluster) {
	t.Helper()
	pid := members[0].Get(server, grid.KindName)
	require.NotNil(t, pid)
	for _, c := range members {
		if c.ActorSystem.Address() == pid.Address {
			hosting = c
		} else {
			others = append(others, c)
		}
	}
	require.NotNil(t, hosting, "grain at %s", pid.Address)
	return hosting, others
}

// One connection, on one member, called from all three: the same server
// process answers every member.
func TestEveryMemberCallsTheOneConnection(t *testing.T) {
	members := startMembers(t, 3, calcConfig(t))
	var pids []string
	for _, c := range members {
		p := connect(t, c, "calc")
		assert.Len(t, p.Tools(), len(testserver.ToolNames))
		assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
		pids = append(pids, callText(t, p, "pid", nil))

		chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}}}
		require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
		assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "add", Content: "3"}, chunk.Blocks[0])
	}
	assert.Equal(t, pids[0], pids[1])
	assert.Equal(t, pids[0], pids[2])
}

// Every content kind, isError, structuredContent and the tools themselves
// come through the wire as a local plugin sees them.
func TestPayloadsRoundTripLosslessly(t *testing.T) {
	cfg := calcConfig(t)
	members := startMembers(t, 2, cfg)
	_, others := hostOf(t, members, "calc")
	remote := connect(t, others[0], "calc")
	local, err := plugin.Connect(context.Background(), testserver.Stdio(t))
	require.NoError(t, err)
	defer local.Close()

	want, err := json.Marshal(local.Tools())
	require.NoError(t, err)
	got, err := json.Marshal(remote.Tools())
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "tools, with schemas and annotations")

	ctx := context.Background()
	for _, c := range []struct {
		tool string
		args any
	}{
		{"add", map[string]any{"a": 1.5, "b": 2}},
		{"echo", map[string]any{"nested": map[string]any{"list": []any{1, "two", nil, true}}, "ünïcode": "✓"}},
		{"fail", nil},
		{"image", nil}, {"audio", nil}, {"resource", nil}, {"link", nil}, {"mixed", nil},
		{"add_structured", map[string]any{"a": 20, "b": 22}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			lres, err := local.CallTool(ctx, c.tool, c.args).Await(ctx)
			require.NoError(t, err)
			rres, err := remote.CallTool(ctx, c.tool, c.args).Await(ctx)
			require.NoError(t, err)
			lj, err := json.Marshal(lres)
			require.NoError(t, err)
			rj, err := json.Marshal(rres)
			require.NoError(t, err)
			assert.JSONEq(t, string(lj), string(rj))
			assert.Equal(t, plugin.RenderResult(lres), plugin.RenderResult(rres))
		})
	}

	_, err = remote.CallTool(ctx, "add", json.RawMessage(`[1]`)).Await(ctx)
	assert.ErrorIs(t, err, plugin.ErrValidation)
	_, err = remote.CallTool(ctx, "no_such_tool", nil).Await(ctx)
	assert.ErrorIs(t, err, plugin.ErrInternal)
}

// A member that leaves gracefully hands its grain over and fails no call:
// calls that run meanwhile succeed (calls that reach the stopping grain are
// bounced and sent to its new home, and none is sent to the leaving member
// once it is reported gone), and the grain lives on another member
// afterwards.
func TestGracefulLeaveLosesNoCall(t *testing.T) {
	members := startMembers(t, 3, calcConfig(t))
	hosting, others := hostOf(t, members, "calc")
	p := connect(t, others[0], "calc")
	before := callText(t, p, "pid", nil)

	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	answered := make(chan struct{}, 1000)
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := p.CallTool(ctx, "add", map[string]any{"a": w, "b": i}).Await(ctx)
				cancel()
				if err == nil && plugin.RenderResult(res) != strconv.Itoa(w+i) {
					err = fmt.Errorf("add(%d, %d) = %q", w, i, plugin.RenderResult(res))
				}
				if err != nil {
					errs <- err
				}
				select {
				case answered <- struct{}{}:
				default:
				}
			}
		})
	}
	// Calls run before the member leaves, while it leaves, and after it
	// has left: a count of calls answered, not a time, says when.
	awaitAnswers := func(n int) {
		t.Helper()
		for range n {
			select {
			case <-answered:
			case <-time.After(time.Minute):
				t.Fatalf("fewer than %d calls were answered", n)
			}
		}
	}
	awaitAnswers(20)
	shutdown(hosting)
	for len(answered) > 0 { // answered before the member had left
		<-answered
	}
	awaitAnswers(20)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	after := callText(t, p, "pid", nil)
	assert.NotEqual(t, before, after, "a new connection on a new member")
	newHost, _ := hostOf(t, others, "calc")
	assert.NotEqual(t, hosting.ActorSystem.Address(), newHost.ActorSystem.Address())
}

// A toolbox whose servers are grains: names and routing as for a local one,
// and every call reaches the grain's one server process, which a facade on
// another member calls too (a toolbox that started the server itself
// would answer from a process of its own).
func TestOpenToolboxReachesItsServersAsGrains(t *testing.T) {
	cfg := calcConfig(t)
	members := startMembers(t, 2, cfg)
	tb, err := grid.OpenToolbox(context.Background(), members[1], cfg)
	require.NoError(t, err)
	defer tb.Close()
	assert.True(t, tb.HasTool("calc__add"))
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "calc__add", Arguments: json.RawMessage(`{"a":2,"b":3}`)}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "calc__add", Content: "5"}, chunk.Blocks[0])

	res, err := tb.CallTool(context.Background(), "calc__pid", nil).Await(context.Background())
	require.NoError(t, err)
	assert.Equal(t, callText(t, connect(t, members[0], "calc"), "pid", nil), plugin.RenderResult(res))
}

func TestUnknownServerFailsConnect(t *testing.T) {
	members := startMembers(t, 1, calcConfig(t))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := grid.Connect(ctx, members[0], "nope")
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), `no server "nope"`)
}
