package testserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// benchChildArg is the first argument that puts a re-executed binary into one
// of the benchmark server modes of [RunBenchIfChild].
const benchChildArg = "mcpconnector-bench-server"

// WideTools and WidePageSize shape the [NewWideServer]: this many tools,
// listed this many per tools/list page.
const (
	WideTools    = 1000
	WidePageSize = 100
)

// RunBenchIfChild serves one of the benchmark servers and exits when this
// process was started by [BenchStdio], [BenchEcho], [BenchWide] or
// [StartBenchHTTP]; otherwise it returns at once. Unlike [RunIfChild] it
// needs no test binary: any program can call it first in main (or TestMain)
// and then start itself as a server.
func RunBenchIfChild() {
	if len(os.Args) < 3 || os.Args[1] != benchChildArg {
		return
	}
	var err error
	switch mode := os.Args[2]; mode {
	case "sdk":
		err = NewServer().Run(context.Background(), &mcp.StdioTransport{})
	case "wide":
		err = NewWideServer().Run(context.Background(), &mcp.StdioTransport{})
	case "tools":
		n := 0
		if len(os.Args) > 3 {
			n, err = strconv.Atoi(os.Args[3])
		}
		if err == nil {
			err = NewToolsServer(n, WidePageSize).Run(context.Background(), &mcp.StdioTransport{})
		}
	case "echo":
		err = ServeEcho(os.Stdin, os.Stdout)
	case "http":
		err = serveBenchHTTP(os.Stdin, os.Stdout)
	default:
		err = fmt.Errorf("unknown bench server mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// BenchStdio returns a transport that runs this executable as the go-sdk test
// server ([NewServer]) over stdio. Unlike [Stdio] it needs no testing.TB.
func BenchStdio() (transport.Stdio, error) { return benchSelf("sdk") }

// BenchWide returns a transport that runs this executable as
// [NewWideServer] over stdio.
func BenchWide() (transport.Stdio, error) { return benchSelf("wide") }

// BenchEcho returns the command line that runs this executable as the bare
// JSON-RPC echo server of [ServeEcho] on its stdin and stdout.
func BenchEcho() (transport.Stdio, error) { return benchSelf("echo") }

// BenchTools returns a transport that runs this executable as
// NewToolsServer(n, WidePageSize) over stdio.
func BenchTools(n int) (transport.Stdio, error) { return benchSelf("tools", strconv.Itoa(n)) }

func benchSelf(mode string, args ...string) (transport.Stdio, error) {
	exe, err := os.Executable()
	if err != nil {
		return transport.Stdio{}, fmt.Errorf("testserver: %w", err)
	}
	return transport.NewStdio(exe, append([]string{benchChildArg, mode}, args...)...), nil
}

// NewWideServer returns a go-sdk server with [WideTools] tools named
// "tool0000", "tool0001", ..., each with a description and a two-property
// input schema, listed [WidePageSize] per page. Every tool answers "ok".
func NewWideServer() *mcp.Server { return NewToolsServer(WideTools, WidePageSize) }

// NewToolsServer serves n tools named tool0000, tool0001, ..., each
// answering "ok", listed pageSize per tools/list page.
func NewToolsServer(n, pageSize int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "wide", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: pageSize})
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "where to look"},
			"limit": map[string]any{"type": "integer", "description": "how many results at most"},
		},
	}
	for i := range n {
		name := fmt.Sprintf("tool%04d", i)
		s.AddTool(&mcp.Tool{Name: name, Description: "Benchmark tool " + name + " that answers ok", InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	}
	return s
}

// EchoResult is the result every [ServeEcho] and HTTP echo answer carries,
// shaped like the "add" tool's answer to {"a":1,"b":2}.
const EchoResult = `{"content":[{"type":"text","text":"3"}]}`

// ServeEcho is the physical floor of a JSON-RPC call over pipes: it reads
// newline-delimited requests and answers each at once with [EchoResult] and
// the request's id, without decoding anything else. It returns at EOF.
func ServeEcho(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		buf = AppendEchoReply(buf[:0], line)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// AppendEchoReply appends to dst the JSON-RPC response to req: its "id" with
// [EchoResult]. The id is found by scanning, not decoding.
func AppendEchoReply(dst, req []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, RequestID(req)...)
	dst = append(dst, `,"result":`...)
	dst = append(dst, EchoResult...)
	return append(dst, '}')
}

// RequestID returns the raw value of the first top-level-looking "id" member
// of a JSON-RPC message, or "null". It is a scan, good enough for the
// requests the benchmarks write.
func RequestID(msg []byte) []byte {
	i := bytes.Index(msg, []byte(`"id":`))
	if i < 0 {
		return []byte("null")
	}
	v := msg[i+len(`"id":`):]
	end := bytes.IndexAny(v, ",}")
	if end < 0 {
		return []byte("null")
	}
	return bytes.TrimSpace(v[:end])
}

// serveBenchHTTP serves, on a loopback port, [NewServer] behind go-sdk's
// stateless Streamable HTTP handler at /mcp and the bare JSON-RPC echo at
// /echo. It writes its base URL as one line to out and serves until in
// reaches EOF (the parent closed the pipe or died).
func serveBenchHTTP(in io.Reader, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: BenchHTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(out, "http://%s\n", ln.Addr()); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(io.Discard, in)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// BenchHTTPHandler serves [NewServer] statelessly at /mcp and the bare
// JSON-RPC echo at /echo.
func BenchHTTPHandler() http.Handler {
	s := NewServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(AppendEchoReply(nil, body))
	})
	return mux
}

// BenchHTTP is a child process serving [BenchHTTPHandler] on a loopback
// port, so that the server's CPU and allocations are not the measuring
// process's.
type BenchHTTP struct {
	// URL is the base URL; the MCP endpoint is URL+"/mcp", the echo
	// URL+"/echo".
	URL   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// StartBenchHTTP runs this executable as the benchmark HTTP server and waits
// for its URL. The caller closes it.
func StartBenchHTTP() (*BenchHTTP, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	cmd := exec.Command(exe, benchChildArg, "http")
	cmd.Env = transport.DefaultEnv()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &BenchHTTP{cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("testserver: bench http server gave no URL: %w", err)
	}
	h.URL = strings.TrimSpace(line)
	return h, nil
}

// Close stops the server and waits for it.
func (h *BenchHTTP) Close() error {
	_ = h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		return <-done
	}
}
