//go:build !race

// protoactor-go's remote.Start writes grpc's global logger, which the race
// detector reports when two remotes share a process: this file builds
// without -race (grid's tests, which need the same, do too).

package actors_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testremote"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
)

// remoteSystems are two actor systems joined by protoactor's remote over
// loopback gRPC, as two members of a cluster are.
func remoteSystems(t *testing.T) (host, caller *actor.ActorSystem) {
	t.Helper()
	quiet := actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) })
	host, caller = actor.NewActorSystem(quiet), actor.NewActorSystem(quiet)
	for _, sys := range []*actor.ActorSystem{host, caller} {
		testremote.Start(t, sys)
	}
	require.NotEqual(t, host.Address(), caller.Address())
	return host, caller
}

// elsewhere is pid as another member knows it: a PID of its own. (A PID
// caches the process it resolves to, so one PID shared by two systems of
// one process would carry the messages of one by the way of the other.)
func elsewhere(pid *actor.PID) *actor.PID { return actor.NewPID(pid.Address, pid.Id) }

// onWire is msg's wire form, as a caller on another member sends it.
func onWire(t *testing.T, msg any) proto.Message {
	t.Helper()
	w, ok := messages.ToWire(msg)
	require.True(t, ok, "%T has a wire form", msg)
	return w
}

// arrived is the next message of in, which must be a wire form (a caller
// elsewhere never gets a plain message), read back as its plain message.
func arrived[T any](t *testing.T, in *inbox) T {
	t.Helper()
	m := in.next(t)
	_, isProto := m.(proto.Message)
	require.True(t, isProto, "got %T, want a wire form", m)
	p, ok := messages.FromWire(m)
	require.True(t, ok, "got %T, want a wire form of the protocol", m)
	v, ok := p.(T)
	require.True(t, ok, "got %T %+v", p, p)
	return v
}

// A supervisor on one member serves a caller on another in wire forms only:
// every message the caller sends leaves as its wire form and every answer
// comes back as one (readiness, tool lists asked for and watched, results,
// failures with their causes, a reconnection), and what the supervisor
// passes on to its connection it reads as plain messages.
func TestSupervisorServesACallerOnAnotherMember(t *testing.T) {
	host, caller := remoteSystems(t)
	sup := host.Root.Spawn(actors.NewSupervisorProps(actors.SupervisorConfig{
		Connection: actors.ConnectionConfig{Transport: testserver.Stdio(t)}}))
	t.Cleanup(func() { _ = host.Root.StopFuture(sup).Wait() })
	in := newInbox(t, caller)
	to := elsewhere(sup)
	send := func(msg any) { caller.Root.RequestWithCustomSender(to, onWire(t, msg), in.pid) }

	send(&messages.AwaitReady{})
	ready := arrived[*messages.Ready](t, in)
	assert.Equal(t, testserver.ToolNames, sortedNames(ready))

	send(&messages.CallTool{ID: 1, Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`), Deadline: time.Now().Add(time.Minute)})
	r := arrived[*messages.CallToolReply](t, in)
	assert.Equal(t, uint64(1), r.ID)
	assert.Equal(t, "5", textOf(t, r))

	send(&messages.CallTool{ID: 2, Name: "add", Deadline: time.Now().Add(-time.Second), Limit: "the test's deadline"})
	r = arrived[*messages.CallToolReply](t, in)
	require.NotNil(t, r.Failure)
	assert.ErrorIs(t, r.Failure, context.DeadlineExceeded, "the cause crosses the wire")
	assert.Contains(t, r.Failure.Message, "the test's deadline")

	// A watched list: the answer to RefreshTools (from the connection, to
	// which the supervisor forwards it) and the list the watcher is told
	// of both come back as wire forms, in whichever order.
	send(&messages.WatchTools{})
	send(&messages.RefreshTools{})
	for range 2 {
		assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)))
	}
	send(&messages.UnwatchTools{})

	send(&messages.Reconnect{})
	assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)), "a ready connection answers at once")

	require.NoError(t, host.Root.StopFuture(sup).Wait())
	send(&messages.CallTool{ID: 3, Name: "add"})
	_, dead := in.next(t).(*actor.DeadLetterResponse)
	assert.True(t, dead, "a stopped supervisor's calls bounce as protoactor's dead letters")
	in.empty(t)
}

// A supervisor that learns its identity (a grain) tells a caller on
// another member that it has handed over, in its wire form, once it stops.
func TestHandOverReachesACallerOnAnotherMember(t *testing.T) {
	host, caller := remoteSystems(t)
	sup := host.Root.Spawn(actors.NewSupervisorProps(actors.SupervisorConfig{
		ForIdentity: func(string) (actors.ConnectionConfig, error) {
			return actors.ConnectionConfig{Transport: testserver.Stdio(t)}, nil
		},
		IdentityOf: func(msg any) (string, bool) { s, ok := msg.(string); return s, ok },
	}))
	host.Root.Send(sup, "server")
	in := newInbox(t, caller)
	caller.Root.RequestWithCustomSender(elsewhere(sup), onWire(t, &messages.CallTool{ID: 1, Name: "add",
		Arguments: json.RawMessage(`{"a":1,"b":1}`)}), in.pid)
	assert.Equal(t, "2", textOf(t, arrived[*messages.CallToolReply](t, in)))

	require.NoError(t, host.Root.StopFuture(sup).Wait())
	arrived[*messages.HandedOver](t, in)
	in.empty(t)
}

func sortedNames(r *messages.Ready) []string {
	return slices.Sorted(slices.Values(toolNames(r)))
}

// A bare connection (no supervisor) spoken to from another member reads
// the wire forms as the supervisor does and answers in them.
func TestConnectionServesACallerOnAnotherMember(t *testing.T) {
	host, caller := remoteSystems(t)
	conn := host.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{Transport: testserver.Stdio(t)}))
	t.Cleanup(func() { _ = host.Root.StopFuture(conn).Wait() })
	in := newInbox(t, caller)
	to := elsewhere(conn)
	send := func(msg any) { caller.Root.RequestWithCustomSender(to, onWire(t, msg), in.pid) }

	send(&messages.AwaitReady{})
	assert.Equal(t, testserver.ToolNames, sortedNames(arrived[*messages.Ready](t, in)))
	send(&messages.CallTool{ID: 7, Name: "add", Arguments: json.RawMessage(`{"a":4,"b":5}`), Deadline: time.Now().Add(time.Minute)})
	r := arrived[*messages.CallToolReply](t, in)
	assert.Equal(t, uint64(7), r.ID)
	assert.Equal(t, "9", textOf(t, r))
	in.empty(t)
}
