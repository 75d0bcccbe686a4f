package attach_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (remote_test.go's members shutting down) that ends by
		// itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// owner records what a link hands its facade.
type owner struct {
	resolved chan *messages.CallToolReply
	tools    chan *messages.Ready
	lost     chan error
	tasks    atomic.Int32 // CallTasks passed on
}

func newOwner() *owner {
	return &owner{resolved: make(chan *messages.CallToolReply, 8), tools: make(chan *messages.Ready, 8), lost: make(chan error, 8)}
}

func (o *owner) Resolve(r *messages.CallToolReply) { o.resolved <- r }
func (o *owner) Progress(*messages.CallProgress)   {}
func (o *owner) Task(*messages.CallTask)           { o.tasks.Add(1) }
func (o *owner) StoreTools(m *messages.Ready)      { o.tools <- m }
func (o *owner) Lost(cause error)                  { o.lost <- cause }
func (o *owner) Relocated()                        {}
func (o *owner) receive(t *testing.T) *messages.CallToolReply {
	t.Helper()
	select {
	case r := <-o.resolved:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no reply reached the owner")
		return nil
	}
}

// silent answers AwaitReady with an empty list and keeps every call it
// gets without answering: a member that dies with calls in flight.
func silent(calls chan<- *messages.CallTool) *actor.Props {
	return actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.AwaitReady:
			c.Respond(&messages.Ready{})
		case *messages.CallTool:
			calls <- m
		}
	})
}

// A call in flight when the actor is lost gets the grace to be answered,
// and then fails as a lost connection; the facade hears of the loss first.
func TestACallToALostActorFailsAfterTheGrace(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	calls := make(chan *messages.CallTool, 1)
	pid := system.Root.Spawn(silent(calls))
	o := newOwner()
	l := attach.New(attach.Config{System: system, Grace: time.Millisecond, Owner: o,
		Locate: func(context.Context) (*actor.PID, error) { return pid, nil }})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)
	<-o.tools

	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 7, Name: "slow"}))
	assert.Equal(t, uint64(7), (<-calls).ID, "the call reached the actor")
	require.NoError(t, system.Root.StopFuture(pid).Wait())

	assert.ErrorContains(t, <-o.lost, "the member hosting the connection is gone")
	r := o.receive(t)
	assert.Equal(t, uint64(7), r.ID)
	require.NotNil(t, r.Failure)
	assert.Equal(t, messages.CauseConnectionLost, r.Failure.Cause)
	assert.Equal(t, messages.CallOp("slow"), r.Failure.Op)
}

// A call given up is cancelled at the actor it went to.
func TestCancelGoesWhereTheCallWent(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	calls := make(chan *messages.CallTool, 1)
	cancels := make(chan uint64, 1)
	pid := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.AwaitReady:
			c.Respond(&messages.Ready{})
		case *messages.CallTool:
			calls <- m
		case *messages.CancelCall:
			cancels <- m.ID
		}
	}))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	o := newOwner()
	l := attach.New(attach.Config{System: system, Owner: o,
		Locate: func(context.Context) (*actor.PID, error) { return pid, nil }})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)

	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 3, Name: "slow"}))
	<-calls
	l.Cancel(3)
	assert.Equal(t, uint64(3), <-cancels)
}

// Start fails with the actor's own failure, which the facade turns into
// its error.
func TestStartFailsWithTheActorsFailure(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	want := &messages.Failure{Kind: messages.FailureIO, Op: "connect", Message: "no such command"}
	pid := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if _, ok := c.Message().(*messages.AwaitReady); ok {
			c.Respond(want)
		}
	}))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	l := attach.New(attach.Config{System: system, Owner: newOwner(),
		Locate: func(context.Context) (*actor.PID, error) { return pid, nil }})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got *messages.Failure
	_, err := l.AwaitReady(ctx)
	require.ErrorAs(t, err, &got)
	assert.Equal(t, want.Message, got.Message)
}
