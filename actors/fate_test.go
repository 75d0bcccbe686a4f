package actors_test

import (
	"testing"
	"testing/synctest"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/core/hostmsg"
	"github.com/cuca-go/mcpconnector/messages"
)

// The late window, closed by construction: a call whose caller gave up is
// never sent afterwards. A host's cancel carries no sender (package
// plugin's does not), and it still finds the call wherever it waits.

// A call queued for the next session, cancelled by a cancel with no
// sender, never reaches the server.
func TestCancelWithoutSenderDropsAQueuedCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, mem, system, pid, sts := readyBlocked(t, false)
		mem.kill()
		assert.Equal(t, actors.Reconnecting, sts.next(t).State)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"given up"}`)})
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block", Arguments: []byte(`{"tag":"kept"}`)})
		system.Root.Send(pid, &messages.CancelCall{ID: 1})
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.Equal(t, "kept", recv(t, b.entered, "the call kept"))
		b.releaseAll()
		assert.Equal(t, uint64(2), in.reply(t).ID)
		synctest.Wait()
		in.empty(t)
		assert.Empty(t, b.entered, "the call given up never reached the server")
	})
}

// A RetryIdempotent call handed back as its session ended, whose caller
// then gives up (a cancel with no sender), does not run again on the next
// session.
func TestCancelledRetryableCallIsNotRunAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, mem, system, pid, sts := readyBlocked(t, true)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block_idempotent", Arguments: []byte(`{"tag":"given up"}`)})
		assert.Equal(t, "given up", recv(t, b.entered, "the call"))
		mem.kill()
		synctest.Wait() // the call is back with the supervisor, for the next session
		system.Root.Send(pid, &messages.CancelCall{ID: 1})
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block", Arguments: []byte(`{"tag":"kept"}`)})
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.Equal(t, "kept", recv(t, b.entered, "the next call"))
		b.releaseAll()
		assert.Equal(t, uint64(2), in.reply(t).ID)
		synctest.Wait()
		in.empty(t)
		assert.Empty(t, b.entered, "the call given up did not run again")
	})
}

// A RetryIdempotent call sent straight to the connection (as a plugin
// sends it while ready), whose caller gives up just as the call is handed
// back: the cancel reaches the supervisor ahead of the handed-back call,
// goes on to the connection after the call left it, and still finds the
// call. The supervisor's mailbox is held (a WatchDirect whose Notify waits
// on a gate) so that the cancel is queued there before the session ends;
// the hand-back then queues behind it.
func TestCancelCrossingAHandBackIsNotLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, mem, system, pid, sts := readyBlocked(t, true)
		direct := make(chan *actor.PID, 4)
		system.Root.Send(pid, &hostmsg.WatchDirect{Notify: func(conn *actor.PID) { direct <- conn }})
		child := recv(t, direct, "the connection")
		require.NotNil(t, child)
		in := newInbox(t, system)
		in.send(system, child, &messages.CallTool{ID: 1, Name: "block_idempotent", Arguments: []byte(`{"tag":"given up"}`)})
		assert.Equal(t, "given up", recv(t, b.entered, "the call"))

		gate := make(chan struct{})
		held := make(chan struct{})
		system.Root.Send(pid, &hostmsg.WatchDirect{Notify: func(*actor.PID) {
			select {
			case <-gate:
			default:
				close(held)
				<-gate // the supervisor's mailbox waits here
			}
		}})
		recv(t, held, "the supervisor held")
		in.send(system, pid, &messages.CancelCall{ID: 1}) // the plugin's cancel: to the supervisor
		mem.kill()
		synctest.Wait() // the call is handed back, behind the cancel
		close(gate)

		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block", Arguments: []byte(`{"tag":"kept"}`)})
		assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
		assert.Equal(t, "kept", recv(t, b.entered, "the next call"))
		b.releaseAll()
		assert.Equal(t, uint64(2), in.reply(t).ID)
		synctest.Wait()
		in.empty(t)
		assert.Empty(t, b.entered, "the call given up was never sent on the next session")
	})
}
