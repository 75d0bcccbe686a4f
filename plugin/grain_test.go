package plugin_test

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The deprecated GrainProps still connects once a cluster.ClusterInit
// names its server.
func TestDeprecatedGrainPropsLearnsItsIdentity(t *testing.T) {
	leakCheck(t)
	system := quietSystem()
	t.Cleanup(system.Shutdown)
	named := make(chan string, 1)
	pid := system.Root.Spawn(plugin.GrainProps(func(identity string) (transport.McpTransport, error) {
		named <- identity
		return testserver.Stdio(t), nil
	}))
	t.Cleanup(func() { _ = system.Root.StopFuture(pid).Wait() })
	system.Root.Send(pid, &cluster.ClusterInit{Identity: &cluster.ClusterIdentity{Identity: "adder", Kind: "mcp-connection"}})
	require.Equal(t, "adder", <-named)
	res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
	require.NoError(t, err)
	_, ok := res.(*messages.Ready)
	require.True(t, ok, "got %T", res)
}
