//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/fixture/gridmember"
)

// startEtcd runs a real etcd server (Debian's etcd-server) on free loopback
// ports for the test and returns its client URL. Where etcd is not
// installed the test is skipped, except in CI, which installs it.
func startEtcd(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("etcd is not installed; .ci/run installs Debian's etcd-server: %v", err)
		}
		t.Skipf("etcd is not installed (apt-get install etcd-server): %v", err)
	}
	ports, err := gridmember.FreePorts(2)
	require.NoError(t, err)
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	cmd := exec.Command(bin, "--name", "grid-test", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "grid-test="+peer, "--log-level", "error")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	require.Eventually(t, func() bool {
		res, err := http.Get(client + "/health")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, 20*time.Second, 20*time.Millisecond, "etcd is up")
	return client
}

// Three members find each other through a real etcd and serve one
// connection to all of them.
func TestMembersThroughEtcd(t *testing.T) {
	endpoint := startEtcd(t)
	cfg := calcConfig(t)
	name := fmt.Sprintf("grid-etcd-%d", time.Now().UnixNano())
	var members []*cluster.Cluster
	t.Cleanup(func() { shutdown(members...) })
	for range 3 {
		provider, err := etcd.NewWithConfig("/mcpconnector-test", clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
		require.NoError(t, err)
		config := cluster.Configure(name, provider, disthash.New(), remote.Configure("127.0.0.1", 0),
			cluster.WithKinds(grid.NewKind(cfg)))
		c := cluster.New(actor.NewActorSystem(actor.WithLoggerFactory(quiet)), config)
		c.StartMember()
		members = append(members, c)
	}
	for _, c := range members {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		require.NoError(t, gridmember.WaitMembers(ctx, c, 3))
		cancel()
	}
	var pids []string
	for _, c := range members {
		p := connect(t, c, "calc")
		assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
		pids = append(pids, callText(t, p, "pid", nil))
	}
	assert.Equal(t, pids[0], pids[1])
	assert.Equal(t, pids[0], pids[2])
}
