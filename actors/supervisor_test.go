package actors_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// The supervisor's tests run in synctest bubbles: its backoff, cool-down
// and reconnection wait run on the bubble's clock, which moves only when
// every goroutine of the test is blocked, so a test says exactly when a
// timer may fire and sees what is due at that instant after synctest.Wait.

// drainStatuses returns the statuses OnStatus has told so far.
func drainStatuses(ch chan string) []string {
	var got []string
	for {
		select {
		case s := <-ch:
			got = append(got, s)
		default:
			return got
		}
	}
}

// OnStatus and OnReady are told in order: Connecting, then the tools, then
// Ready; a lost session is Reconnecting with one restart, nothing opens
// again before the backoff, and after it the new session's tools come
// before Ready.
func TestSupervisorTellsStatusAndToolsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		events := make(chan string, 64)
		startSupervisor(t, actors.WithoutJitter(actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
			OnStatus: func(st actors.Status) {
				events <- fmt.Sprintf("status %s restarts=%d", st.State, st.Restarts)
			},
			OnReady: func(r *messages.Ready) { events <- fmt.Sprintf("tools %d", len(r.Tools)) },
		}))
		synctest.Wait()
		tools := fmt.Sprintf("tools %d", len(testserver.ToolNames))
		assert.Equal(t, []string{"status connecting restarts=0", tools, "status ready restarts=0"}, drainStatuses(events))

		mem.kill()
		synctest.Wait()
		assert.Equal(t, []string{"status reconnecting restarts=1"}, drainStatuses(events))
		time.Sleep(time.Second - time.Millisecond) // the backoff is InitialBackoff without its jitter
		synctest.Wait()
		assert.Equal(t, 1, mem.opened(), "no new session before the backoff")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{tools, "status ready restarts=1"}, drainStatuses(events))
		assert.Equal(t, 2, mem.opened())
	})
}

// The backoff doubles with each failure in a row: the first restart comes
// within [InitialBackoff, 1.25·InitialBackoff] of the loss (its jitter adds
// up to a quarter), the second, after a refused attempt, within
// [2·InitialBackoff, 2.5·InitialBackoff] of the first; each counts as a
// restart.
func TestSupervisorBackoffDoublesAcrossFailedRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Minute,
		})
		sts.until(t, actors.Ready)
		mem.mu.Lock()
		mem.refuse = []error{errors.New("not back yet")}
		mem.mu.Unlock()
		lostAt := time.Now()
		mem.kill()

		assert.Equal(t, actors.Status{State: actors.Reconnecting, Restarts: 1}, withoutFailure(sts.next(t)))
		second := sts.next(t)
		assert.Equal(t, actors.Reconnecting, second.State)
		assert.Equal(t, 2, second.Restarts)
		require.NotNil(t, second.LastFailure)
		assert.Contains(t, second.LastFailure.Message, "not back yet")
		back := sts.until(t, actors.Ready)
		assert.Equal(t, 2, back.Restarts)

		mem.mu.Lock()
		at := mem.openedAt
		mem.mu.Unlock()
		require.Len(t, at, 3)
		first, then := at[1].Sub(lostAt), at[2].Sub(at[1])
		assert.True(t, first >= time.Second && first <= 5*time.Second/4, "first backoff %s", first)
		assert.True(t, then >= 2*time.Second && then <= 5*time.Second/2, "second backoff %s", then)

		reply := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add", Arguments: []byte(`{"a":1,"b":1}`)}).(*messages.CallToolReply)
		assert.Equal(t, "2", textOf(t, reply))
	})
}

func withoutFailure(st actors.Status) actors.Status {
	st.LastFailure, st.LastFailureAt = nil, time.Time{}
	return st
}

// What no restart mends is final, with or without RetryConnect, whether it
// comes first or after a lost session: Failed, no retry however long one
// waits, calls failed at once with the cause; a Reconnect dials once more
// and answers with the outcome.
func TestSupervisorFinalFailureWaitsForReconnect(t *testing.T) {
	spawnErr := &transport.SpawnError{Command: "no-such-server", Err: os.ErrNotExist}
	cases := []struct {
		name      string
		mem       *memory
		afterLoss bool // the failure comes when a ready session is lost
		is        func(*messages.Failure) bool
		recovers  bool // the Reconnect's attempt finds a server
	}{
		{name: "a server that refuses 2026-07-28", mem: &memory{legacy: true},
			is: func(f *messages.Failure) bool { return f.Cause == messages.CauseProtocolVersion }},
		{name: "a command that cannot start", mem: &memory{refuse: []error{spawnErr}}, recovers: true,
			is: func(f *messages.Failure) bool { return f.Kind == messages.FailureIO }},
		{name: "a transport that cannot work", mem: &memory{refuse: []error{transport.ErrNotSupported}}, recovers: true,
			is: func(f *messages.Failure) bool { return f.Kind == messages.FailureNotSupported }},
		{name: "a command that cannot start again after a lost session", mem: &memory{}, afterLoss: true, recovers: true,
			is: func(f *messages.Failure) bool { return f.Kind == messages.FailureIO }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := tc.mem
				t.Cleanup(mem.closeAll)
				system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
					Connection:   actors.ConnectionConfig{Transport: mem},
					RetryConnect: true, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
					CoolDown: time.Second, MaxCoolDown: time.Second,
				})
				assert.Equal(t, actors.Connecting, sts.next(t).State)
				restarts := 0
				if tc.afterLoss {
					require.Equal(t, actors.Ready, sts.next(t).State)
					mem.refuseAll(spawnErr)
					mem.kill()
					restarts = 1
				}
				failed := sts.until(t, actors.Failed)
				require.NotNil(t, failed.LastFailure)
				assert.True(t, tc.is(failed.LastFailure), "cause: %+v", failed.LastFailure)
				assert.False(t, failed.LastFailure.CircuitOpen)
				assert.Equal(t, restarts, failed.Restarts)
				opens := mem.opened()

				time.Sleep(time.Hour) // far past every backoff and cool-down
				synctest.Wait()
				assert.Equal(t, opens, mem.opened(), "not retried")
				reply := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add"}).(*messages.CallToolReply)
				require.NotNil(t, reply.Failure)
				assert.True(t, tc.is(reply.Failure), "the call fails with the cause: %+v", reply.Failure)
				assert.Equal(t, messages.CallOp("add"), reply.Failure.Op)

				mem.refuseAll(nil)
				res := ask(t, system, pid, &messages.Reconnect{})
				assert.Equal(t, opens+1, mem.opened(), "a Reconnect dials once")
				if !tc.recovers {
					f, ok := res.(*messages.Failure)
					require.True(t, ok, "got %T", res)
					assert.True(t, tc.is(f))
					assert.Equal(t, actors.Failed, sts.until(t, actors.Failed).State)
					time.Sleep(time.Hour)
					synctest.Wait()
					assert.Equal(t, opens+1, mem.opened(), "still not retried")
					return
				}
				_, ok := res.(*messages.Ready)
				require.True(t, ok, "got %T", res)
				assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
				reply = ask(t, system, pid, &messages.CallTool{ID: 2, Name: "add", Arguments: []byte(`{"a":2,"b":3}`)}).(*messages.CallToolReply)
				assert.Equal(t, "5", textOf(t, reply))
			})
		})
	}
}

// Past the restart budget the breaker opens: Failed, calls fail at once
// with the circuit-open cause, nothing dials during the cool-down; after
// it one reconnection is tried, and when that fails too the breaker opens
// for another cool-down (CoolDown again in the outage's first minute;
// TestSupervisorFollowsTheSchedule follows it past); the try that succeeds
// closes the breaker, so that the next loss restarts again.
func TestSupervisorBreakerOpensPastTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		system, pid, sts := spawnSupervisor(t, actors.WithoutJitter(actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
			MaxRestarts: 2, RestartWindow: time.Hour,
			CoolDown: 10 * time.Second, MaxCoolDown: 15 * time.Second,
		}))
		sts.until(t, actors.Ready)
		mem.refuseAll(errors.New("server down"))
		mem.kill()

		open := sts.until(t, actors.Failed)
		require.NotNil(t, open.LastFailure)
		assert.True(t, open.LastFailure.CircuitOpen)
		assert.Contains(t, open.LastFailure.Message, "circuit open: 2 restarts failed")
		assert.Contains(t, open.LastFailure.Message, "(in 10s)")
		assert.Contains(t, open.LastFailure.Message, "server down")
		assert.Equal(t, 2, open.Restarts)
		assert.Equal(t, 3, mem.opened(), "the first session and the two restarts of the budget")

		reply := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add"}).(*messages.CallToolReply)
		require.NotNil(t, reply.Failure)
		assert.True(t, reply.Failure.CircuitOpen, "a call fails at once with the circuit open")

		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 3, mem.opened(), "nothing dials during the cool-down")
		time.Sleep(time.Millisecond)
		assert.Equal(t, actors.Reconnecting, sts.next(t).State, "the cool-down's one try")
		again := sts.until(t, actors.Failed)
		assert.Equal(t, 3, again.Restarts, "the try counts as a restart")
		assert.True(t, again.LastFailure.CircuitOpen)
		assert.Contains(t, again.LastFailure.Message, "the reconnection after the cool-down failed too")
		assert.Contains(t, again.LastFailure.Message, "(in 10s)", "CoolDown again: the outage is 10s old")
		assert.Equal(t, 4, mem.opened(), "one try per cool-down")

		mem.refuseAll(nil)
		time.Sleep(10*time.Second - time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 4, mem.opened())
		time.Sleep(time.Millisecond)
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		back := sts.next(t)
		assert.Equal(t, actors.Ready, back.State)
		assert.Equal(t, 4, back.Restarts)
		reply = ask(t, system, pid, &messages.CallTool{ID: 2, Name: "add", Arguments: []byte(`{"a":1,"b":2}`)}).(*messages.CallToolReply)
		assert.Equal(t, "3", textOf(t, reply))

		// Closed again: a loss restarts after backoff, not after a cool-down.
		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		assert.Equal(t, actors.Ready, sts.next(t).State)
	})
}

// reconnectingBehindGate spawns a supervisor of cfg over a memory server
// whose every Open after the first waits for a value of gate, and cuts its
// first session: the supervisor is Reconnecting, its next attempt held at
// the gate. The gate is closed when the test ends.
func reconnectingBehindGate(t *testing.T, cfg actors.SupervisorConfig) (*actor.ActorSystem, *actor.PID, states, *memory, chan struct{}) {
	t.Helper()
	mem := &memory{}
	t.Cleanup(mem.closeAll)
	gate := make(chan struct{}, 1)
	gate <- struct{}{} // the first session opens at once
	cfg.Connection.Transport = gatedTransport{mem, gate}
	system, pid, sts := spawnSupervisor(t, cfg)
	t.Cleanup(func() { close(gate) })
	sts.until(t, actors.Ready)
	mem.kill()
	assert.Equal(t, actors.Reconnecting, sts.next(t).State)
	return system, pid, sts, mem, gate
}

// A call that arrives while reconnecting waits in the supervisor, through
// the backoff and the attempt, and is answered by the next session.
func TestSupervisorQueuesACallWhileReconnecting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		system, pid, sts, mem, gate := reconnectingBehindGate(t, actors.SupervisorConfig{
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})

		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 9, Name: "add", Arguments: []byte(`{"a":4,"b":5}`)})
		time.Sleep(time.Second) // past the backoff: the attempt waits at the gate
		synctest.Wait()
		assert.Equal(t, 1, mem.opened(), "the attempt has not opened yet")
		in.empty(t)

		gate <- struct{}{}
		reply := in.reply(t)
		assert.Equal(t, uint64(9), reply.ID)
		assert.Equal(t, "9", textOf(t, reply))
		assert.Equal(t, actors.Ready, sts.next(t).State)
	})
}

// A call waits for a reconnection no longer than ReconnectWait, or its own
// deadline if sooner; its failure names both limits.
func TestSupervisorReconnectWaitEndsAQueuedCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		system, pid, _, _, _ := reconnectingBehindGate(t, actors.SupervisorConfig{
			InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
			ReconnectWait: 5 * time.Second,
		})

		in := newInbox(t, system)
		start := time.Now()
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "add", Deadline: start.Add(time.Minute), Limit: "the call timeout of 1m"})
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "add", Deadline: start.Add(2 * time.Second), Limit: "the tool timeout of 2s"})

		first := in.reply(t)
		assert.Equal(t, uint64(2), first.ID, "the call with the nearer deadline ends first")
		assert.Equal(t, 2*time.Second, time.Since(start))
		second := in.reply(t)
		assert.Equal(t, uint64(1), second.ID)
		assert.Equal(t, 5*time.Second, time.Since(start))
		for _, r := range []*messages.CallToolReply{first, second} {
			require.NotNil(t, r.Failure)
			assert.ErrorIs(t, r.Failure, context.DeadlineExceeded)
			assert.Contains(t, r.Failure.Message, "reconnection wait of 5s (WithReconnectWait)")
		}
		assert.Contains(t, first.Failure.Message, "the tool timeout of 2s")
		assert.Contains(t, second.Failure.Message, "the call timeout of 1m")
	})
}

// WatchTools senders hear of every new list, the reconnection's too, until
// UnwatchTools; RefreshTools is answered with the list, and while
// reconnecting with the list in force.
func TestSupervisorWatchersHearOfEveryList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: func() *mcp.Server { return testserver.NewControlsServer(testserver.ControlsOptions{}) }}
		t.Cleanup(mem.closeAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})
		sts.until(t, actors.Ready)
		w := newInbox(t, system)
		w.send(system, pid, &messages.WatchTools{})

		add := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add_tool", Arguments: []byte(`{"name":"extra"}`)}).(*messages.CallToolReply)
		require.Equal(t, "added extra", textOf(t, add))
		refreshed, ok := ask(t, system, pid, &messages.RefreshTools{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(refreshed), "extra")
		told, ok := w.next(t).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(told), "extra", "the watcher hears of the new list")

		mem.kill() // the next session's server is new: no "extra"
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		inForce, ok := ask(t, system, pid, &messages.RefreshTools{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(inForce), "extra", "while reconnecting, the list in force")
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		told, ok = w.next(t).(*messages.Ready)
		require.True(t, ok)
		assert.Equal(t, testserver.ControlsToolNames, toolNames(told), "the reconnection's list")

		w.send(system, pid, &messages.UnwatchTools{})
		add = ask(t, system, pid, &messages.CallTool{ID: 2, Name: "add_tool", Arguments: []byte(`{"name":"later"}`)}).(*messages.CallToolReply)
		require.Equal(t, "added later", textOf(t, add))
		refreshed, ok = ask(t, system, pid, &messages.RefreshTools{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(refreshed), "later")
		synctest.Wait()
		w.empty(t)
	})
}

// FinishCalls is answered once the calls in flight are done, and not
// before: the call's answer comes first, CallsFinished after it, with
// nothing unsent; meanwhile the supervisor answers as usual.
func TestSupervisorFinishCallsWaitsForTheCallsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}})
		sts.until(t, actors.Ready)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 5, Name: "block", Arguments: []byte(`{"tag":"a"}`)})
		assert.Equal(t, "a", recv(t, b.entered, "the call reaches the server"))

		in.send(system, pid, &hostmsg.FinishCalls{})
		synctest.Wait()
		in.empty(t)
		_, ready := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
		assert.True(t, ready, "the supervisor answers while its connection finishes its calls")
		later := newInbox(t, system)
		later.send(system, pid, &messages.CallTool{ID: 6, Name: "block", Arguments: []byte(`{"tag":"later"}`)})
		assert.Equal(t, "later", recv(t, b.entered, "a call sent after FinishCalls is served"))
		synctest.Wait()
		in.empty(t)

		b.releaseAll()
		reply := in.reply(t)
		assert.Equal(t, uint64(5), reply.ID)
		assert.Equal(t, "released a", textOf(t, reply))
		done, ok := in.next(t).(*hostmsg.CallsFinished)
		require.True(t, ok, "CallsFinished after the answer")
		assert.Empty(t, done.Unsent)
		assert.Equal(t, "released later", textOf(t, later.reply(t)))
		synctest.Wait()
		in.empty(t)
	})
}

// Each FinishCalls is answered for the calls sent before it: a second one,
// sent after a call that is still in flight, is not answered with the
// first, whose calls were done.
func TestSupervisorFinishCallsAnswersEachInTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}})
		sts.until(t, actors.Ready)
		first, caller, second := newInbox(t, system), newInbox(t, system), newInbox(t, system)
		first.send(system, pid, &hostmsg.FinishCalls{})
		caller.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"b"}`)})
		second.send(system, pid, &hostmsg.FinishCalls{})
		_, ok := first.next(t).(*hostmsg.CallsFinished)
		assert.True(t, ok, "nothing was in flight before the first")
		assert.Equal(t, "b", recv(t, b.entered, "the call reaches the server"))
		synctest.Wait()
		second.empty(t)

		b.releaseAll()
		assert.Equal(t, "released b", textOf(t, caller.reply(t)))
		_, ok = second.next(t).(*hostmsg.CallsFinished)
		assert.True(t, ok, "the second, once the call sent before it is done")
	})
}

// While a supervisor waits for a reconnection, FinishCalls takes out the
// calls it holds and hands them back unsent, with their senders, at once:
// no one answers them afterwards.
func TestSupervisorFinishCallsHandsBackQueuedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		system, pid, sts, _, gate := reconnectingBehindGate(t, actors.SupervisorConfig{
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})
		caller := newInbox(t, system)
		caller.send(system, pid, &messages.CallTool{ID: 1, Name: "add"})
		synctest.Wait()
		caller.empty(t)

		done, ok := ask(t, system, pid, &hostmsg.FinishCalls{}).(*hostmsg.CallsFinished)
		require.True(t, ok)
		require.Len(t, done.Unsent, 1)
		assert.Equal(t, uint64(1), done.Unsent[0].Call.ID)
		assert.True(t, done.Unsent[0].Sender.Equal(caller.pid), "the call's own sender")
		gate <- struct{}{}
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		synctest.Wait()
		caller.empty(t)
	})
}

// A call in flight when the session dies has failed in the child: lost,
// never re-sent, unless RetryIdempotent allows it for its tool, which the
// next session then runs again and answers.
func TestSupervisorRetriesOnlyIdempotentCallsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem, RetryIdempotent: true},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})
		sts.until(t, actors.Ready)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"once"}`)})
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block_idempotent", Arguments: []byte(`{"tag":"again"}`)})
		entered := []string{recv(t, b.entered, "a call"), recv(t, b.entered, "a call")}
		assert.ElementsMatch(t, []string{"once", "again"}, entered)

		mem.kill()
		lost := in.reply(t)
		assert.Equal(t, uint64(1), lost.ID)
		require.NotNil(t, lost.Failure)
		assert.Equal(t, messages.CauseConnectionLost, lost.Failure.Cause)
		synctest.Wait()
		in.empty(t) // the idempotent call waits for the next session

		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.Equal(t, "again", recv(t, b.entered, "the idempotent call, run again"))
		b.releaseAll()
		again := in.reply(t)
		assert.Equal(t, uint64(2), again.ID)
		assert.Equal(t, "released again", textOf(t, again))
		synctest.Wait()
		assert.Empty(t, b.entered, "the other call ran once")
	})
}

// A call cancelled while it waits for a reconnection leaves the queue: it
// never reaches the next session and is not answered.
func TestSupervisorCancelsAQueuedCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, mem, system, pid, sts := readyBlocked(t, false)
		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"cancelled"}`)})
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block", Arguments: []byte(`{"tag":"kept"}`)})
		in.send(system, pid, &messages.CancelCall{ID: 1})
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.Equal(t, "kept", recv(t, b.entered, "the call kept"))
		b.releaseAll()
		r := in.reply(t)
		assert.Equal(t, uint64(2), r.ID)
		synctest.Wait()
		in.empty(t)
		assert.Empty(t, b.entered, "the cancelled call never reached the server")
	})
}

// A Reconnect to a ready supervisor is answered with its tools at once,
// and dials nothing.
func TestSupervisorReconnectWhenReadyDialsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}})
		sts.until(t, actors.Ready)
		r, ok := ask(t, system, pid, &messages.Reconnect{}).(*messages.Ready)
		require.True(t, ok)
		assert.Equal(t, testserver.ToolNames, toolNames(r))
		synctest.Wait()
		assert.Equal(t, 1, mem.opened())
		assert.Empty(t, sts, "no change of state")
	})
}

// A supervisor that stops while calls wait for a reconnection fails them
// as closed (a host that would rather send them elsewhere asks FinishCalls
// first), and AwaitReady, Reconnect and every later state say it is
// closed.
func TestSupervisorStoppingFailsQueuedCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		gate := make(chan struct{}, 1)
		gate <- struct{}{}
		t.Cleanup(func() { close(gate) })
		system := actor.NewActorSystem(quiet.Actors())
		t.Cleanup(system.Shutdown)
		sts := make(states, 64)
		pid := system.Root.Spawn(actors.NewSupervisorProps(actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: gatedTransport{mem, gate}},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
			OnStatus: func(st actors.Status) { sts <- st },
		}))
		sts.until(t, actors.Ready)
		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "add"})
		in.send(system, pid, &messages.Reconnect{})
		synctest.Wait()
		in.empty(t)

		require.NoError(t, system.Root.StopFuture(pid).Wait())
		got := []any{in.next(t), in.next(t)}
		var failed, closed bool
		for _, m := range got {
			switch m := m.(type) {
			case *messages.CallToolReply:
				failed = m.ID == 1 && m.Failure != nil && strings.Contains(m.Failure.Message, "connection closed")
			case *messages.Failure:
				closed = strings.Contains(m.Message, "connection closed")
			}
		}
		assert.True(t, failed, "the queued call fails as closed: %v", got)
		assert.True(t, closed, "the Reconnect hears the supervisor closed: %v", got)
		assert.Equal(t, actors.Closed, sts.until(t, actors.Closed).State)
	})
}

// hostmsg.WatchDirect's Notify is given the connection once it is ready (after the calls
// queued meanwhile went to it) and nil as soon as it is not; the PID it
// gives serves calls.
func TestSupervisorWatchDirectFollowsTheState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		direct := make(chan *actor.PID, 16)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})
		system.Root.Send(pid, &hostmsg.WatchDirect{Notify: func(conn *actor.PID) { direct <- conn }})
		sts.until(t, actors.Ready)
		synctest.Wait()
		var conn *actor.PID
		for len(direct) > 0 {
			conn = <-direct
		}
		require.NotNil(t, conn, "ready: the connection is given")
		r := ask(t, system, conn, &messages.CallTool{ID: 1, Name: "add", Arguments: []byte(`{"a":2,"b":2}`)}).(*messages.CallToolReply)
		assert.Equal(t, "4", textOf(t, r))

		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		assert.Nil(t, recv(t, direct, "not ready"))
		synctest.Wait()
		assert.Empty(t, direct)
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.NotNil(t, recv(t, direct, "ready again"))
	})
}

// With ToolRefresh, a list the server changes reaches the supervisor's
// OnReady and its watchers without anyone asking.
func TestSupervisorPassesOnAChangedList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: controlsServer}
		t.Cleanup(mem.closeAll)
		lists := make(chan *messages.Ready, 16)
		system, pid := startSupervisor(t, actors.SupervisorConfig{
			Connection: actors.ConnectionConfig{Transport: mem, ToolRefresh: true},
			OnReady:    func(r *messages.Ready) { lists <- r },
		})
		assert.Equal(t, testserver.ControlsToolNames, toolNames(recv(t, lists, "the first list")))
		w := newInbox(t, system)
		w.send(system, pid, &messages.WatchTools{})
		add := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add_tool", Arguments: []byte(`{"name":"extra"}`)}).(*messages.CallToolReply)
		require.Equal(t, "added extra", textOf(t, add))
		assert.Contains(t, toolNames(recv(t, lists, "OnReady after list_changed")), "extra")
		told, ok := w.next(t).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(told), "extra")
		r, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(r), "extra", "AwaitReady answers the list in force")
	})
}

// A status after recovery carries no error of the past: Err is nil once
// Ready, while LastFailure and LastFailureAt keep the failure and when it
// happened; while reconnecting, Err is that failure.
func TestSupervisorStatusAfterRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		_, _, sts := spawnSupervisor(t, actors.WithoutJitter(actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		}))
		ready := sts.until(t, actors.Ready)
		assert.Nil(t, ready.Err())
		assert.Nil(t, ready.LastFailure)
		assert.True(t, ready.LastFailureAt.IsZero())

		lostAt := time.Now()
		mem.kill()
		lost := sts.next(t)
		assert.Equal(t, actors.Reconnecting, lost.State)
		require.NotNil(t, lost.Err())
		assert.Same(t, lost.LastFailure, lost.Err())
		assert.Equal(t, lostAt, lost.LastFailureAt)

		back := sts.until(t, actors.Ready)
		assert.Nil(t, back.Err(), "ready again: no error of the past")
		require.NotNil(t, back.LastFailure)
		assert.Equal(t, lost.LastFailure.Message, back.LastFailure.Message)
		assert.Equal(t, lostAt, back.LastFailureAt, "when it happened, not when it mended")
		assert.Equal(t, lostAt.Add(time.Second), time.Now())
	})
}

// After a final failure nothing is dialed, and a call that reached the
// failed connection straight, as one a facade sent just before it heard
// of the failure, is answered with the failure, not lost: it is in the
// connection's mailbox before the supervisor retires it (the Notify that
// tells the facade runs first), and comes back to the supervisor.
func TestSupervisorFinalFailureAnswersACallSentStraightAsItFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		direct := make(chan *actor.PID, 16)
		var conn *actor.PID
		var late *actor.Future
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
			Connection:     actors.ConnectionConfig{Transport: mem},
			InitialBackoff: time.Second, MaxBackoff: time.Second,
		})
		system.Root.Send(pid, &hostmsg.WatchDirect{Notify: func(c *actor.PID) {
			if c != nil {
				conn = c
				direct <- c
				return
			}
			if conn != nil && late == nil {
				// The last call a facade sends straight, as it is told.
				late = system.Root.RequestFuture(conn, &messages.CallTool{ID: 9, Name: "add"}, 30*time.Second)
			}
		}})
		sts.until(t, actors.Ready)
		recv(t, direct, "the ready connection")
		mem.refuseAll(transport.ErrNotSupported)
		mem.kill()
		assert.Equal(t, actors.Failed, sts.until(t, actors.Failed).State)
		opened := mem.opened()

		require.NotNil(t, late, "the facade was told")
		res, err := late.Result()
		require.NoError(t, err)
		r := res.(*messages.CallToolReply)
		require.NotNil(t, r.Failure, "the call sent straight is answered")
		assert.Equal(t, uint64(9), r.ID)
		assert.Equal(t, messages.FailureNotSupported, r.Failure.Kind)
		r = ask(t, system, pid, &messages.CallTool{ID: 10, Name: "add"}).(*messages.CallToolReply)
		require.NotNil(t, r.Failure)
		assert.Equal(t, messages.FailureNotSupported, r.Failure.Kind)
		synctest.Wait()
		assert.Equal(t, opened, mem.opened(), "nothing dialed after the final failure")
	})
}

// slowClose is a transport whose first session is with a server that
// never answers and takes until release is closed to close, as a stdio
// child that ignores its closed stdin: entered says the close began, ended
// that it ended. Later sessions are memory's.
type slowClose struct {
	*memory
	first          atomic.Bool
	peer           *rawPeer
	release        chan struct{}
	entered, ended chan struct{}
}

func (s *slowClose) Open(l *zap.Logger) (mcp.Transport, error) {
	if !s.first.CompareAndSwap(false, true) {
		return s.memory.Open(l)
	}
	client, server := mcp.NewInMemoryTransports()
	p, err := serveMute(server)
	if err != nil {
		return nil, err
	}
	s.peer = p
	return &slowCloseTransport{Transport: client, s: s}, nil
}

type slowCloseTransport struct {
	mcp.Transport
	s *slowClose
}

func (t *slowCloseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &slowCloseConn{Connection: conn, s: t.s}, nil
}

type slowCloseConn struct {
	mcp.Connection
	s    *slowClose
	once sync.Once
}

func (c *slowCloseConn) Close() error {
	c.once.Do(func() {
		close(c.s.entered)
		<-c.s.release
		close(c.s.ended)
	})
	return c.Connection.Close()
}

// A connection that is tried again does not wait for the attempt before it
// to finish closing (a child that is slow to exit being reaped): the next
// session comes up and serves while the old one's close is still under
// way, and the supervisor answers meanwhile; the old close ends by itself,
// and the supervisor's stop waits for it. (In real time: go-sdk closes the
// connection under a lock that its other goroutines wait on, which a
// synctest bubble does not count as blocked.)
func TestSupervisorServesWhileTheLastAttemptIsReaped(t *testing.T) {
	mem := &memory{}
	t.Cleanup(mem.closeAll)
	tr := &slowClose{memory: mem, release: make(chan struct{}), entered: make(chan struct{}), ended: make(chan struct{})}
	t.Cleanup(func() {
		if tr.peer != nil {
			tr.peer.close()
		}
	})
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
		Connection:     actors.ConnectionConfig{Transport: tr, ConnectTimeout: 200 * time.Millisecond},
		RetryConnect:   true,
		InitialBackoff: 50 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
	})
	assert.Equal(t, actors.Failed, sts.until(t, actors.Failed).State, "the first attempt times out")
	recv(t, tr.entered, "the timed-out attempt's close begins")

	assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State, "the next session, while the old one closes")
	_, ready := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
	assert.True(t, ready)
	r := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add", Arguments: []byte(`{"a":2,"b":5}`)}).(*messages.CallToolReply)
	assert.Equal(t, "7", textOf(t, r))
	select {
	case <-tr.ended:
		t.Fatal("the old close ended before it was let")
	default:
	}

	stopped := make(chan error, 1)
	go func() { stopped <- system.Root.StopFuture(pid).Wait() }()
	select {
	case <-stopped:
		t.Fatal("the supervisor stopped before the old close ended")
	case <-time.After(200 * time.Millisecond):
	}
	close(tr.release)
	recv(t, tr.ended, "the old close ends")
	require.NoError(t, recv(t, stopped, "the stop"))
}

// A request held for a reconnection leaves the hold when the plugin's
// cancel comes, which carries no sender (it names its request by ID):
// the request never reaches the next session and is not answered.
func TestSupervisorCancelsAHeldRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, mem, system, pid, sts := readyBlocked(t, false)
		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		in := newInbox(t, system)
		in.send(system, pid, &messages.ServerRequest{ID: 1, Method: messages.MethodListPrompts})
		in.send(system, pid, &messages.ServerRequest{ID: 2, Method: messages.MethodListPrompts})
		system.Root.Send(pid, &messages.CancelCall{ID: 1}) // as the plugin sends it
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		r, ok := in.next(t).(*messages.ServerReply)
		require.True(t, ok)
		assert.Equal(t, uint64(2), r.ID)
		synctest.Wait()
		in.empty(t)
	})
}
