//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/fixture/gridmember"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// loopbackCluster is this process as member A and two members in child
// processes, on loopback, with the automanaged membership provider; every
// member serves servers s0..s7 of one mcp.json, each the go-sdk test server.
type loopbackCluster struct {
	a        *cluster.Cluster
	children []*gridmember.Process
	servers  []string
}

func startLoopbackCluster(t *testing.T) *loopbackCluster {
	t.Helper()
	cmd, args := testserver.Command(t, "sdk")
	servers := map[string]any{}
	lc := &loopbackCluster{}
	for i := range 8 {
		name := fmt.Sprintf("s%d", i)
		lc.servers = append(lc.servers, name)
		servers[name] = map[string]any{"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(path, b, 0o600))

	ports, err := gridmember.FreePorts(3)
	require.NoError(t, err)
	name := fmt.Sprintf("grid-loopback-%d", time.Now().UnixNano())
	spec := func(i int, member string) gridmember.Spec {
		return gridmember.Spec{Cluster: name, Port: ports[i], Ports: ports, Config: path, Name: member}
	}
	lc.a, err = gridmember.Start(spec(0, "A"))
	require.NoError(t, err)
	t.Cleanup(func() { lc.a.Shutdown(true) })
	exe, err := os.Executable()
	require.NoError(t, err)
	for i, member := range []string{"B", "C"} {
		p, err := gridmember.Spawn(exe, spec(i+1, member), testserver.FastExitEnv)
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Leave() })
		lc.children = append(lc.children, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, gridmember.WaitMembers(ctx, lc.a, 3))
	return lc
}

// remoteServer returns a server whose grain a child process hosts, and that
// child.
func (lc *loopbackCluster) remoteServer(t *testing.T) (string, *gridmember.Process) {
	t.Helper()
	for _, s := range lc.servers {
		pid := lc.a.Get(s, grid.KindName)
		require.NotNil(t, pid)
		for _, p := range lc.children {
			if p.Address == pid.Address {
				return s, p
			}
		}
	}
	t.Fatal("every grain is on member A")
	return "", nil
}

// The member hosting a grain is killed with a call in flight: the call
// fails with Internal within the loss bound and is not run again; the next
// call activates the grain on a live member, which connects anew.
func TestHostingMemberKilledMidCall(t *testing.T) {
	lc := startLoopbackCluster(t)
	server, hosting := lc.remoteServer(t)
	p := connect(t, lc.a, server)
	before := callText(t, p, "pid", nil)

	record := filepath.Join(t.TempDir(), "record")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inflight := p.CallTool(ctx, "record", map[string]any{"path": record, "tag": "inflight", "ms": 30000})
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(record)
		return strings.Contains(string(b), "inflight")
	}, 20*time.Second, 5*time.Millisecond, "the call reached the server")

	require.NoError(t, hosting.Kill())
	killedAt := time.Now()
	_, err := inflight.Await(ctx)
	took := time.Since(killedAt)
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	t.Logf("the call in flight failed %s after the SIGKILL: %v", took.Round(time.Millisecond), err)
	assert.Less(t, took, 10*time.Second, "bounded (documented: 5 s by default)")

	after := callText(t, p, "pid", nil)
	assert.NotEqual(t, before, after, "a new connection")
	pid := lc.a.Get(server, grid.KindName)
	require.NotNil(t, pid)
	assert.NotEqual(t, hosting.Address, pid.Address, "the grain lives on a live member")
	assert.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2}))

	b, err := os.ReadFile(record)
	require.NoError(t, err)
	assert.Equal(t, []string{"inflight"}, strings.Fields(string(b)), "the call in flight ran once")
}
