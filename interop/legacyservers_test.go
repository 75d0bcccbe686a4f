package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// The pinned servers that speak only MCP revisions older than 2026-07-28,
// as users run them: the reference servers everything, filesystem and
// memory (the TypeScript SDK v1, over stdio), the TypeScript SDK v1 over
// Streamable HTTP with sessions and over HTTP+SSE (ts/legacy.mjs), and the
// "everything" examples of go-sdk v1.6.1 and mcp-go v0.58.0, the last
// releases of each without server/discover, and gopls v0.23.0's "gopls
// mcp" on a one-file module. setup.sh installs the npm ones, "setup.sh
// legacy-go" the Go examples and "setup.sh gopls" gopls.

// legacyKind is how a legacy server is reached.
type legacyKind string

const (
	legacyStdio      legacyKind = "stdio"
	legacyStreamable legacyKind = "Streamable HTTP"
	legacySSE        legacyKind = "HTTP+SSE"
)

// legacyServer is one pinned legacy server and one cheap call it answers.
type legacyServer struct {
	// Name is the row's name; Version what is pinned.
	Name, Version string
	Kind          legacyKind
	// Tool, with Args, is a cheap call with valid arguments whose text
	// result holds Want ("$DIR" in it stands for the run's directory).
	Tool string
	Args map[string]any
	Want string
	// CloseSays is the error go-sdk's ClientSession.Close returns for it
	// ("" for none): server-everything outlives its stdin once it has
	// asked the client for roots (go-sdk's client declares roots), so
	// go-sdk stops it with SIGTERM after its 5 s grace.
	CloseSays string
	// line is the command line that serves it, run in dir: for stdio it
	// speaks MCP on its stdio; for HTTP it prints "listening PORT" once it
	// listens on 127.0.0.1. why says why it cannot be had here.
	line func(dir string) (argv, env []string, why string)
}

// legacyServers is every pinned legacy server, in the order of the docs'
// table.
func legacyServers() []legacyServer {
	return []legacyServer{
		{
			Name: "@modelcontextprotocol/server-everything", Version: "2026.8.31", Kind: legacyStdio,
			Tool: "echo", Args: map[string]any{"message": "hi"}, Want: "Echo: hi", CloseSays: "signal: terminated",
			line: nodePackage("server-everything", "stdio"),
		},
		{
			Name: "@modelcontextprotocol/server-filesystem", Version: "2026.8.31", Kind: legacyStdio,
			Tool: "list_allowed_directories", Args: map[string]any{}, Want: "$DIR",
			line: func(dir string) ([]string, []string, string) { return nodePackage("server-filesystem", dir)(dir) },
		},
		{
			Name: "@modelcontextprotocol/server-memory", Version: "2026.8.31", Kind: legacyStdio,
			Tool: "read_graph", Args: map[string]any{}, Want: `"entities"`,
			line: func(dir string) ([]string, []string, string) {
				argv, _, why := nodePackage("server-memory")(dir)
				return argv, []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}, why
			},
		},
		{
			Name: "@modelcontextprotocol/sdk (ts/legacy.mjs)", Version: "1.32.2", Kind: legacyStreamable,
			Tool: "echo", Args: map[string]any{"message": "hi"}, Want: "Echo: hi",
			line: legacyScript("http"),
		},
		{
			Name: "@modelcontextprotocol/sdk (ts/legacy.mjs)", Version: "1.32.2", Kind: legacySSE,
			Tool: "echo", Args: map[string]any{"message": "hi"}, Want: "Echo: hi",
			line: legacyScript("sse"),
		},
		{
			Name: "go-sdk examples/server/everything", Version: "v1.6.1", Kind: legacyStdio,
			Tool: "greet", Args: map[string]any{"name": "you"}, Want: "Hi you",
			line: legacyGo(0),
		},
		{
			Name: "mcp-go examples/everything", Version: "v0.58.0", Kind: legacyStdio,
			Tool: "echo", Args: map[string]any{"message": "hi"}, Want: "Echo: hi",
			line: legacyGo(1),
		},
		{
			Name: "gopls mcp", Version: goplsVersion, Kind: legacyStdio,
			Tool: "go_workspace", Args: map[string]any{}, Want: "$DIR/go.mod (module example.com/m)",
			line: func(dir string) ([]string, []string, string) {
				gopls, why := pinnedGopls()
				if why != "" {
					return nil, nil, why
				}
				for name, text := range map[string]string{
					"go.mod": "module example.com/m\n\ngo 1.26\n",
					"m.go":   "package m\n\n// Hello says hello.\nfunc Hello() string { return \"hello\" }\n",
				} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						return nil, nil, err.Error()
					}
				}
				return []string{gopls, "mcp"}, nil, ""
			},
		},
	}
}

// Row is the server's row name: its name, version and transport.
func (s legacyServer) Row() string { return s.Name + " " + s.Version + " " + string(s.Kind) }

// nodePackage runs a pinned npm package's dist/index.js with args.
func nodePackage(pkg string, args ...string) func(dir string) ([]string, []string, string) {
	return func(string) ([]string, []string, string) {
		node, why := pinnedNode()
		if why != "" {
			return nil, nil, why
		}
		index, err := filepath.Abs(filepath.Join(".cache", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
		if err == nil {
			_, err = os.Stat(index)
		}
		if err != nil {
			return nil, nil, fmt.Sprintf("@modelcontextprotocol/%s is not in interop/.cache (setup.sh installs it): %v", pkg, err)
		}
		return append([]string{node, index}, args...), nil, ""
	}
}

var (
	legacyScriptOnce sync.Once
	legacyScriptPath string
	legacyScriptNo   string
)

// legacyScript runs ts/legacy.mjs in mode ("http" or "sse") on any free
// port; the script is copied into the cache so that node resolves the SDK
// v1 from the cache's node_modules.
func legacyScript(mode string) func(dir string) ([]string, []string, string) {
	return func(string) ([]string, []string, string) {
		node, why := pinnedNode()
		if why != "" {
			return nil, nil, why
		}
		legacyScriptOnce.Do(func() {
			src, err := os.ReadFile(filepath.Join("ts", "legacy.mjs"))
			if err == nil {
				legacyScriptPath, err = filepath.Abs(filepath.Join(".cache", "legacy.mjs"))
			}
			if err == nil {
				err = os.WriteFile(legacyScriptPath, src, 0o644)
			}
			if err != nil {
				legacyScriptNo = "copying ts/legacy.mjs into .cache: " + err.Error()
			}
		})
		if legacyScriptNo != "" {
			return nil, nil, legacyScriptNo
		}
		return []string{node, legacyScriptPath, mode, "0"}, nil, ""
	}
}

var (
	legacyGoOnce  sync.Once
	legacyGoPaths []string
	legacyGoNo    string
)

// legacyGo runs the i-th Go server of "setup.sh legacy-go" (0: go-sdk
// v1.6.1, 1: mcp-go v0.58.0), installing both when missing.
func legacyGo(i int) func(dir string) ([]string, []string, string) {
	return func(string) ([]string, []string, string) {
		legacyGoOnce.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, "bash", "setup.sh", "legacy-go")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				legacyGoNo = fmt.Sprintf("setup.sh legacy-go failed (%v): %s", err, failureLine(stderr.String()))
				return
			}
			legacyGoPaths = strings.Fields(stdout.String())
			if len(legacyGoPaths) != 2 {
				legacyGoNo = fmt.Sprintf("setup.sh legacy-go printed %q, not two paths", stdout.String())
			}
		})
		if legacyGoNo != "" {
			return nil, nil, legacyGoNo
		}
		return []string{legacyGoPaths[i]}, nil, ""
	}
}

// legacyRun is a legacy server started for one test: how the plugin and
// go-sdk's own client reach it. Everything it started is stopped, and
// checked gone, when the test ends.
type legacyRun struct {
	Server legacyServer
	// Dir is the run's directory: the server's working directory (and
	// server-filesystem's one allowed directory), symbolic links resolved.
	Dir string
	// Want is Server.Want with "$DIR" replaced by Dir.
	Want string
	// Transport is how plugin.Connect reaches it: transport.Stdio, which
	// starts a child of its own each time; over HTTP,
	// transport.StreamableHTTP at URL (for the HTTP+SSE server that is its
	// /sse endpoint, which answers a POST with 404, as such servers do).
	Transport transport.McpTransport
	// URL is the HTTP server's endpoint ("" over stdio): /mcp, or /sse.
	URL string
	// WireTransport is Transport, except over stdio, where the command runs
	// behind "sh -c 'tee -a WIRE | ...'" (in the child's process group,
	// which transport.Stdio signals as a whole), so that what the client
	// wrote is in the file WIRE, read by Received.
	WireTransport transport.McpTransport
	wire          string

	t        *testing.T
	received map[string]int // over HTTP, by method; under mu
	argv     []string
	env      []string
	mu       sync.Mutex
	cmds     []*exec.Cmd
	alive    chan struct{} // the HTTP server's process, closed when it has exited
}

// startLegacy starts s for t (over HTTP its node process, on a free
// loopback port, waiting for its "listening" line; over stdio nothing yet).
// When s cannot be had here the test skips, or fails with CI=true.
func startLegacy(t *testing.T, s legacyServer) *legacyRun {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	argv, env, why := s.line(dir)
	needs(t, s.Row(), why)
	r := &legacyRun{Server: s, Dir: dir, Want: strings.ReplaceAll(s.Want, "$DIR", dir), t: t, argv: argv, env: env,
		received: map[string]int{}}
	t.Cleanup(r.Stop)
	if s.Kind == legacyStdio {
		r.Transport = transport.Stdio{Command: argv[0], Args: argv[1:], Env: env, Dir: dir, Label: s.Row()}
		r.wire = filepath.Join(t.TempDir(), "wire.jsonl")
		r.WireTransport = transport.Stdio{Command: "/bin/sh", Args: append([]string{"-c", `tee -a "$0" | "$@"`, r.wire}, argv...),
			Env: env, Dir: dir, Label: s.Row()}
		return r
	}
	port := r.startHTTP()
	base := "http://127.0.0.1:" + port
	if s.Kind == legacySSE {
		r.URL = base + "/sse"
	} else {
		r.URL = base + "/mcp"
	}
	r.Transport = transport.StreamableHTTP{URL: r.URL, Label: s.Row()}
	r.WireTransport = r.Transport
	return r
}

// ClientTransport is a fresh go-sdk transport to the server, for
// mcp.Client.Connect: over stdio an mcp.CommandTransport whose child this
// run stops and reaps if the session did not; over HTTP an
// mcp.StreamableClientTransport, or an mcp.SSEClientTransport.
func (r *legacyRun) ClientTransport() mcp.Transport {
	switch r.Server.Kind {
	case legacyStreamable:
		return &mcp.StreamableClientTransport{Endpoint: r.URL}
	case legacySSE:
		return &mcp.SSEClientTransport{Endpoint: r.URL}
	}
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Env = append(os.Environ(), r.env...)
	cmd.Dir = r.Dir
	cmd.Stderr = io.Discard
	r.mu.Lock()
	r.cmds = append(r.cmds, cmd)
	r.mu.Unlock()
	return &mcp.CommandTransport{Command: cmd}
}

// Received is how many requests or notifications of method the server
// has received: over HTTP those its "received METHOD" lines say, all of
// them once Stop has returned; over stdio those on the wire file (what
// clients wrote through WireTransport, each request there before its
// answer came back).
func (r *legacyRun) Received(method string) int {
	if r.Server.Kind != legacyStdio {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.received[method]
	}
	b, err := os.ReadFile(r.wire)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		r.t.Errorf("reading the wire: %v", err)
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == method {
			n++
		}
	}
	return n
}

// startHTTP starts the HTTP server's process and waits for the line in
// which it says it listens; it returns the port.
func (r *legacyRun) startHTTP() string {
	t := r.t
	t.Helper()
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Env = append(os.Environ(), r.env...)
	cmd.Dir = r.Dir
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", r.Server.Row(), err)
	}
	r.mu.Lock()
	r.cmds = append(r.cmds, cmd)
	r.mu.Unlock()
	first := make(chan string, 1)
	r.alive = make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			switch {
			case !said:
				said = true
				first <- sc.Text()
			default:
				if method, ok := strings.CutPrefix(sc.Text(), "received "); ok {
					r.mu.Lock()
					r.received[method]++
					r.mu.Unlock()
				}
			}
		}
		if !said {
			first <- ""
		}
		_ = cmd.Wait()
		close(r.alive)
	}()
	select {
	case line := <-first:
		if port, ok := strings.CutPrefix(strings.TrimSpace(line), "listening "); ok {
			return port
		}
		_ = cmd.Process.Kill()
		<-r.alive
		t.Fatalf("%s did not start: %q, stderr: %s", r.Server.Row(), line, stderr.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-r.alive
		t.Fatalf("%s did not listen within 60s; stderr: %s", r.Server.Row(), stderr.String())
	}
	return ""
}

// Stop kills the HTTP server and reaps it (its output read to the end, so
// that Received is final), and checks that every stdio child go-sdk
// started has exited (killing and reaping one that has not). The test's
// end calls it; again is a no-op.
func (r *legacyRun) Stop() {
	// Not under mu while waiting: the HTTP server's reader takes mu for
	// each "received" line it counts until the output ends.
	r.mu.Lock()
	cmds := r.cmds
	r.cmds = nil
	r.mu.Unlock()
	for _, cmd := range cmds {
		if r.Server.Kind != legacyStdio {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-r.alive
			continue
		}
		if cmd.Process != nil && cmd.ProcessState == nil {
			r.t.Errorf("%s: the child %d outlived its session", r.Server.Row(), cmd.Process.Pid)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
