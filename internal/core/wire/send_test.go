package wire_test

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A PID is elsewhere only when its address is neither the system's nor
// the address of a system without remote.
func TestRemoteIsAnotherAddress(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	assert.False(t, wire.Remote(system, nil))
	assert.False(t, wire.Remote(system, actor.NewPID(system.Address(), "a")))
	assert.False(t, wire.Remote(system, actor.NewPID("nonhost", "a")), "a PID of a system without remote is local")
	assert.True(t, wire.Remote(system, actor.NewPID("127.0.0.1:8090", "a")))
}

// To a local actor a message goes as it is, the very same value; to one
// elsewhere a message of the protocol goes as its wire form, and anything
// else as it is.
func TestForConvertsOnlyWhatLeaves(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	local, far := actor.NewPID(system.Address(), "a"), actor.NewPID("127.0.0.1:8090", "a")
	call := &messages.CallTool{ID: 4, Name: "add"}
	assert.Same(t, call, wire.For(system, local, call))
	assert.Same(t, call, wire.For(system, nil, call))
	w, ok := wire.For(system, far, call).(*wire.WireCallTool)
	require.True(t, ok)
	assert.Equal(t, uint64(4), w.Id)
	dead := &actor.DeadLetterResponse{}
	assert.Same(t, dead, wire.For(system, far, dead), "protoactor's own messages are protobuf already")

	assert.Equal(t, call, wire.Plain(w))
	assert.Same(t, call, wire.Plain(call))
	assert.Same(t, dead, wire.Plain(dead))
}

// Send, Request and Respond deliver to a local actor the message itself.
func TestLocalSendsAreUntouched(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	got := make(chan any, 4)
	pid := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.AwaitReady:
			got <- m
			wire.Respond(c, &messages.Ready{ProtocolVersion: "2026-07-28"})
		case *messages.CancelCall, *messages.Ready:
			got <- m
		}
	}))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	cancel := &messages.CancelCall{ID: 1}
	wire.Send(system, pid, cancel)
	assert.Same(t, cancel, <-got)
	ask := &messages.AwaitReady{}
	wire.Request(system, pid, ask, pid) // the answer comes back to the actor itself
	assert.Same(t, ask, <-got)
	r, ok := (<-got).(*messages.Ready)
	require.True(t, ok)
	assert.Equal(t, "2026-07-28", r.ProtocolVersion)
}
