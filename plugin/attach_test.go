package plugin_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/attach"
	"github.com/cuca-go/mcpconnector/internal/core/link"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
)

// movableActor is a supervisor the test can stop and replace, as a
// cluster moves a grain; the locator finds whichever is current.
type movableActor struct {
	t      *testing.T
	system *actor.ActorSystem
	mu     sync.Mutex
	pid    *actor.PID
	finds  int
}

func (m *movableActor) spawn() {
	props := actors.NewSupervisorProps(actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: testserver.Stdio(m.t)}})
	pid := m.system.Root.Spawn(props)
	m.mu.Lock()
	m.pid = pid
	m.mu.Unlock()
}

func (m *movableActor) locate(context.Context) (*actor.PID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finds++
	return m.pid, nil
}

func (m *movableActor) stop() {
	m.mu.Lock()
	pid := m.pid
	m.mu.Unlock()
	_ = m.system.Root.StopFuture(pid).Wait()
}

// A facade over an actor it did not spawn: calls, the hook and tools work;
// when the actor is replaced, the facade finds the new one, and a call that
// bounced off the old one as a dead letter is sent to the new one.
func TestAttachFollowsTheActor(t *testing.T) {
	system := actor.NewActorSystem(actor.WithDeadLetterThrottleInterval(time.Millisecond), quiet.Actors())
	m := &movableActor{t: t, system: system}
	m.spawn()
	defer m.stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := attachTo(ctx, system, "movable", m.locate)
	require.NoError(t, err)
	defer p.Close()
	assert.Len(t, p.Tools(), len(testserver.ToolNames))
	assert.Equal(t, actors.Ready, p.Status().State)
	require.NoError(t, p.WaitReady(ctx), "WaitReady asks the actor the facade is attached to")
	before := callText(t, p, "pid", nil)

	// The actor goes; the facade hears of it (a watch) and is
	// reconnecting until the next call finds the new one.
	m.stop()
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	m.spawn()
	require.NoError(t, p.WaitReady(ctx), "WaitReady finds the new home")
	after := callText(t, p, "pid", nil)
	assert.NotEqual(t, before, after)
	require.Eventually(t, func() bool { return p.Status().State == actors.Ready }, 10*time.Second, time.Millisecond)
	assert.Len(t, p.Tools(), len(testserver.ToolNames), "tools refreshed from the new home")
	assert.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2}))

	// Close leaves the actor running: its owner stops it.
	require.NoError(t, p.Close())
	res, err := system.Root.RequestFuture(m.pid, &messages.AwaitReady{}, 10*time.Second).Result()
	require.NoError(t, err)
	assert.NotNil(t, res)
}

func TestFollowNeedsASystemAndALink(t *testing.T) {
	_, err := plugin.Connect(context.Background(), link.Target{Server: "x"})
	assert.ErrorIs(t, err, plugin.ErrInternal)
	system := actor.NewActorSystem(quiet.Actors())
	defer system.Shutdown()
	_, err = plugin.Connect(context.Background(), link.Target{System: system, Server: "x", NewLink: func(link.Setup) link.Link { return nil }})
	assert.ErrorIs(t, err, plugin.ErrInternal)
}

// attachTo is a facade over the actor locate finds, through package
// grid's facade link.
func attachTo(ctx context.Context, system *actor.ActorSystem, server string, locate attach.Locator, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	return plugin.Connect(ctx, link.Target{System: system, Server: server, NewLink: attach.Follower(system, locate)}, opts...)
}

// A call sent to where the actor was (a dead letter) is sent again to where
// it is, once: it never reached the old one.
func TestAttachResendsADeadLetter(t *testing.T) {
	system := actor.NewActorSystem(actor.WithDeadLetterThrottleInterval(time.Millisecond), quiet.Actors())
	m := &movableActor{t: t, system: system}
	m.spawn()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var stale *actor.PID // returned once, after the actor moved
	locate := func(ctx context.Context) (*actor.PID, error) {
		mu.Lock()
		defer mu.Unlock()
		if stale != nil {
			pid := stale
			stale = nil
			return pid, nil
		}
		return m.locate(ctx)
	}
	p, err := attachTo(ctx, system, "movable", locate)
	require.NoError(t, err)
	defer p.Close()

	old := m.pid
	m.stop()
	require.Eventually(t, func() bool { return p.Status().State == actors.Reconnecting }, 10*time.Second, time.Millisecond)
	m.spawn()
	defer m.stop()
	mu.Lock()
	stale = old
	mu.Unlock()
	finds := m.finds
	assert.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2}))
	mu.Lock()
	assert.Nil(t, stale, "the stale PID was handed out")
	mu.Unlock()
	assert.Equal(t, finds+1, m.finds, "located again after the dead letter")
}

// A caller of an attached facade who gives up just as the answer arrives:
// the call has left the facade's books, and the cancellation still goes to
// the actor (it once went to the local actor's PID, which such a facade
// has not, and the send dereferenced nil). Await's select takes either the
// answer or the end of ctx, so twenty calls take the second at least once
// but for a chance of 2^-20.
func TestAttachedCallGivenUpAsItsAnswerArrives(t *testing.T) {
	system := actor.NewActorSystem(quiet.Actors())
	m := &movableActor{t: t, system: system}
	m.spawn()
	defer m.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := attachTo(ctx, system, "movable", m.locate)
	require.NoError(t, err)
	defer p.Close()

	gaveUp, stop := context.WithCancel(ctx)
	stop()
	var answered, cancelled int
	for range 20 {
		f := p.CallTool(ctx, "add", map[string]any{"a": 1, "b": 2})
		require.Eventually(t, func() bool { return plugin.Answered(f) }, 10*time.Second, time.Millisecond)
		res, err := f.Await(gaveUp)
		if err != nil {
			require.ErrorIs(t, err, context.Canceled)
			cancelled++
			continue
		}
		require.Equal(t, "3", plugin.RenderResult(res))
		answered++
	}
	assert.Equal(t, 20, answered+cancelled)
	assert.NotZero(t, cancelled, "the caller gave up at least once")
	assert.Equal(t, "3", callText(t, p, "add", map[string]any{"a": 1, "b": 2}), "the facade goes on working")
}
