package testserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// childArg is the first argument that puts a re-executed test binary into
// server mode. The stdio child gets a minimal environment, so the mode
// travels as arguments.
const childArg = "mcpconnector-test-server"

// RunIfChild serves MCP on stdio and exits when this process was started by
// [Stdio] or [Raw]; otherwise it returns at once. Call it first in TestMain.
func RunIfChild() {
	if len(os.Args) < 3 || os.Args[1] != childArg {
		return
	}
	mode, rest := os.Args[2], os.Args[3:]
	var err error
	if mode == "sdk" {
		err = NewServer().Run(context.Background(), &mcp.StdioTransport{})
	} else {
		err = serveRaw(mode, rest, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Stdio returns a transport that runs this test binary as the go-sdk test
// server ([NewServer]) over stdio.
func Stdio(t testing.TB) transport.Stdio {
	t.Helper()
	return withFastExit(transport.NewStdio(self(t), childArg, "sdk"))
}

// withFastExit spares a race-enabled child the race runtime's one-second
// sleep at exit.
func withFastExit(s transport.Stdio) transport.Stdio {
	s.Env = append(s.Env, FastExitEnv)
	return s
}

// Raw returns a transport that runs this test binary as the hand-written
// JSON-RPC server of the given mode (see [serveRaw]) with extra arguments.
func Raw(t testing.TB, mode string, args ...string) transport.Stdio {
	t.Helper()
	return withFastExit(transport.NewStdio(self(t), append([]string{childArg, mode}, args...)...))
}

// Command returns the command and arguments that run this test binary as
// the server of mode ("sdk" for [NewServer], else a raw mode of
// [serveRaw]), for an mcp.json entry. Give the entry the environment
// GORACE=atexit_sleep_ms=0 ([FastExitEnv]) to spare a race-enabled child
// a second at exit.
func Command(t testing.TB, mode string, args ...string) (string, []string) {
	t.Helper()
	return self(t), append([]string{childArg, mode}, args...)
}

// FastExitEnv is the variable that spares a race-enabled child the race
// runtime's one-second sleep at exit.
const FastExitEnv = "GORACE=atexit_sleep_ms=0"

func self(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("testserver: %v", err)
	}
	return exe
}

// HTTP serves [NewServer] over loopback Streamable HTTP, stateless as MCP
// 2026-07-28 requires, and returns the endpoint URL. The server stops when
// the test ends.
func HTTP(t testing.TB) string {
	t.Helper()
	srv := NewHTTPServer(NewServer())
	t.Cleanup(srv.Close)
	return srv.URL
}

// NewHTTPServer starts s behind go-sdk's stateless Streamable HTTP handler on
// a loopback port. The caller closes it.
func NewHTTPServer(s *mcp.Server) *httptest.Server {
	return httptest.NewServer(NewHTTPHandler(s))
}

// NewHTTPHandler serves s with go-sdk's stateless Streamable HTTP handler.
func NewHTTPHandler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true})
}

// Received reads what a raw server logged to path: one line per message,
// "method protocolVersion clientName caps".
func Received(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("testserver: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
