//go:build !race

// Built without -race: see doc.go.

package gridetcd_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
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
	t.Cleanup(func() {
		shutdown(members...)
		// protoactor's etcd provider ends its keep-alive loop only after
		// the retry pause it may be in as the member shuts down (a
		// second, longer than the leak check's own retries): the loop is
		// waited for, so that the check still sees it end.
		assert.Eventually(t, func() bool { return !running("etcd.(*Provider).startKeepAlive") }, 20*time.Second, 20*time.Millisecond,
			"protoactor's etcd keep-alive loop ends after Shutdown")
	})
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

// calcConfig is an mcp.json with one stdio server, "calc", the go-sdk test
// server (this test binary, re-executed).
func calcConfig(t *testing.T) *mcpconfig.Config {
	t.Helper()
	cmd, args := testserver.Command(t, "sdk")
	return &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"calc": {Name: "calc", Type: mcpconfig.TypeStdio, Command: cmd, Args: args},
	}}
}

// running reports whether a goroutine has fn on its stack.
func running(fn string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Contains(string(buf[:n]), fn)
		}
		buf = make([]byte, 2*len(buf))
	}
}

// quiet keeps protoactor's logs out of the test output.
func quiet(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }

// shutdown stops members gracefully, in parallel: their grains stop, and
// with them the servers' child processes.
func shutdown(members ...*cluster.Cluster) {
	var wg sync.WaitGroup
	for _, c := range members {
		wg.Go(func() { c.Shutdown(true) })
	}
	wg.Wait()
}

// connect is a plugin for server through the grid, from member c.
func connect(t *testing.T, c *cluster.Cluster, server string) *plugin.McpPlugin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := grid.Connect(ctx, c, server)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// callText calls tool and returns its result as the model reads it.
func callText(t *testing.T, p *plugin.McpPlugin, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := p.CallTool(ctx, tool, args).Await(ctx)
	require.NoError(t, err, tool)
	return plugin.RenderResult(res)
}
