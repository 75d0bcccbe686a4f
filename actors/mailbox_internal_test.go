package actors

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/goroutine"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

// seenOn records the goroutine each message was received on.
type seenOn struct {
	mu   sync.Mutex
	on   map[any]string
	done chan any
}

func (s *seenOn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *messages.CallTool, string:
		s.mu.Lock()
		s.on[m] = goroutine.ID()
		s.mu.Unlock()
		s.done <- m
	}
}

func (s *seenOn) goroutine(m any) string {
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
			s := &seenOn{on: map[any]string{}, done: make(chan any, 4)}
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
			assert.Equal(t, tc.here, s.goroutine(call) == goroutine.ID(), "processed on the caller's goroutine")

			other := "not a call"
			system.Root.Send(pid, other)
			select {
			case <-s.done:
			case <-time.After(time.Minute):
				t.Fatal("the message was never processed")
			}
			assert.NotEqual(t, goroutine.ID(), s.goroutine(other), "another message runs on a goroutine of its own")
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

// counted counts the messages it receives, and fails on two at once.
type counted struct {
	in    atomic.Bool
	twice atomic.Bool
	n     atomic.Int64
	last  map[int]int // sender → last sequence number seen
	order atomic.Bool // a sender's messages came out of order
	all   chan struct{}
	want  int64
}

type seq struct{ from, n int }

func (c *counted) Receive(ctx actor.Context) {
	var s seq
	switch m := ctx.Message().(type) {
	case *messages.CallTool:
		s = seq{int(m.ID >> 32), int(m.ID & 0xffffffff)}
	case seq:
		s = m
	default:
		return
	}
	if !c.in.CompareAndSwap(false, true) {
		c.twice.Store(true)
	}
	if c.last[s.from] >= s.n {
		c.order.Store(true)
	}
	c.last[s.from] = s.n
	c.in.Store(false)
	if c.n.Add(1) == c.want {
		close(c.all)
	}
}

// Calls and other messages posted at once from many goroutines are each
// processed once, one at a time, each sender's in order, and none is left
// in the mailbox: every run scheduled is started.
func TestCallerRunsLosesNoMessageUnderConcurrentPosts(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	const senders, each = 8, 2000
	c := &counted{last: map[int]int{}, all: make(chan struct{}), want: senders * each}
	pid := system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return c }, actor.WithMailbox(callerMailbox())))
	defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()
	var wg sync.WaitGroup
	for from := 1; from <= senders; from++ {
		wg.Go(func() {
			for n := 1; n <= each; n++ {
				if n%3 == 0 {
					system.Root.Send(pid, seq{from, n})
				} else {
					system.Root.Send(pid, &messages.CallTool{ID: uint64(from)<<32 | uint64(n)})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-c.all:
	case <-time.After(time.Minute):
		t.Fatalf("%d of %d messages processed", c.n.Load(), c.want)
	}
	assert.False(t, c.twice.Load(), "two messages processed at once")
	assert.False(t, c.order.Load(), "a sender's messages out of order")
}
