//go:build !race

// protoactor-go's remote.Start writes grpc's global logger (see
// grid/main_test.go), which the race detector reports when two remotes
// share a process: this test builds without -race.

package plugin_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// TestAttachedFacadeHasTheControlsAcrossRemote is
// TestAttachedFacadeHasTheControls with the facade and the connection on
// two members of a cluster in this process, joined by protoactor's remote
// over loopback gRPC, the connection's host being grid's grain: every
// message between them travels in its wire form, converted only at grid's
// edges.
func TestAttachedFacadeHasTheControlsAcrossRemote(t *testing.T) {
	cmd, args := testserver.ControlsCommand(t, testserver.ControlsOptions{})
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"controls": {Name: "controls", Type: mcpconfig.TypeStdio, Command: cmd, Args: args, Env: map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	}}
	agent := test.NewInMemAgent()
	name := fmt.Sprintf("controls-%d", time.Now().UnixNano())
	var members []*cluster.Cluster
	for _, hosts := range []bool{false, true} {
		var kinds []*cluster.Kind
		if hosts {
			kinds = append(kinds, grid.NewKind(cfg, grid.WithPluginOptions(plugin.WithToolRefresh())))
		}
		c := cluster.New(quietSystem(), cluster.Configure(name, test.NewTestProvider(agent), disthash.New(),
			remote.Configure("127.0.0.1", 0), cluster.WithKinds(kinds...)))
		c.StartMember()
		members = append(members, c)
	}
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, c := range members {
			wg.Go(func() { c.Shutdown(true) })
		}
		wg.Wait()
	})
	facadeMember, hostMember := members[0], members[1]
	require.Eventually(t, func() bool { return facadeMember.MemberList.Members().Len() == 2 }, 10*time.Second, 10*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	host, err := grid.Connect(ctx, hostMember, "controls")
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close() })
	target := facadeMember.Get("controls", grid.KindName)
	require.NotNil(t, target)
	require.NotEqual(t, facadeMember.ActorSystem.Address(), target.Address, "the grain is on the other member")
	attachedControls(t, facadeMember.ActorSystem, host, actor.NewPID(target.Address, target.Id))
}
