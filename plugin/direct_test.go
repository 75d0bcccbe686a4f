package plugin_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// countingCalls is a receiver middleware that counts the tool calls an
// actor receives.
func countingCalls(n *atomic.Int64) actor.ReceiverMiddleware {
	return func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if _, ok := env.Message.(*messages.CallTool); ok {
				n.Add(1)
			}
			next(c, env)
		}
	}
}

func silentActorSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
}

// While the connection is ready, a plugin's calls go straight to the
// connection actor; while it reconnects they go to the supervisor, which
// queues them as before.
func TestReadyCallsSkipTheSupervisor(t *testing.T) {
	leakCheck(t)
	system := silentActorSystem()
	var atSupervisor atomic.Int64
	p := connect(t, testserver.Stdio(t), plugin.WithActorSystem(system),
		plugin.WithBackoff(300*time.Millisecond, 300*time.Millisecond),
		plugin.WithSpawn(func(props *actor.Props) (*actor.PID, error) {
			return system.Root.Spawn(props.Configure(actor.WithReceiverMiddleware(countingCalls(&atSupervisor)))), nil
		}))
	// The supervisor hands out the connection just after it has answered
	// Connect's wait: the first call may still pass through it; once that
	// call is answered, the supervisor is done with becoming ready.
	add := func() { require.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2})) }
	add()
	before := atSupervisor.Load()
	for range 5 {
		add()
	}
	assert.Equal(t, before, atSupervisor.Load(), "ready: no call passes through the supervisor")

	killServer(t, p)
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	res, err := p.CallTool(context.Background(), "add", map[string]any{"a": 2, "b": 2}).Await(context.Background())
	require.NoError(t, err, "a call made while reconnecting waits for the new session")
	assert.Equal(t, "4", plugin.RenderResult(res))
	assert.Equal(t, before+1, atSupervisor.Load(), "reconnecting: the supervisor queued the call")

	awaitRestarts(t, p, 1)
	add()
	before = atSupervisor.Load()
	for range 5 {
		add()
	}
	assert.Equal(t, before, atSupervisor.Load(), "ready again: straight to the new session")
}

// A facade over an actor it did not spawn has no say in that actor's
// children: its calls go to the actor it located.
func TestAttachedCallsGoToTheLocatedActor(t *testing.T) {
	leakCheck(t)
	system := silentActorSystem()
	var atSupervisor atomic.Int64
	props := actors.NewSupervisorProps(actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: testserver.Stdio(t)}})
	pid := system.Root.Spawn(props.Configure(actor.WithReceiverMiddleware(countingCalls(&atSupervisor))))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := attachTo(ctx, system, "attached", func(context.Context) (*actor.PID, error) { return pid, nil })
	require.NoError(t, err)
	defer p.Close()
	for range 3 {
		require.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2}))
	}
	assert.EqualValues(t, 3, atSupervisor.Load())
}
