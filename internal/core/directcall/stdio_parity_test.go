package directcall_test

// Parity with go-sdk over stdio: each test runs go-sdk v1.8.0's own client
// (mcp.CommandTransport under a ClientSession) and ours (transport.Stdio,
// whose connection takes tools/call on the direct path, directcall.Lines)
// against the same server program, a child process each, and requires the
// same outcome and the same bytes on the child's stdin: a call, a cancel
// (the notifications/cancelled line), an error answer, a close with a call
// in flight, and a child that dies under a call. A go-sdk upgrade that
// changes any of them fails here.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/transport"
)

// stdioParityArg is the first argument that puts a re-executed test binary
// into the parity server's mode: "<binary> <stdioParityArg> <record file>".
// init turns such a process into the server before TestMain runs.
const stdioParityArg = "directcall-stdio-parity-server"

func init() {
	if len(os.Args) < 3 || os.Args[1] != stdioParityArg {
		return
	}
	if err := serveStdioParity(os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "parity server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveStdioParity serves go-sdk's server on stdio with the tools echo,
// fail (an isError result), block (says "block: started" on stderr, waits
// for its cancellation and says "block: cancelled") and die (says "die:
// exiting" and exits with status 3), and copies every byte it reads from
// stdin to the file record, as read.
func serveStdioParity(record string) error {
	f, err := os.OpenFile(record, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	s := mcp.NewServer(&mcp.Implementation{Name: "parity", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "block: started")
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "block: cancelled")
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(s, &mcp.Tool{Name: "die"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "die: exiting")
		os.Exit(3)
		return nil, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///a.txt", Name: "a", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a.txt", MIMEType: "text/plain", Text: "héllo <&>"}}}, nil
		})
	in := io.NopCloser(io.TeeReader(os.Stdin, f))
	return s.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: os.Stdout})
}

// stdioSide is one client of a parity pair: its session, the file its
// child records its stdin in, and the child's stderr lines as they come.
type stdioSide struct {
	cs     *mcp.ClientSession
	record string
	stderr chan string
	// call is a tools/call: the session's for go-sdk, the direct path's
	// for ours.
	call func(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error)
	// read is a resources/read: the session's for go-sdk, the direct
	// path's for ours.
	read func(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
}

// stdioPair starts the parity server twice, under go-sdk's client and
// under ours, with the same client name and protocol revision.
func stdioPair(t *testing.T) (sdk, ours *stdioSide) {
	t.Helper()
	if os.Getenv(transport.DirectCallsEnv) == "0" {
		t.Skip("the environment turns the direct path off (" + transport.DirectCallsEnv + "=0)")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "parity-client", Version: "1.2.3"}, nil)
	opts := &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"}

	sdk = &stdioSide{record: filepath.Join(dir, "sdk"), stderr: make(chan string, 64)}
	cmd := exec.Command(exe, stdioParityArg, sdk.record)
	cmd.Env = append(transport.DefaultEnv(), "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = &lineSender{ch: sdk.stderr}
	sdk.cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sdk.cs.Close() })
	sdk.call = func(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return sdk.cs.CallTool(ctx, p)
	}
	sdk.read = sdk.cs.ReadResource

	ours = &stdioSide{record: filepath.Join(dir, "ours"), stderr: make(chan string, 64)}
	st, err := transport.Stdio{Command: exe, Args: []string{stdioParityArg, ours.record},
		Env: []string{"GORACE=atexit_sleep_ms=0"}}.Open(zap.New(&stderrCore{ch: ours.stderr}))
	require.NoError(t, err)
	ours.cs, err = client.Connect(ctx, st, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ours.cs.Close() })
	direct := directcall.CallerOf(st)
	require.NotNil(t, direct, "the direct path is on by default")
	ours.call = func(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return direct.CallTool(ctx, p, nil)
	}
	reader := directcall.ReaderOf(st)
	require.NotNil(t, reader, "reads take the direct path")
	ours.read = reader.ReadResource
	return sdk, ours
}

// lineSender sends each line written to it on ch, dropping what ch has no
// room for: go-sdk's child's stderr.
type lineSender struct {
	ch      chan string
	partial []byte
}

func (w *lineSender) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.ch <- string(w.partial[:i]):
		default:
		}
		w.partial = w.partial[i+1:]
	}
}

// stderrCore is a logger's core that sends the child's stderr lines, which
// our transport logs with the field "line", on ch.
type stderrCore struct{ ch chan string }

func (c *stderrCore) Enabled(zapcore.Level) bool        { return true }
func (c *stderrCore) With([]zapcore.Field) zapcore.Core { return c }
func (c *stderrCore) Sync() error                       { return nil }
func (c *stderrCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	return ce.AddCore(e, c)
}

func (c *stderrCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	if e.Message != "mcp server stderr" {
		return nil
	}
	for _, f := range fields {
		if f.Key == "line" {
			select {
			case c.ch <- f.String:
			default:
			}
		}
	}
	return nil
}

// await returns once the child has written line to its stderr.
func (s *stdioSide) await(t *testing.T, line string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case l := <-s.stderr:
			if l == line {
				return
			}
		case <-timeout:
			t.Fatalf("the server never said %q", line)
		}
	}
}

// received is what the child of s read from its stdin: one JSON-RPC
// message a line, each decoded, without the ids of requests and
// cancellations (go-sdk's count up from 1, the direct path's down from
// -2^40). The lines are compared as JSON values: ours write the same
// members as go-sdk's, in another order.
func (s *stdioSide) received(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(s.record)
	require.NoError(t, err)
	var out []map[string]any
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		require.True(t, strings.HasSuffix(line, "\n"), "a whole line: %q", line)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "%s", line)
		delete(m, "id")
		if p, ok := m["params"].(map[string]any); ok && m["method"] == "notifications/cancelled" {
			delete(p, "requestId")
		}
		out = append(out, m)
	}
	return out
}

// withMethod is the messages of method among ms, and the others.
func withMethod(ms []map[string]any, method string) (with, others []map[string]any) {
	for _, m := range ms {
		if m["method"] == method {
			with = append(with, m)
		} else {
			others = append(others, m)
		}
	}
	return with, others
}

// stdioNoLeaks fails t if a goroutine it started outlives it and its
// cleanups.
func stdioNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// sameFailure fails t unless err fails as want does: the same text, a
// connection closed or not, a JSON-RPC error with the same code or not.
func sameFailure(t *testing.T, want, err error) {
	t.Helper()
	require.Error(t, want)
	require.Error(t, err, "go-sdk failed with %v", want)
	assert.Equal(t, want.Error(), err.Error())
	assert.Equal(t, errors.Is(want, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrConnectionClosed), "mcp.ErrConnectionClosed")
	var wantRPC, rpc *jsonrpc.Error
	if assert.Equal(t, errors.As(want, &wantRPC), errors.As(err, &rpc), "*jsonrpc.Error") && wantRPC != nil {
		assert.Equal(t, wantRPC.Code, rpc.Code)
		assert.Equal(t, wantRPC.Message, rpc.Message)
	}
}

// The line of a read, its _meta envelope included, is go-sdk's but for
// the id; so are its result and the error of a resource the server does
// not have.
func TestStdioReadIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	want, err := sdk.read(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	require.NoError(t, err)
	got, err := ours.read(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
	_, wantErr := sdk.read(ctx, &mcp.ReadResourceParams{URI: "file:///nothing"})
	_, err = ours.read(ctx, &mcp.ReadResourceParams{URI: "file:///nothing"})
	sameFailure(t, wantErr, err)
	msgs := sdk.received(t)
	reads, _ := withMethod(msgs, "resources/read")
	require.Len(t, reads, 2)
	assert.Equal(t, msgs, ours.received(t), "every message the child read")
}

// The line of a call, arguments, progress token and _meta envelope
// included, is go-sdk's but for the id; so is everything else the client
// wrote; the results (a text, an isError result) are the same.
func TestStdioCallIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		tool string
		args any
	}{
		{"echo", map[string]any{"text": "héllo <&> \u2028 \"q\""}},
		{"fail", nil},
	} {
		params := func() *mcp.CallToolParams {
			p := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			p.SetProgressToken("p1")
			return p
		}
		want, err := sdk.call(ctx, params())
		require.NoError(t, err, c.tool)
		got, err := ours.call(ctx, params())
		require.NoError(t, err, c.tool)
		assert.True(t, reflect.DeepEqual(want, got), "%s: got %#v, want %#v", c.tool, got, want)
	}
	want := sdk.received(t)
	calls, _ := withMethod(want, "tools/call")
	require.Len(t, calls, 2)
	assert.Equal(t, want, ours.received(t), "every message the child read")
}

// A JSON-RPC error answer (a tool the server does not have) fails the
// call as go-sdk's: the same *jsonrpc.Error, code and words.
func TestStdioErrorAnswerIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, want := sdk.call(ctx, &mcp.CallToolParams{Name: "nope"})
	_, err := ours.call(ctx, &mcp.CallToolParams{Name: "nope"})
	sameFailure(t, want, err)
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, sdk.received(t), ours.received(t))
}

// A call cancelled once the server runs it fails at once with the
// context's error, and the server is told with a notifications/cancelled
// line that is go-sdk's but for its id and the _meta envelope (go-sdk puts
// none on notifications; the connection actor's transport adds it to
// go-sdk's, and the direct path writes it): the server's handler is
// cancelled in both.
func TestStdioCancelIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	run := func(s *stdioSide) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := s.call(ctx, &mcp.CallToolParams{Name: "block"})
			done <- err
		}()
		s.await(t, "block: started")
		cancel()
		err := <-done
		s.await(t, "block: cancelled")
		return err
	}
	want := run(sdk)
	err := run(ours)
	require.ErrorIs(t, want, context.Canceled)
	require.ErrorIs(t, err, context.Canceled)

	wantNotes, wantOthers := withMethod(sdk.received(t), "notifications/cancelled")
	gotNotes, gotOthers := withMethod(ours.received(t), "notifications/cancelled")
	require.Len(t, wantNotes, 1, "go-sdk tells the server")
	require.Len(t, gotNotes, 1, "so do we")
	params := gotNotes[0]["params"].(map[string]any)
	meta := params["_meta"]
	delete(params, "_meta")
	assert.Equal(t, wantNotes[0], gotNotes[0], "the notification, its _meta aside")
	calls, _ := withMethod(wantOthers, "tools/call")
	require.Len(t, calls, 1)
	assert.Equal(t, calls[0]["params"].(map[string]any)["_meta"], meta, "the envelope of go-sdk's calls")
	assert.Equal(t, wantOthers, gotOthers, "the other messages")
}

// Closing the session with a call in flight is where go-sdk's client and
// the direct path differ, on purpose, and both are pinned: go-sdk v1.8.0's
// Close waits for its calls in flight (here, until the call's context is
// cancelled, which the server is told of), and only then closes stdin;
// the direct path's calls are not go-sdk's, so the same Close closes the
// connection at once and fails them with mcp.ErrConnectionClosed in
// go-sdk's words for a call on a closing session (the connection actor
// has failed its calls before it closes a session anyway). A call after
// the close fails as go-sdk's.
func TestStdioCloseIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(s *stdioSide) (cancelCall context.CancelFunc, done chan error) {
		callCtx, cancelCall := context.WithCancel(ctx)
		done = make(chan error, 1)
		go func() {
			_, err := s.call(callCtx, &mcp.CallToolParams{Name: "block"})
			done <- err
		}()
		s.await(t, "block: started")
		return cancelCall, done
	}

	// go-sdk: Close waits. A call made once it has begun fails; the call
	// in flight has not ended, until it is cancelled.
	cancelCall, done := start(sdk)
	closed := make(chan error, 1)
	go func() { closed <- sdk.cs.Close() }()
	var closing error
	for closing == nil {
		_, closing = sdk.call(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "probe"}})
	}
	assert.Equal(t, `connection closed: calling "tools/call": client is closing`, closing.Error())
	select {
	case err := <-done:
		t.Fatalf("go-sdk's Close ended the call in flight: %v", err)
	default:
	}
	cancelCall()
	require.ErrorIs(t, <-done, context.Canceled, "go-sdk's call in flight ends with its context")
	require.NoError(t, <-closed)
	notes, _ := withMethod(sdk.received(t), "notifications/cancelled")
	assert.Empty(t, notes, "go-sdk tells a closing session's server nothing of the cancel")
	_, wantAfter := sdk.call(ctx, &mcp.CallToolParams{Name: "echo"})

	// Ours: Close fails the direct call at once.
	cancelCall, done = start(ours)
	defer cancelCall()
	require.NoError(t, ours.cs.Close())
	inFlight := <-done
	assert.ErrorIs(t, inFlight, mcp.ErrConnectionClosed)
	assert.Equal(t, closing.Error(), inFlight.Error(), "in go-sdk's words for a call on a closing session")
	_, after := ours.call(ctx, &mcp.CallToolParams{Name: "echo"})
	sameFailure(t, wantAfter, after)
	notes, _ = withMethod(ours.received(t), "notifications/cancelled")
	assert.Empty(t, notes, "no notification for the call the close ended")
	assert.Equal(t, sdk.received(t)[:2], ours.received(t), "server/discover and the call")
}

// A child that dies under a call: the call fails, and every later call
// too. The words are go-sdk's, but ours are marked as a connection closed
// (errors.Is mcp.ErrConnectionClosed, which go-sdk's call in flight is
// not) and say the end's cause, EOF, once (go-sdk's later calls say "client
// is closing: EOF"). Both sides are pinned.
func TestStdioChildDeathIsGoSDKs(t *testing.T) {
	stdioNoLeaks(t)
	sdk, ours := stdioPair(t)
	run := func(s *stdioSide) (inFlight, after error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, inFlight = s.call(ctx, &mcp.CallToolParams{Name: "die"})
		s.await(t, "die: exiting")
		_, after = s.call(ctx, &mcp.CallToolParams{Name: "echo"})
		return inFlight, after
	}
	wantInFlight, wantAfter := run(sdk)
	inFlight, after := run(ours)
	require.Error(t, wantInFlight)
	assert.Equal(t, `calling "tools/call": EOF`, wantInFlight.Error())
	assert.ErrorIs(t, wantInFlight, io.EOF)
	assert.NotErrorIs(t, wantInFlight, mcp.ErrConnectionClosed)
	require.Error(t, inFlight)
	assert.Equal(t, mcp.ErrConnectionClosed.Error()+": "+wantInFlight.Error(), inFlight.Error())
	assert.ErrorIs(t, inFlight, mcp.ErrConnectionClosed)

	require.Error(t, wantAfter)
	assert.Equal(t, `connection closed: calling "tools/call": client is closing: EOF`, wantAfter.Error())
	assert.ErrorIs(t, wantAfter, mcp.ErrConnectionClosed)
	require.Error(t, after)
	assert.Equal(t, inFlight.Error(), after.Error(), "ours: every call after the end, as the one in flight")
	assert.ErrorIs(t, after, mcp.ErrConnectionClosed)
	assert.Equal(t, sdk.received(t), ours.received(t))
}
