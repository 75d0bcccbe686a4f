package reply_test

import (
	"context"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (the stopped actor asked last) that ends by itself
		// one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// Ask returns the actor's answer; a wait that ctx ends returns ctx's error
// and leaves no mailbox registered; a stopped actor's answer is a dead
// letter.
func TestAsk(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	asked := make(chan struct{}, 1)
	pid := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case string:
			if m == "silence" {
				asked <- struct{}{}
				return
			}
			c.Respond("re: " + m)
		}
	}))
	got, err := reply.Ask(context.Background(), system, pid, "hello", reply.Codec{})
	require.NoError(t, err)
	assert.Equal(t, "re: hello", got)

	before := registered(system)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	got, err = reply.Ask(ctx, system, pid, "silence", reply.Codec{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, got)
	assert.Equal(t, before, registered(system), "the mailbox is unregistered")

	require.NoError(t, system.Root.StopFuture(pid).Wait())
	got, err = reply.Ask(context.Background(), system, pid, "anyone?", reply.Codec{})
	require.NoError(t, err)
	assert.IsType(t, &actor.DeadLetterResponse{}, got)
}

// registered counts the processes of system.
func registered(system *actor.ActorSystem) int {
	n := 0
	for _, m := range system.ProcessRegistry.LocalPIDs.LocalPIDs {
		n += m.Count()
	}
	return n
}
