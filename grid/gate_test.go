//go:build !race && unix

// Built without -race: see main_test.go. The gate server's signals are
// named pipes (FIFOs), which unix systems have.

package grid

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gate server lets a test wait for events of a call on the server
// instead of for time: its one tool, "gate", says when the call has
// reached the handler, and returns only when the test releases it. Its
// signals are two FIFOs the test makes (see [Gate]). It runs in this test
// binary, re-executed with [GateArg] as its first argument: init turns
// such a process into the server before TestMain runs.

// GateArg is the first argument that puts a re-executed test binary into
// the gate server's mode.
const GateArg = "mcpconnector-grid-gate-server"

func init() {
	if len(os.Args) < 2 || os.Args[1] != GateArg {
		return
	}
	if err := gateServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "gate server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type gateIn struct {
	Started string `json:"started"`
	Release string `json:"release"`
}

// gateServer serves "gate {started, release}": it writes a line to the
// FIFO started (opening it waits for the test to read), then waits until
// the test opens and closes the FIFO release, and answers "released"; a
// call cancelled while it waits writes "gate: cancelled" to stderr.
func gateServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "gate", Description: "Say the call started, then wait to be released"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in gateIn) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(in.Started, []byte("started\n"), 0o600); err != nil {
				return nil, nil, err
			}
			released := make(chan error, 1)
			go func() { // blocks in open until the test opens the other end
				f, err := os.Open(in.Release)
				if err == nil {
					_, err = io.Copy(io.Discard, f)
					f.Close()
				}
				released <- err
			}()
			select {
			case err := <-released:
				if err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "gate: cancelled")
				return nil, nil, ctx.Err()
			}
		})
	return s
}

// GateCommand is the command and arguments of the gate server.
func GateCommand(t testing.TB) (string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, []string{GateArg}
}

// Gate is one gate call's pair of FIFOs.
type Gate struct{ started, release string }

// NewGate makes the FIFOs of a gate call in a directory of t's.
func NewGate(t testing.TB) *Gate {
	t.Helper()
	dir := t.TempDir()
	g := &Gate{started: filepath.Join(dir, "started"), release: filepath.Join(dir, "release")}
	for _, p := range []string{g.started, g.release} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// Args are the arguments of the gate call.
func (g *Gate) Args() map[string]any {
	return map[string]any{"started": g.started, "release": g.release}
}

// ArgsJSON are Args as JSON text.
func (g *Gate) ArgsJSON() []byte {
	return fmt.Appendf(nil, `{"started":%q,"release":%q}`, g.started, g.release)
}

// gateWait bounds a wait that must not run out: the server is a
// re-executed test binary on a busy machine.
const gateWait = time.Minute

// AwaitStarted returns once the call has reached the server's handler.
func (g *Gate) AwaitStarted(t testing.TB) {
	t.Helper()
	g.open(t, g.started, os.O_RDONLY, "the call never reached the server")
}

// Release lets the call answer.
func (g *Gate) Release(t testing.TB) {
	t.Helper()
	g.open(t, g.release, os.O_WRONLY, "the server never waited for the release")
}

// open opens the FIFO at path, which waits for the server to open its
// other end, reads what it says (for a reader), and closes it.
func (g *Gate) open(t testing.TB, path string, flag int, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		if err == nil {
			if flag == os.O_RDONLY {
				_, err = io.Copy(io.Discard, f)
			}
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(gateWait):
		t.Fatal(why)
	}
}
