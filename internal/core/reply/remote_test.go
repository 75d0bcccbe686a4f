//go:build !race

// protoactor-go's remote.Start writes grpc's global logger, which the race
// detector reports when two remotes share a process: this file builds
// without -race.

package reply_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/internal/fixture/testremote"
	"github.com/cuca-go/mcpconnector/messages"
)

// Asking an actor on another member with grid's codec (the wire forms):
// the question leaves in its wire form and the answer, a wire form, comes
// back as its plain message.
func TestAskAcrossRemote(t *testing.T) {
	host, caller := testremote.Pair(t)
	seen := make(chan string, 1)
	pid := host.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case actor.SystemMessage, actor.AutoReceiveMessage:
			return
		}
		seen <- fmt.Sprintf("%T", c.Message())
		w, _ := wire.ToWire(&messages.Failure{Kind: messages.FailureIO, Op: "connect", Message: "no such command",
			Cause: messages.CauseNotStarted})
		c.Respond(w)
	}))
	t.Cleanup(func() { _ = host.Root.StopFuture(pid).Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A PID of the caller's own, as another member has: a PID caches the
	// process it resolves to.
	got, err := reply.Ask(ctx, caller, actor.NewPID(pid.Address, pid.Id), &messages.Reconnect{}, wire.Codec)
	require.NoError(t, err)
	assert.Equal(t, "*wire.WireReconnect", <-seen, "the question crossed as its wire form")
	f, ok := got.(*messages.Failure)
	require.True(t, ok, "got %T", got)
	assert.Equal(t, &messages.Failure{Kind: messages.FailureIO, Op: "connect", Message: "no such command",
		Cause: messages.CauseNotStarted}, f)
}
