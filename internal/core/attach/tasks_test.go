package attach_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/messages"
)

// tasked answers AwaitReady, tells the sender of every call that asked for
// it the call's task, "t-1", and passes the call to calls; with lose, it
// then answers the call as a connection lost under the task.
func tasked(calls chan<- *messages.CallTool, lose bool) *actor.Props {
	return actor.PropsFromFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *messages.AwaitReady:
			c.Respond(&messages.Ready{})
		case *messages.CallTool:
			calls <- m
			if x := tasks.CallOf(m); x != nil && x.Want && x.Resume == nil {
				c.Send(c.Sender(), &messages.CallTask{ID: m.ID, TaskID: "t-1"})
			}
			if lose {
				c.Respond(&messages.CallToolReply{ID: m.ID, Failure: &messages.Failure{Kind: messages.FailureInternal,
					Cause: messages.CauseConnectionLost, Message: "call in flight when the connection ended"}})
			}
		}
	})
}

// twoHomes is a link whose locator finds first, then second.
func twoHomes(t *testing.T, system *actor.ActorSystem, first, second *actor.PID, grace time.Duration) (*attach.Link, *owner) {
	t.Helper()
	var n atomic.Int32
	o := newOwner()
	l := attach.New(attach.Config{System: system, Grace: grace, Owner: o,
		Locate: func(context.Context) (*actor.PID, error) {
			if n.Add(1) == 1 {
				return first, nil
			}
			return second, nil
		}})
	t.Cleanup(l.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := l.AwaitReady(ctx)
	require.NoError(t, err)
	<-o.tools
	return l, o
}

// A call whose connection is lost under its task goes to the actor's next
// home to resume the task by its id, bounded by the task's deadline; the
// tool is not called again there.
func TestALostTaskResumesAtTheNextHome(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	calls, resumed := make(chan *messages.CallTool, 1), make(chan *messages.CallTool, 1)
	first := system.Root.Spawn(tasked(calls, true))
	second := system.Root.Spawn(tasked(resumed, false))
	defer func() { _ = system.Root.StopFuture(first).Wait(); _ = system.Root.StopFuture(second).Wait() }()
	l, _ := twoHomes(t, system, first, second, time.Minute)

	taskDeadline := time.Now().Add(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 4, Name: "work", Deadline: time.Now().Add(time.Minute),
		Ext: &tasks.Call{Deadline: taskDeadline, Limit: "the task timeout"}}))
	assert.True(t, tasks.CallOf(next(t, calls)).Want, "the link asks for the call's task")
	m := next(t, resumed)
	assert.Equal(t, uint64(4), m.ID)
	assert.Equal(t, "work", m.Name)
	require.NotNil(t, tasks.CallOf(m).Resume)
	assert.Equal(t, messages.TaskState{ID: "t-1"}, *tasks.CallOf(m).Resume, "the task by its id; the grain fills in its state")
	assert.True(t, m.Deadline.Equal(taskDeadline))
	assert.Equal(t, "the task timeout", m.Limit)
}

// A call in flight under a task when its actor is lost goes, after the
// grace, to the actor's next home to resume the task, instead of failing.
func TestATaskOfALostActorResumesAfterTheGrace(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	calls, resumed := make(chan *messages.CallTool, 1), make(chan *messages.CallTool, 1)
	first := system.Root.Spawn(tasked(calls, false))
	second := system.Root.Spawn(tasked(resumed, false))
	defer func() { _ = system.Root.StopFuture(second).Wait() }()
	l, o := twoHomes(t, system, first, second, time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 5, Name: "work"}))
	<-calls
	require.Eventually(t, func() bool { return o.tasks.Load() == 1 }, 10*time.Second, time.Millisecond, "the facade hears of the task")
	require.NoError(t, system.Root.StopFuture(first).Wait())
	m := next(t, resumed)
	assert.Equal(t, uint64(5), m.ID)
	require.NotNil(t, tasks.CallOf(m).Resume)
	assert.Equal(t, "t-1", tasks.CallOf(m).Resume.ID)
	select {
	case r := <-o.resolved:
		t.Fatalf("the call was answered: %+v", r)
	default:
	}
}

// next is the next call ch receives, failing t if none comes.
func next(t *testing.T, ch <-chan *messages.CallTool) *messages.CallTool {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no call came")
		return nil
	}
}

// A connection lost under its task while its actor lives on (a stdio
// child that died) sends the call back to the same actor, which answers
// it as a task it cannot resume: the call fails, once, and does not wait
// for another home.
func TestALostTaskOfALiveActorFails(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	calls := make(chan *messages.CallTool, 2)
	pid := system.Root.Spawn(tasked(calls, true))
	defer func() { _ = system.Root.StopFuture(pid).Wait() }()
	l, o := twoHomes(t, system, pid, pid, time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Send(ctx, &messages.CallTool{ID: 6, Name: "work"}))
	assert.Nil(t, tasks.CallOf(next(t, calls)).Resume)
	m := next(t, calls)
	require.NotNil(t, tasks.CallOf(m).Resume, "sent back to resume its task")
	r := o.receive(t)
	assert.Equal(t, uint64(6), r.ID)
	require.NotNil(t, r.Failure)
	assert.Equal(t, messages.CauseConnectionLost, r.Failure.Cause)
}
