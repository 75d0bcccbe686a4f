package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/examples/demoserver"
)

// The variables the bundled mcp.json expands; a user's file may use them too.
const (
	// selfVar is this executable, which demoserver.AddFlag turns into the stdio
	// add server.
	selfVar = "MCP_DEMO_SELF"
	// httpURLVar is the endpoint of the Streamable HTTP add server that
	// this process serves on loopback.
	httpURLVar = "MCP_DEMO_HTTP_URL"
	// notesURLVar is the endpoint of the Streamable HTTP notes server
	// (demoserver.NewNotesServer) that this process serves beside it, for
	// -resources.
	notesURLVar = "MCP_DEMO_NOTES_URL"
)

// startDemoServers makes the demo servers reachable before mcp.json is read:
// it serves add (and, for -resources, the notes server) over stateless
// Streamable HTTP on a loopback port and puts those URLs and this
// executable in the environment, for ${MCP_DEMO_HTTP_URL},
// ${MCP_DEMO_NOTES_URL} and ${MCP_DEMO_SELF}. The stdio server starts only when the toolbox runs
// it. stop shuts the HTTP server down; call it after closing the toolbox.
func startDemoServers() (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable to run it as the stdio MCP server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the HTTP MCP server: %w", err)
	}
	// MCP 2026-07-28 is stateless: every request stands alone, so no
	// session outlives a request and Shutdown has nothing to wait for.
	add, notes := demoserver.NewAddServer(), demoserver.NewNotesServer()
	handler := http.NewServeMux()
	handler.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return add },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	handler.Handle("/notes", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return notes },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "HTTP MCP server:", err)
		}
	}()
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
		<-served
	}
	base := "http://" + ln.Addr().String()
	for k, v := range map[string]string{selfVar: exe, httpURLVar: base + "/mcp", notesURLVar: base + "/notes"} {
		if err := os.Setenv(k, v); err != nil {
			stop()
			return nil, fmt.Errorf("set %s: %w", k, err)
		}
	}
	return stop, nil
}
