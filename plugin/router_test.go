package plugin

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/goroutine"
	"github.com/cuca-go/mcpconnector/messages"
)

// What is sent to the router is handled in the sender's goroutine: the
// router is a process without a mailbox, so no goroutine is woken between
// the connection's answer and the caller. A progress notice shows it (its
// handler runs where the router handles it); a reply is on the future's
// channel when Send returns.
func TestRouterHandlesMessagesInTheSendersGoroutine(t *testing.T) {
	system := actor.NewActorSystem()
	defer system.Shutdown()
	r := newCallRouter(system)
	defer r.close()
	var handledOn string
	p := &McpPlugin{}
	p.onProgress = func(Progress) { handledOn = goroutine.ID() }
	f := &Future{p: p, id: 7}
	r.expect(f, nil)
	system.Root.Send(r.pid, &messages.CallProgress{ID: 7, Progress: 1})
	assert.Equal(t, goroutine.ID(), handledOn)
	sent := &messages.CallToolReply{ID: 7}
	system.Root.Send(r.pid, sent)
	select {
	case got := <-f.ch:
		assert.Same(t, sent, got)
	default:
		require.Fail(t, "the reply was not there when Send returned")
	}
}
