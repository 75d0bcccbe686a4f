package plugin

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/messages"
)

// goroutineID is the calling goroutine's number, from its stack's header.
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	return string(b[:bytes.IndexByte(b, ' ')])
}

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
	p.onProgress = func(Progress) { handledOn = goroutineID() }
	f := &Future{p: p, id: 7}
	r.expect(f, nil)
	system.Root.Send(r.pid, &messages.CallProgress{ID: 7, Progress: 1})
	assert.Equal(t, goroutineID(), handledOn)
	sent := &messages.CallToolReply{ID: 7}
	system.Root.Send(r.pid, sent)
	select {
	case got := <-f.ch:
		assert.Same(t, sent, got)
	default:
		require.Fail(t, "the reply was not there when Send returned")
	}
}
