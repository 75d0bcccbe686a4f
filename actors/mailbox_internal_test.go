package actors

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

// goid is the current goroutine's number, from its stack's first line.
func goid() uint64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	n, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return n
}

// seenOn records the goroutine each message was received on.
type seenOn struct {
	mu   sync.Mutex
	on   map[any]uint64
	done chan any
}

func (s *seenOn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *messages.CallTool, string:
		s.mu.Lock()
		s.on[m] = goid()
		s.mu.Unlock()
		s.done <- m
	}
}

func (s *seenOn) goroutine(m any) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on[m]
}

// emptied is told each time the mailbox has become idle.
type emptied chan struct{}

func (e emptied) MailboxEmpty()     { e <- struct{}{} }
func (emptied) MailboxStarted()     {}
func (emptied) MessagePosted(any)   {}
func (emptied) MessageReceived(any) {}

// A tool call that finds a connection's mailbox idle is processed on its
// caller's goroutine, before the send returns; any other message is
// processed on a goroutine of protoactor's, and so is a call sent to a
// mailbox of protoactor's own.
func TestACallRunsTheIdleMailboxOnItsCallersGoroutine(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	for _, tc := range []struct {
		name    string
		mailbox func(...actor.MailboxMiddleware) actor.MailboxProducer
		here    bool
	}{
		{"callerRuns", callerMailbox, true},
		{"protoactor's", actor.Unbounded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &seenOn{on: map[any]uint64{}, done: make(chan any, 4)}
			idle := emptied(make(chan struct{}, 16))
			pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return s }, actor.WithMailbox(tc.mailbox(idle))))
			defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()
			<-idle // started, and idle again

			call := &messages.CallTool{ID: 1, Name: "echo"}
			system.Root.Send(pid, call)
			if tc.here {
				require.Len(t, s.done, 1, "the call was processed before Send returned")
			}
			<-s.done
			assert.Equal(t, tc.here, s.goroutine(call) == goid(), "processed on the caller's goroutine")

			other := "not a call"
			system.Root.Send(pid, other)
			select {
			case <-s.done:
			case <-time.After(time.Minute):
				t.Fatal("the message was never processed")
			}
			assert.NotEqual(t, goid(), s.goroutine(other), "another message runs on a goroutine of its own")
		})
	}
}

// A connection with OnStatus or OnReady, a program's functions, keeps
// protoactor's goroutines for its mailbox.
func TestAnUnsupervisedConnectionKeepsProtoactorsMailbox(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ConnectionConfig
		want bool
	}{
		{"supervised", ConnectionConfig{}, true},
		{"OnStatus", ConnectionConfig{OnStatus: func(State, *messages.Failure) {}}, false},
		{"OnReady", ConnectionConfig{OnReady: func(*messages.Ready) {}}, false},
	} {
		_, runs := mailboxFor(&tc.cfg, &flusher{})().(*callerRuns)
		assert.Equal(t, tc.want, runs, tc.name)
	}
}
