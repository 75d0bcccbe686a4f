package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// Op is one measured operation. It returns an error when the operation did
// not produce the expected outcome, so that a benchmark never times a
// failure.
type Op func(ctx context.Context) error

// Subject is one thing under measurement. New returns an [Op] for one
// goroutine: whatever the op reuses between calls (a chunk, a buffer) is
// made once there, outside the measured loop.
type Subject struct {
	// Name identifies the subject in tables, e.g. "plugin hook".
	Name string
	// New returns an op for the exclusive use of one goroutine.
	New func() Op
}

// Call is the tool call a subject makes, and the text its result must carry.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Args is the arguments object.
	Args json.RawMessage
	// Want is the text the result must carry.
	Want string
}

var (
	// InstantCall is "add" {a:1, b:2}: the server answers at once.
	InstantCall = Call{Tool: "add", Args: json.RawMessage(`{"a":1,"b":2}`), Want: "3"}
	// WaitCall is "slow" {ms:20}: the server waits 20 ms, as a tool that
	// waits on I/O does, then answers.
	WaitCall = Call{Tool: "slow", Args: json.RawMessage(`{"ms":20}`), Want: "done"}
)

// PluginHook is the hook path: each op streams a chunk holding one
// [host.ToolCall] of c through p.OnStreamChunk, which asks the connection
// actor, and checks the [host.ToolResult] it leaves in the chunk.
func PluginHook(p *plugin.McpPlugin, c Call) *Subject { return hook(p, c.Tool, c) }

// hook streams a chunk holding one call of c, under the name tool, through
// p's OnStreamChunk and checks the result it leaves.
func hook(p host.Plugin, tool string, c Call) *Subject {
	return &Subject{Name: "plugin hook", New: func() Op {
		var call host.Block = host.ToolCall{ID: "call_1", Name: tool, Arguments: c.Args}
		chunk := &host.Chunk{Blocks: make([]host.Block, 1)}
		return func(ctx context.Context) error {
			chunk.Blocks[0] = call
			if err := p.OnStreamChunk(ctx, chunk); err != nil {
				return err
			}
			r, ok := chunk.Blocks[0].(host.ToolResult)
			if !ok || r.IsError || r.Content != c.Want {
				return fmt.Errorf("hook left %#v, want a ToolResult %q", chunk.Blocks[0], c.Want)
			}
			return nil
		}
	}}
}

// PassThrough is the hook on a chunk it must leave alone: each op hands p a
// copy of blocks and expects them back untouched.
func PassThrough(name string, p *plugin.McpPlugin, blocks ...host.Block) *Subject {
	return &Subject{Name: name, New: func() Op {
		chunk := &host.Chunk{Blocks: append([]host.Block(nil), blocks...)}
		return func(ctx context.Context) error { return p.OnStreamChunk(ctx, chunk) }
	}}
}

// GoSDKDirect calls c on s from the calling goroutine, as a program using
// go-sdk without this library would: the floor for the transport.
func GoSDKDirect(s *mcp.ClientSession, c Call) *Subject {
	return &Subject{Name: "go-sdk direct", New: func() Op {
		return func(ctx context.Context) error {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
			return checkResult(res, err, c)
		}
	}}
}

// OneWorkerModel calls c through w, the model of the original design.
func OneWorkerModel(w *OneWorker, c Call) *Subject {
	return &Subject{Name: "one-worker model", New: func() Op {
		return func(ctx context.Context) error {
			res, err := w.Call(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
			return checkResult(res, err, c)
		}
	}}
}

func checkResult(res *mcp.CallToolResult, err error, c Call) error {
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("unexpected result %+v", res)
	}
	if t, ok := res.Content[0].(*mcp.TextContent); !ok || t.Text != c.Want {
		return fmt.Errorf("unexpected content %#v, want %q", res.Content[0], c.Want)
	}
	return nil
}

// ConnectGoSDK opens a go-sdk client session on t the way the connection
// actor does (MCP 2026-07-28, no capabilities, multi-round-trip off), but
// with none of this library in between.
func ConnectGoSDK(ctx context.Context, t mcp.Transport) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "0"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	return client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: actors.ProtocolVersion})
}

// ConnectGoSDKListed is [ConnectGoSDK] followed by a listing of every tool,
// as the connection actor does: go-sdk caches the listed tools and consults
// them on every call, so a fair floor has listed them too.
func ConnectGoSDKListed(ctx context.Context, t mcp.Transport) (*mcp.ClientSession, error) {
	s, err := ConnectGoSDK(ctx, t)
	if err != nil {
		return nil, err
	}
	if _, err := ListAllTools(ctx, s); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// ListAllTools follows every tools/list page of s, as the connection actor
// does at connect time, and returns how many tools it found.
func ListAllTools(ctx context.Context, s *mcp.ClientSession) (int, error) {
	n := 0
	for _, err := range s.Tools(ctx, nil) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// CommandTransport is go-sdk's own stdio transport for the command of t,
// with the same minimal environment our transport gives a child.
func CommandTransport(t transport.Stdio) mcp.Transport {
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Env = transport.DefaultEnv()
	return &mcp.CommandTransport{Command: cmd}
}

// OneWorker models the original design: one worker serves every call, one at
// a time, from an unbounded queue; each caller blocks on its own reply
// channel. It is safe for concurrent use.
type OneWorker struct {
	s     *mcp.ClientSession
	mu    sync.Mutex
	cond  *sync.Cond
	queue []workerJob
	quit  bool
	done  chan struct{}
}

type workerJob struct {
	ctx    context.Context
	params *mcp.CallToolParams
	reply  chan workerReply
}

type workerReply struct {
	res *mcp.CallToolResult
	err error
}

// NewOneWorker starts the worker on s. Close stops it.
func NewOneWorker(s *mcp.ClientSession) *OneWorker {
	w := &OneWorker{s: s, done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.serve()
	return w
}

func (w *OneWorker) serve() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.quit {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		j := w.queue[0]
		w.queue[0] = workerJob{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		res, err := w.s.CallTool(j.ctx, j.params)
		j.reply <- workerReply{res, err}
	}
}

// Call queues one call and blocks until the worker has served it.
func (w *OneWorker) Call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	j := workerJob{ctx: ctx, params: params, reply: make(chan workerReply, 1)}
	w.mu.Lock()
	if w.quit {
		w.mu.Unlock()
		return nil, errors.New("one worker: closed")
	}
	w.queue = append(w.queue, j)
	w.mu.Unlock()
	w.cond.Signal()
	r := <-j.reply
	return r.res, r.err
}

// Close lets the worker finish the queue, then stops it.
func (w *OneWorker) Close() {
	w.mu.Lock()
	w.quit = true
	w.mu.Unlock()
	w.cond.Signal()
	<-w.done
}

// RawPipe is the physical floor over pipes: a child running
// [testserver.ServeEcho], to which each op writes one JSON-RPC tools/call
// line and from which it reads the answer line, with no JSON library on
// either side of the exchange.
type RawPipe struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	mu  sync.Mutex
	id  int64
	buf []byte
}

// startPipe spawns the child of t with the default environment and returns
// its stdin and a buffered reader of its stdout.
func startPipe(t transport.Stdio) (*exec.Cmd, io.WriteCloser, *bufio.Reader, error) {
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Env = transport.DefaultEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return cmd, in, bufio.NewReaderSize(out, 64<<10), nil
}

// StartRawPipe spawns the echo child of t.
func StartRawPipe(t transport.Stdio) (*RawPipe, error) {
	cmd, in, out, err := startPipe(t)
	if err != nil {
		return nil, err
	}
	return &RawPipe{cmd: cmd, in: in, out: out}, nil
}

// Subject returns the pipe's round trip of c as a subject.
func (r *RawPipe) Subject(c Call) *Subject {
	return &Subject{Name: "raw JSON-RPC echo", New: func() Op {
		return func(context.Context) error { return r.roundTrip(c) }
	}}
}

func (r *RawPipe) roundTrip(c Call) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.id++
	r.buf = appendRequest(r.buf[:0], r.id, c)
	r.buf = append(r.buf, '\n')
	if _, err := r.in.Write(r.buf); err != nil {
		return err
	}
	line, err := r.out.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.Equal(testserver.RequestID(line), strconv.AppendInt(r.buf[:0], r.id, 10)) {
		return fmt.Errorf("raw echo answered %q for id %d", line, r.id)
	}
	return nil
}

// Close ends the child and waits for it.
func (r *RawPipe) Close() error {
	_ = r.in.Close()
	return r.cmd.Wait()
}

// appendRequest writes a tools/call request for c, with the _meta a
// 2026-07-28 client sends, so the floor moves the same bytes as a real call.
func appendRequest(dst []byte, id int64, c Call) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"`...)
	dst = append(dst, c.Tool...)
	dst = append(dst, `","arguments":`...)
	dst = append(dst, c.Args...)
	return append(dst, "}}"...)
}

// RawHTTP is the physical floor over loopback HTTP: each op POSTs one
// JSON-RPC tools/call to a handler that answers with a fixed result, over a
// kept-alive connection.
type RawHTTP struct {
	url    string
	client *http.Client
}

// NewRawHTTP posts to url with a client of its own; Close drops its idle
// connections.
func NewRawHTTP(url string) *RawHTTP {
	return &RawHTTP{url: url, client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}
}

// Subject returns one POST round trip of c as a subject.
func (h *RawHTTP) Subject(c Call) *Subject {
	return &Subject{Name: "raw JSON-RPC echo", New: func() Op {
		var id int64
		var req, resp []byte
		body := bytes.NewReader(nil)
		return func(ctx context.Context) error {
			id++
			req = appendRequest(req[:0], id, c)
			body.Reset(req)
			hr, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, body)
			if err != nil {
				return err
			}
			hr.Header.Set("Content-Type", "application/json")
			res, err := h.client.Do(hr)
			if err != nil {
				return err
			}
			resp, err = readAll(resp[:0], res.Body)
			_ = res.Body.Close()
			if err != nil {
				return err
			}
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("raw http echo: %s", res.Status)
			}
			if string(testserver.RequestID(resp)) != strconv.FormatInt(id, 10) {
				return fmt.Errorf("raw http echo answered %q for id %d", resp, id)
			}
			return nil
		}
	}}
}

// Close drops the client's idle connections.
func (h *RawHTTP) Close() { h.client.CloseIdleConnections() }

func readAll(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}
