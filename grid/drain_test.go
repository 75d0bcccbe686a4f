//go:build !race && unix

// Built without -race: see main_test.go; unix for the gate server's FIFOs.

package grid

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/internal/fixture/testremote"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// spawnGateGrain spawns a grain served by the gate server, and returns
// with it a channel that receives when the grain begins to drain (its
// debug log line says so).
func spawnGateGrain(t *testing.T, host *actor.ActorSystem, drainTimeout time.Duration) (*actor.PID, <-chan struct{}) {
	t.Helper()
	draining := make(chan struct{}, 1)
	core, _ := observer.New(zap.DebugLevel)
	logger := zap.New(core, zap.Hooks(func(e zapcore.Entry) error {
		if e.Message == "mcp grain draining its calls in flight" {
			select {
			case draining <- struct{}{}:
			default:
			}
		}
		return nil
	}))
	cmd, args := GateCommand(t)
	server := transport.NewStdio(cmd, args...)
	server.Env = []string{testserver.FastExitEnv}
	pid := spawnGrainOf(t, host, server, WithDrainTimeout(drainTimeout), WithPluginOptions(plugin.WithLogger(logger)))
	return pid, draining
}

// awaitDrain returns once the grain has begun to drain.
func awaitDrain(t *testing.T, draining <-chan struct{}) {
	t.Helper()
	select {
	case <-draining:
	case <-time.After(gateWait):
		t.Fatal("the grain never began to drain")
	}
}

// A grain the cluster stops (a PoisonPill: its member leaves) lets the
// call in flight finish: its caller gets the answer, then the hand-over, in
// that order; a call that arrives meanwhile bounces, to be sent again to
// the grain's next home.
func TestGrainDrainAnswersThenHandsOver(t *testing.T) {
	host, other := testremote.Pair(t)
	pid, draining := spawnGateGrain(t, host, time.Minute)
	in := newInbox(other)
	send := caller(t, other, pid, in)
	send(&messages.AwaitReady{})
	arrived[*messages.Ready](t, in)

	gate := NewGate(t)
	send(&messages.CallTool{ID: 5, Name: "gate", Arguments: gate.ArgsJSON()})
	gate.AwaitStarted(t) // the call is on the server
	host.Root.Poison(pid)
	awaitDrain(t, draining)
	send(&messages.CallTool{ID: 6, Name: "gate", Arguments: json.RawMessage(`{}`)})
	_, dead := in.next(t).(*actor.DeadLetterResponse)
	assert.True(t, dead, "a call to a draining grain bounces")

	gate.Release(t)
	r := arrived[*messages.CallToolReply](t, in)
	assert.Equal(t, uint64(5), r.ID)
	assert.Equal(t, "released", text(t, r), "the call in flight finished")
	arrived[*messages.HandedOver](t, in)
	in.nothingMore(t, send)
}

// A drain lasts the drain timeout at most: a call that does not finish by
// then fails as the connection closes under it, and the hand-over follows.
func TestGrainDrainEndsAtItsTimeout(t *testing.T) {
	host, other := testremote.Pair(t)
	pid, draining := spawnGateGrain(t, host, 200*time.Millisecond)
	in := newInbox(other)
	send := caller(t, other, pid, in)
	send(&messages.AwaitReady{})
	arrived[*messages.Ready](t, in)

	gate := NewGate(t) // never released
	send(&messages.CallTool{ID: 7, Name: "gate", Arguments: gate.ArgsJSON()})
	gate.AwaitStarted(t)
	host.Root.Poison(pid)
	awaitDrain(t, draining)
	r := arrived[*messages.CallToolReply](t, in)
	assert.Equal(t, uint64(7), r.ID)
	require.NotNil(t, r.Failure, "the call did not finish")
	assert.Contains(t, r.Failure.Message, "connection closed")
	arrived[*messages.HandedOver](t, in)
	in.nothingMore(t, send)
}
