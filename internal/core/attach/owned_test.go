package attach_test

import (
	"context"
	"errors"
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

// Every goroutine a link starts is its own: Close ends it and waits for
// it, so that nothing of the link runs once Close has returned. Each test
// here starts one kind of them, makes sure it runs, closes the link and
// checks that no goroutine is left.

// noneLeftAfter returns a check that fails t when a goroutine started
// after it was made is still running.
func noneLeftAfter(t *testing.T) func() {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	return func() {
		t.Helper()
		goleak.VerifyNone(t, ignore,
			goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
	}
}

// locations counts the locator's calls, on a channel.
type locations chan struct{}

func (l locations) wait(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-l:
		case <-time.After(30 * time.Second):
			t.Fatalf("the locator was not called %d times", n)
		}
	}
}

// A call that bounced as a dead letter is sent again to the actor's next
// home, which the link looks for until the call's deadline (a minute
// here). Close ends the search, and Release runs after it.
func TestCloseEndsAResendStillLooking(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	check := noneLeftAfter(t)
	dead := system.Root.Spawn(actor.PropsFromFunc(func(actor.Context) {}))
	require.NoError(t, system.Root.StopFuture(dead).Wait())
	located := make(locations, 64)
	released := make(chan struct{})
	l := attach.New(attach.Config{System: system, Owner: newOwner(), Release: func() { close(released) },
		Locate: func(ctx context.Context) (*actor.PID, error) {
			select {
			case located <- struct{}{}:
			default:
			}
			return dead, nil // never another home
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 1, Name: "add", Deadline: time.Now().Add(time.Minute)}))
	// The send located once; the resend, after the dead letter, again.
	located.wait(t, 2)
	l.Close()
	select {
	case <-released:
	default:
		t.Fatal("Close returned before running Release")
	}
	check()
}

// A listing the actor never answers is waited for (up to its timeout) on
// a goroutine of the link's: Close ends it, and retry is not called.
func TestCloseEndsARefreshWaitingForTheActor(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	check := noneLeftAfter(t)
	refreshes := make(chan struct{}, 1)
	pid := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		switch c.Message().(type) {
		case *messages.AwaitReady:
			c.Respond(&messages.Ready{})
		case *messages.RefreshTools:
			refreshes <- struct{}{} // and no answer
		}
	}))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	l := attach.New(attach.Config{System: system, Owner: newOwner(),
		Locate: func(context.Context) (*actor.PID, error) { return pid, nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)

	retried := make(chan struct{}, 1)
	l.RefreshTools(func() { retried <- struct{}{} })
	select {
	case <-refreshes:
	case <-ctx.Done():
		t.Fatal("the refresh never reached the actor")
	}
	l.Close()
	check()
	select {
	case <-retried:
		t.Fatal("a closed link retried its listing")
	default:
	}
}

// The calls in flight to an actor reported lost wait out their grace (a
// minute here) on a goroutine of the link's: Close ends it.
func TestCloseEndsTheGraceOfALoss(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	check := noneLeftAfter(t)
	calls := make(chan *messages.CallTool, 1)
	pid := system.Root.Spawn(silent(calls))
	o := newOwner()
	l := attach.New(attach.Config{System: system, Grace: time.Minute, Owner: o,
		Locate: func(context.Context) (*actor.PID, error) { return pid, nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 7, Name: "slow"}))
	<-calls
	require.NoError(t, system.Root.StopFuture(pid).Wait())
	require.Error(t, <-o.lost, "the link heard of the loss")
	l.Close()
	check()
}

// A link that found its actor again lists the new home's tools on a
// goroutine of its own; Close ends that listing when the new home never
// answers it.
func TestCloseEndsTheListingOfANewHome(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	check := noneLeftAfter(t)
	first := system.Root.Spawn(silent(make(chan *messages.CallTool, 1)))
	asked := make(chan struct{}, 4)
	second := system.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if _, ok := c.Message().(*messages.AwaitReady); ok {
			asked <- struct{}{} // and no answer
		}
	}))
	defer func() { _ = system.Root.StopFuture(second).Wait() }()
	homes := make(chan *actor.PID, 2)
	homes <- first
	homes <- second
	o := newOwner()
	l := attach.New(attach.Config{System: system, Owner: o,
		Locate: func(ctx context.Context) (*actor.PID, error) {
			select {
			case pid := <-homes:
				return pid, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)
	require.NoError(t, system.Root.StopFuture(first).Wait())
	require.Error(t, <-o.lost)
	// The next call locates the second home, whose listing starts.
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 1, Name: "add"}))
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the new home was never asked for its tools")
	}
	l.Close()
	check()
}

// Close may be called again; the second call does nothing, and a link
// closed starts nothing.
func TestCloseTwiceAndAfter(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	check := noneLeftAfter(t)
	releases := 0
	l := attach.New(attach.Config{System: system, Owner: newOwner(), Release: func() { releases++ },
		Locate: func(context.Context) (*actor.PID, error) { return nil, errors.New("nothing here") }})
	l.Close()
	l.Close()
	assert.Equal(t, 1, releases)
	retried := false
	l.RefreshTools(func() { retried = true })
	check()
	assert.False(t, retried)
}
