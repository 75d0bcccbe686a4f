package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio tests run this test binary again as their server, in one of the
// modes below, chosen by the arguments after childArg.
const childArg = "transport-test-child"

// runChildIfAsked serves the mode it was started for and exits; in the
// test process itself it returns at once.
func runChildIfAsked() {
	if len(os.Args) < 3 || os.Args[1] != childArg {
		return
	}
	var err error
	switch mode := os.Args[2]; mode {
	case "mcp":
		// A go-sdk server with one tool, "echo".
		err = echoServer().Run(context.Background(), &mcp.StdioTransport{})
	case "noisy":
		// The same, writing a banner and a JSON line that is not JSON-RPC
		// before every message.
		err = echoServer().Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: noisyWriter{os.Stdout}})
	case "fork":
		// Starts a helper, which stays in the server's process group as a
		// child does by default, then serves; the helper's pid goes to
		// stderr. With "stubborn" the helper ignores SIGTERM.
		helper := exec.Command(os.Args[0], append([]string{childArg, "helper"}, os.Args[3:]...)...)
		if err = helper.Start(); err == nil {
			fmt.Fprintf(os.Stderr, "helper %d\n", helper.Process.Pid)
			err = echoServer().Run(context.Background(), &mcp.StdioTransport{})
		}
	case "helper":
		if len(os.Args) > 3 && os.Args[3] == "stubborn" {
			signal.Ignore(syscall.SIGTERM)
		}
		time.Sleep(time.Hour)
	case "stubborn":
		// Serves, then ignores both the end of stdin and SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		err = echoServer().Run(context.Background(), &mcp.StdioTransport{})
		time.Sleep(time.Hour)
	case "deep":
		// The echo server with "deep", whose answer nests its structured
		// content 10,001 levels deep.
		// go-sdk would not encode it: the writer puts it in place of a
		// marker.
		s := echoServer()
		s.AddTool(&mcp.Tool{Name: "deep", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: map[string]any{"deep": deepMarker}}, nil
			})
		err = s.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: deepWriter{os.Stdout}})
	case "deepdiscover":
		// Answers its first request (server/discover) 10,001 levels deep,
		// then waits.
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err = json.NewDecoder(os.Stdin).Decode(&req); err == nil {
			fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"x\":%s}}\n", req.ID, deepJSON(MaxNesting+1))
			_, _ = io.Copy(io.Discard, os.Stdin)
		}
	case "flood":
		// The echo server with "flood", which sends {"n"} progress
		// notifications before it answers.
		s := echoServer()
		type floodArgs struct {
			N int `json:"n"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, a floodArgs) (*mcp.CallToolResult, any, error) {
			for i := range a.N {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(a.N)})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flooded"}}}, nil, nil
		})
		err = s.Run(context.Background(), &mcp.StdioTransport{})
	case "die":
		// Says why on stderr and exits without a word on stdout.
		fmt.Fprintln(os.Stderr, "fatal: no config file")
		os.Exit(3)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// deepMarker is what deepWriter replaces with an array nested past
// MaxNesting.
const deepMarker = "@@deep@@"

type deepWriter struct{ w io.Writer }

func (d deepWriter) Write(p []byte) (int, error) {
	_, err := d.w.Write(bytes.ReplaceAll(p, []byte(`"`+deepMarker+`"`), deepJSON(MaxNesting+1)))
	return len(p), err
}

func (deepWriter) Close() error { return nil }

// deepJSON is an array nested n levels deep.
func deepJSON(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
}

// addEcho adds the "echo" tool, which answers its text argument.
func addEcho(s *mcp.Server) {
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
}

func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	addEcho(s)
	// "block" says on stderr that it started, and answers only when
	// cancelled, saying so on stderr too: the server heard
	// notifications/cancelled.
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "waits for its cancellation"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "block: started")
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "block: cancelled")
			return nil, nil, ctx.Err()
		})
	return s
}

// noisyWriter puts two stray lines before every message go-sdk writes (it
// writes each message with one Write).
type noisyWriter struct{ w io.Writer }

func (n noisyWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(n.w, "Server v1.2 starting...\n{\"level\":\"info\",\"msg\":\"ready\"}\n"); err != nil {
		return 0, err
	}
	return n.w.Write(p)
}

func (noisyWriter) Close() error { return nil }

// child returns a Stdio transport that runs this binary in mode.
func child(t testing.TB, mode string, args ...string) Stdio {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStdio(exe, append([]string{childArg, mode}, args...)...)
	// A race-enabled child would otherwise sleep a second at exit.
	s.Env = []string{"GORACE=atexit_sleep_ms=0"}
	return s
}
