//go:build !race

// Built without -race: see main_test.go.

package grid

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/internal/fixture/testremote"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// The grain's own tests spawn it as the cluster would (its Props, then
// ClusterInit) on one actor system, and speak to it from another joined by
// protoactor's remote over loopback, as a facade on another member does:
// only wire forms cross.

// spawnGrain spawns a grain of server "calc", served by the test server in
// a child process, on host.
func spawnGrain(t *testing.T, host *actor.ActorSystem, opts ...KindOption) *actor.PID {
	t.Helper()
	return spawnGrainOf(t, host, testserver.Stdio(t), opts...)
}

// spawnGrainOf spawns a grain of server "calc", served by server, on host.
func spawnGrainOf(t *testing.T, host *actor.ActorSystem, server transport.Stdio, opts ...KindOption) *actor.PID {
	t.Helper()
	props := grainProps(func(string) (transport.McpTransport, error) { return server, nil }, opts...)
	pid := host.Root.Spawn(props)
	host.Root.Send(pid, &cluster.ClusterInit{Identity: &cluster.ClusterIdentity{Kind: KindName, Identity: "calc"}})
	t.Cleanup(func() { _ = host.Root.StopFuture(pid).Wait() })
	return pid
}

// inbox is a caller's reply process on the caller's system.
type inbox struct {
	pid *actor.PID
	ch  chan any
}

func newInbox(system *actor.ActorSystem) *inbox {
	in := &inbox{ch: make(chan any, 64)}
	in.pid = system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case actor.SystemMessage, actor.AutoReceiveMessage:
			return
		}
		in.ch <- c.Message()
	}))
	return in
}

// next is the next message the inbox received, as it arrived.
func (in *inbox) next(t *testing.T) any {
	t.Helper()
	select {
	case m := <-in.ch:
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("no message came")
		return nil
	}
}

// nothingMore asserts that nothing more came from the grain, stopped:
// a call sent now bounces, and its bounce comes next, after anything the
// grain's member sent before it (a member's messages to another arrive in
// the order sent).
func (in *inbox) nothingMore(t *testing.T, send func(msg any)) {
	t.Helper()
	send(&messages.CallTool{ID: 99, Name: "add"})
	m := in.next(t)
	_, dead := m.(*actor.DeadLetterResponse)
	require.True(t, dead, "unexpected %T %+v", m, m)
}

// caller sends to the grain at pid from another member, in wire forms,
// with in as the sender.
func caller(t *testing.T, system *actor.ActorSystem, pid *actor.PID, in *inbox) func(msg any) {
	// A PID caches the process it resolves to: the caller's own PID for
	// the grain goes through the remote.
	to := actor.NewPID(pid.Address, pid.Id)
	return func(msg any) {
		w, ok := wire.ToWire(msg)
		require.True(t, ok, "%T has a wire form", msg)
		system.Root.RequestWithCustomSender(to, w, in.pid)
	}
}

// arrived is the next message of in, which must be a wire form (a caller
// elsewhere never gets a plain message), read back as its plain message.
func arrived[T any](t *testing.T, in *inbox) T {
	t.Helper()
	m := in.next(t)
	_, isProto := m.(proto.Message)
	require.True(t, isProto, "got %T, want a wire form", m)
	p, ok := wire.FromWire(m)
	require.True(t, ok, "got %T, want a wire form of the protocol", m)
	v, ok := p.(T)
	require.True(t, ok, "got %T %+v", p, p)
	return v
}

func sortedNames(r *messages.Ready) []string {
	names := make([]string, 0, len(r.Tools))
	for _, tool := range r.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func text(t *testing.T, r *messages.CallToolReply) string {
	t.Helper()
	require.Nil(t, r.Failure, "the call failed")
	require.NotNil(t, r.Result)
	require.NotEmpty(t, r.Result.Content)
	tc, ok := r.Result.Content[0].(*mcp.TextContent)
	require.True(t, ok, "got %T", r.Result.Content[0])
	return tc.Text
}

// A grain serves a caller on another member in wire forms only: every
// answer comes back as one (readiness, tool lists asked for and watched,
// results, failures with their causes, a reconnection), whether it comes
// from the grain, its supervisor or the connection; when it stops, the
// caller hears it has handed over, and a later call bounces as
// protoactor's dead letter.
func TestGrainServesACallerOnAnotherMember(t *testing.T) {
	host, other := testremote.Pair(t)
	pid := spawnGrain(t, host)
	in := newInbox(other)
	send := caller(t, other, pid, in)

	send(&messages.AwaitReady{})
	assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)))

	send(&messages.CallTool{ID: 1, Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`), Deadline: time.Now().Add(time.Minute)})
	r := arrived[*messages.CallToolReply](t, in)
	assert.Equal(t, uint64(1), r.ID)
	assert.Equal(t, "5", text(t, r))

	send(&messages.CallTool{ID: 2, Name: "add", Deadline: time.Now().Add(-time.Second), Limit: "the test's deadline"})
	r = arrived[*messages.CallToolReply](t, in)
	require.NotNil(t, r.Failure)
	assert.ErrorIs(t, r.Failure, context.DeadlineExceeded, "the cause crosses the wire")
	assert.Contains(t, r.Failure.Message, "the test's deadline")

	// A watched list: the answer to RefreshTools and the list the watcher
	// is told of both come back as wire forms, in whichever order.
	send(&messages.WatchTools{})
	send(&messages.RefreshTools{})
	for range 2 {
		assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)))
	}
	send(&messages.UnwatchTools{})

	send(&messages.Reconnect{})
	assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)), "a ready connection answers at once")

	require.NoError(t, host.Root.StopFuture(pid).Wait())
	arrived[*messages.HandedOver](t, in)
	send(&messages.CallTool{ID: 3, Name: "add"})
	_, dead := in.next(t).(*actor.DeadLetterResponse)
	assert.True(t, dead, "a stopped grain's calls bounce as protoactor's dead letters")
	in.nothingMore(t, send)
}
