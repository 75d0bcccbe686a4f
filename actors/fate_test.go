package actors_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/actors"
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
