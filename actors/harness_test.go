package actors_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

// rawPeer is a hand-made peer on the far end of an in-memory transport,
// speaking JSON-RPC without go-sdk's server.
type rawPeer struct {
	conn mcp.Connection
	done chan struct{}
}

// serveMute is a peer that reads every message and never answers.
func serveMute(server *mcp.InMemoryTransport) (*rawPeer, error) {
	conn, err := server.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	p := &rawPeer{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			if _, err := conn.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	return p, nil
}

// serveLegacy is a server of older revisions: it answers server/discover
// with "method not found", as such a server does, and every other request
// likewise.
func serveLegacy(server *mcp.InMemoryTransport) (*rawPeer, error) {
	conn, err := server.Connect(context.Background())
	if err != nil {
		return nil, err
	}
	p := &rawPeer{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
				_ = conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID,
					Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}})
			}
		}
	}()
	return p, nil
}

func (p *rawPeer) close() {
	_ = p.conn.Close()
	<-p.done
}

// inbox is an actor that passes every message it receives, besides
// protoactor's own, to a channel: the sender of a test's messages, whose
// answers the test reads in the order they came.
type inbox struct {
	pid *actor.PID
	ch  chan any
}

func newInbox(t *testing.T, system *actor.ActorSystem) *inbox {
	t.Helper()
	in := &inbox{ch: make(chan any, 256)}
	in.pid = system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case actor.SystemMessage, actor.AutoReceiveMessage:
			return
		}
		in.ch <- c.Message()
	}))
	return in
}

// next is the next message the inbox received.
func (in *inbox) next(t *testing.T) any {
	t.Helper()
	select {
	case m := <-in.ch:
		return m
	case <-time.After(time.Minute):
		t.Fatal("no message came")
		return nil
	}
}

// reply is the next message, which must be a CallToolReply.
func (in *inbox) reply(t *testing.T) *messages.CallToolReply {
	t.Helper()
	m := in.next(t)
	r, ok := m.(*messages.CallToolReply)
	require.True(t, ok, "got %T %+v, want a CallToolReply", m, m)
	return r
}

// empty asserts that nothing has come; in a synctest bubble, after
// synctest.Wait, nothing is on its way either.
func (in *inbox) empty(t *testing.T) {
	t.Helper()
	select {
	case m := <-in.ch:
		t.Fatalf("unexpected %T %+v", m, m)
	default:
	}
}

// send sends msg to pid with the inbox as its sender.
func (in *inbox) send(system *actor.ActorSystem, pid *actor.PID, msg any) {
	system.Root.RequestWithCustomSender(pid, msg, in.pid)
}

// startSupervisor spawns a supervisor for cfg as it is, in a new system
// that the test's cleanup stops.
func startSupervisor(t *testing.T, cfg actors.SupervisorConfig) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	return start(t, actors.NewSupervisorProps(cfg))
}

// startConnection spawns a bare connection for cfg, likewise.
func startConnection(t *testing.T, cfg actors.ConnectionConfig) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	return start(t, actors.NewConnectionProps(cfg))
}

func start(t *testing.T, props *actor.Props) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	system := actor.NewActorSystem(quiet.Actors())
	pid := system.Root.Spawn(props)
	t.Cleanup(func() {
		_ = system.Root.StopFuture(pid).Wait()
		system.Shutdown()
	})
	return system, pid
}

// textOf is a successful reply's first text block.
func textOf(t *testing.T, r *messages.CallToolReply) string {
	t.Helper()
	require.Nil(t, r.Failure, "the call failed")
	require.NotNil(t, r.Result)
	require.NotEmpty(t, r.Result.Content)
	tc, ok := r.Result.Content[0].(*mcp.TextContent)
	require.True(t, ok, "got %T", r.Result.Content[0])
	return tc.Text
}

// toolNames lists r's tools by name.
func toolNames(r *messages.Ready) []string {
	names := make([]string, 0, len(r.Tools))
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// blocker is a go-sdk server whose "block" calls each say they have
// started, then wait until released or cancelled and say which: a call's
// life on the server as the test sees it. "block_idempotent" is the same
// tool annotated idempotentHint.
type blocker struct {
	entered   chan string // the "tag" argument of each call that started
	cancelled chan string // the tag of each call whose context was cancelled
	release   chan struct{}
	once      sync.Once
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan string, 16), cancelled: make(chan string, 16), release: make(chan struct{})}
}

func (b *blocker) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocker", Version: "1.0.0"}, nil)
	type in struct {
		Tag string `json:"tag"`
	}
	block := func(ctx context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
		b.entered <- in.Tag
		select {
		case <-b.release:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released " + in.Tag}}}, nil, nil
		case <-ctx.Done():
			b.cancelled <- in.Tag
			return nil, nil, ctx.Err()
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Wait until released or cancelled"}, block)
	mcp.AddTool(s, &mcp.Tool{Name: "block_idempotent", Description: "block, annotated idempotent",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, block)
	return s
}

// releaseAll lets every call, running or to come, finish.
func (b *blocker) releaseAll() { b.once.Do(func() { close(b.release) }) }

// recv is the next value of ch, or the test fails after a minute (of the
// bubble's clock, in a synctest bubble).
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: nothing came", what)
		var zero T
		return zero
	}
}

// readyBlocked spawns a supervisor over a blocker's server in memory, with
// a backoff of one second (RetryIdempotent when retry), and waits until it
// is ready.
func readyBlocked(t *testing.T, retry bool) (*blocker, *memory, *actor.ActorSystem, *actor.PID, states) {
	b := newBlocker()
	mem := &memory{server: b.server}
	t.Cleanup(mem.closeAll)
	t.Cleanup(b.releaseAll)
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
		Connection:     actors.ConnectionConfig{Transport: mem, RetryIdempotent: retry},
		InitialBackoff: time.Second, MaxBackoff: time.Second,
	})
	sts.until(t, actors.Ready)
	return b, mem, system, pid, sts
}
