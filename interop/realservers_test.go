package interop

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Published servers that the client refuses, or that fail, as a user
// meets them: gopls's MCP server (a legacy one that answers server/discover
// with an error and stays up), the TypeScript SDK v1's Streamable HTTP
// server (HTTP 400 "Server not initialized"), and dbhub (the SDK v2's,
// which speaks 2026-07-28) started without a database or killed and
// started again.

// goplsVersion is the gopls that setup.sh installs (go install).
const goplsVersion = "v0.23.0"

// needs skips the test when what it runs cannot be had here, and fails it
// under CI=true, where it must be.
func needs(t *testing.T, what, why string) {
	t.Helper()
	if why == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("needs %s: %s", what, why)
	}
	t.Skipf("needs %s: %s", what, why)
}

var (
	goplsOnce          sync.Once
	goplsPath, goplsNo string
)

// pinnedGopls is gopls v0.23.0 in .cache/bin, installed by
// `setup.sh gopls` (go install) when missing.
func pinnedGopls() (string, string) {
	goplsOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "bash", "setup.sh", "gopls")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			goplsNo = fmt.Sprintf("setup.sh gopls failed (%v): %s", err, failureLine(stderr.String()))
			return
		}
		goplsPath = strings.TrimSpace(stdout.String())
		out, err := exec.Command(goplsPath, "version").Output()
		if err != nil || !strings.Contains(string(out), goplsVersion) {
			goplsPath, goplsNo = "", fmt.Sprintf("%s version: %q, %v", goplsPath, out, err)
		}
	})
	return goplsPath, goplsNo
}

// countingCommand writes a script that appends a line to a file each time
// it starts and then becomes command: how many times a server was started.
func countingCommand(t *testing.T, command ...string) (script string, starts func() int) {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	script = filepath.Join(dir, "server.sh")
	var quoted []string
	for _, c := range command {
		quoted = append(quoted, shellQuote(c))
	}
	body := fmt.Sprintf("#!/bin/sh\necho start >> %s\nexec %s \"$@\"\n", shellQuote(count), strings.Join(quoted, " "))
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	return script, func() int {
		b, err := os.ReadFile(count)
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return strings.Count(string(b), "start\n")
	}
}

// shellQuote quotes s for sh: in single quotes, each single quote of s
// ended, escaped with a backslash and begun again.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// refusalWait is how long a refused server is watched for a retry; today's
// first retry comes after 100 ms, a refused one should never come.
const refusalWait = 3 * time.Second

// gopls mcp answers server/discover with {"code":0,"message":"method
// \"server/discover\" is invalid during session initialization"} and stays
// up: a refusal, final, started once, its answer quoted.
func TestGoplsMCPIsRefusedOnceQuotingItsAnswer(t *testing.T) {
	gopls, why := pinnedGopls()
	needs(t, "gopls "+goplsVersion, why)
	script, starts := countingCommand(t, gopls, "mcp")

	p, err := plugin.Connect(context.Background(), transport.Stdio{Command: script, Dir: t.TempDir()}, plugin.WithRetryConnect())
	require.NoError(t, err)
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	err = p.WaitReady(ctx)
	require.Error(t, err)
	t.Log(err)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
	assert.Contains(t, err.Error(), "2026-07-28")
	assert.Contains(t, err.Error(), `is invalid during session initialization`, "gopls's answer, quoted")
	assert.NotContains(t, err.Error(), "exited", "gopls stays up")

	assert.Never(t, func() bool { return starts() > 1 || p.Status().Restarts > 0 }, refusalWait, 50*time.Millisecond,
		"a refusal is final: no restart")
	st := p.Status()
	assert.Equal(t, actors.Failed, st.State)
	assert.Zero(t, st.Restarts)
	assert.Equal(t, 1, starts(), "gopls started once")
	require.ErrorIs(t, st.LastError, plugin.ErrProtocolVersion)
}

// The TypeScript SDK v1's Streamable HTTP server (server-everything's
// streamableHttp mode, pinned in package.json) answers the discover POST
// with HTTP 400 "Bad Request: Server not initialized": refused once,
// final, the reason about the protocol.
func TestLegacyStreamableHTTPServerIsRefusedOnce(t *testing.T) {
	node, why := pinnedNode()
	needs(t, "Node.js", why)
	port := freeLoopbackPort(t)
	everything, err := filepath.Abs(filepath.Join(".cache", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	require.NoError(t, err)
	cmd := exec.Command(node, everything, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	srv := startListening(t, cmd, "MCP Streamable HTTP Server listening on port")
	defer srv.kill()

	// A proxy in front counts the POSTs that reach the server.
	target, err := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	require.NoError(t, err)
	var posts atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()

	p, err := plugin.Connect(context.Background(), transport.StreamableHTTP{URL: front.URL + "/mcp"}, plugin.WithRetryConnect())
	require.NoError(t, err)
	defer p.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	err = p.WaitReady(ctx)
	require.Error(t, err)
	t.Log(err)
	assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
	assert.Contains(t, err.Error(), "2026-07-28")
	assert.Contains(t, err.Error(), "Server not initialized", "the server's answer, quoted")

	assert.Never(t, func() bool { return posts.Load() > 1 || p.Status().Restarts > 0 }, refusalWait, 50*time.Millisecond,
		"a refusal is final: no retry")
	st := p.Status()
	assert.Equal(t, actors.Failed, st.State)
	assert.Equal(t, int32(1), posts.Load(), "one discover POST")
}

// dbhub started without a database prints "ERROR: Database connection
// configuration is required." and then a sample configuration, and
// exits: the error keeps the ERROR line.
func TestDBHubWithoutADatabaseKeepsItsErrorLine(t *testing.T) {
	node, dbhub, why := pinnedDBHub()
	needs(t, "dbhub", why)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.Stdio{Command: node, Args: []string{dbhub}, Dir: t.TempDir()})
	require.Nil(t, p)
	require.Error(t, err)
	t.Log(err)
	assert.Contains(t, err.Error(), "ERROR: Database connection configuration is required.")
}

// dbhub over HTTP, killed and started again on the same port: calls fail
// while it is away and succeed once it is back, and the status then
// carries no error of the outage.
func TestDBHubOverHTTPKilledAndStartedAgain(t *testing.T) {
	node, dbhub, why := pinnedDBHub()
	needs(t, "dbhub", why)
	port := freeLoopbackPort(t)
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "test.db")
	start := func() *listening {
		return startListening(t, exec.Command(node, dbhub, "--transport", "http", "--host", "127.0.0.1",
			"--port", strconv.Itoa(port), "--dsn", dsn), "HTTP server listening on ")
	}
	srv := start()
	defer func() { srv.kill() }()

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)})
	require.NoError(t, err)
	defer p.Close()
	names := map[string]bool{}
	for _, tool := range p.Tools() {
		names[tool.Name] = true
	}
	require.True(t, names["execute_sql"], "dbhub's tools: %v", names)
	call := func() error {
		res, err := p.CallTool(ctx, "execute_sql", map[string]any{"sql": "SELECT 41 + 1 AS answer"}).Await(ctx)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %s", plugin.RenderResult(res))
		}
		if err == nil && !strings.Contains(plugin.RenderResult(res), "42") {
			err = fmt.Errorf("no 42 in %s", plugin.RenderResult(res))
		}
		return err
	}
	require.NoError(t, call())

	srv.kill()
	require.Error(t, call(), "dbhub is gone")
	srv = start()
	require.EventuallyWithT(t, func(c *assert.CollectT) { assert.NoError(c, call()) }, 60*time.Second, 50*time.Millisecond,
		"a call succeeds once dbhub is back")
	st := p.Status()
	assert.Equal(t, actors.Ready, st.State)
	assert.NoError(t, st.LastError, "a recovered status carries no error of the past")
}

var (
	dbhubOnce sync.Once
	dbhubPath string
)

// pinnedDBHub is the pinned node and dbhub's entry point in .cache.
func pinnedDBHub() (node, dbhub, why string) {
	if node, why = pinnedNode(); why != "" {
		return "", "", why
	}
	dbhubOnce.Do(func() {
		p, err := filepath.Abs(filepath.Join(".cache", "node_modules", "@bytebase", "dbhub", "dist", "index.js"))
		if err == nil {
			_, err = os.Stat(p)
		}
		if err == nil {
			dbhubPath = p
		}
	})
	if dbhubPath == "" {
		return "", "", "@bytebase/dbhub is not in interop/.cache (setup.sh installs it)"
	}
	return node, dbhubPath, ""
}

// freeLoopbackPort is a loopback port nothing listens on now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

// listening is a server process started by startListening.
type listening struct {
	cmd    *exec.Cmd
	done   chan struct{}
	killed bool
}

// kill kills it (SIGKILL) and reaps it; again is a no-op.
func (l *listening) kill() {
	if l.killed {
		return
	}
	l.killed = true
	_ = l.cmd.Process.Signal(syscall.SIGKILL)
	<-l.done
}

// startListening starts cmd and waits for a line of its output (stderr
// or stdout) that starts with ready.
func startListening(t *testing.T, cmd *exec.Cmd, ready string) *listening {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start())
	require.NoError(t, w.Close())
	l := &listening{cmd: cmd, done: make(chan struct{})}
	up := make(chan struct{})
	var out bytes.Buffer
	var mu sync.Mutex
	go func() {
		buf := make([]byte, 4096)
		said := false
		for {
			n, err := r.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			if !said && strings.Contains(out.String(), ready) {
				said = true
				close(up)
			}
			mu.Unlock()
			if err != nil {
				break
			}
		}
		_ = r.Close()
		_ = cmd.Wait()
		close(l.done)
	}()
	select {
	case <-up:
		return l
	case <-l.done:
	case <-time.After(60 * time.Second):
		l.kill()
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("%s did not say %q: %s", cmd.Path, ready, out.String())
	return nil
}
