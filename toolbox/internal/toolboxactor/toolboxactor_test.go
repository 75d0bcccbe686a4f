package toolboxactor_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/toolbox/internal/toolboxactor"
)

// The toolbox actor spawns servers as named children on request, refuses a
// name twice, and stopping it stops every server.
func TestActorParentsItsServers(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	tb := system.Root.Spawn(toolboxactor.Props(nil))
	spawn := func(name string) *toolboxactor.Spawned {
		props := actors.NewSupervisorProps(actors.SupervisorConfig{
			Connection: actors.ConnectionConfig{Transport: testserver.Stdio(t)},
		})
		res, err := system.Root.RequestFuture(tb, &toolboxactor.Spawn{Name: name, Props: props}, 10*time.Second).Result()
		require.NoError(t, err)
		return res.(*toolboxactor.Spawned)
	}
	a, b := spawn("alpha"), spawn("beta")
	require.NoError(t, a.Err)
	require.NoError(t, b.Err)
	assert.Equal(t, tb.Id+"/alpha", a.PID.Id, "a child of the toolbox, named by server")
	assert.Error(t, spawn("alpha").Err, "a name is spawned once")

	var pids []int
	for _, s := range []*toolboxactor.Spawned{a, b} {
		res, err := system.Root.RequestFuture(s.PID, &messages.CallTool{ID: 1, Name: "pid"}, 30*time.Second).Result()
		require.NoError(t, err)
		reply := res.(*messages.CallToolReply)
		require.Nil(t, reply.Failure)
		pid, err := strconv.Atoi(reply.Result.Content[0].(*mcp.TextContent).Text)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.NoError(t, system.Root.StopFuture(tb).Wait())
	for _, pid := range pids {
		assert.True(t, proc.Gone(pid), "server %d ended with the toolbox", pid)
	}
}

func TestActorRefusesAnEmptyRequest(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	tb := system.Root.Spawn(toolboxactor.Props(nil))
	defer func() { require.NoError(t, system.Root.StopFuture(tb).Wait()) }()
	res, err := system.Root.RequestFuture(tb, &toolboxactor.Spawn{Name: "x"}, 10*time.Second).Result()
	require.NoError(t, err)
	assert.Error(t, res.(*toolboxactor.Spawned).Err)
}

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m)
}
