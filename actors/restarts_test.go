package actors_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Every Reconnecting status counts the restart it announces, whether a
// backoff or a Reconnect/cool-down started it.
func TestSupervisorReconnectingCountsItsRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{refuse: []error{&transport.SpawnError{Command: "x"}}}
		t.Cleanup(mem.closeAll)
		system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}})
		sts.until(t, actors.Failed)
		system.Root.Send(pid, &messages.Reconnect{})
		st := sts.next(t)
		assert.Equal(t, actors.Connecting, st.State)
		assert.Equal(t, 1, st.Restarts, "the status announcing the Reconnect's attempt counts it")
		back := sts.next(t)
		assert.Equal(t, actors.Ready, back.State)
		assert.Equal(t, 1, back.Restarts)
	})
}
