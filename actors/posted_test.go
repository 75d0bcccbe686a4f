package actors_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
)

// Direct stdio calls are posted by the mailbox and answered by the reader:
// many at once each get their own answer; a call whose deadline passes is
// answered with the deadline, and one its caller cancels is not answered
// at all; the session serves the next call.
func TestPostedStdioCalls(t *testing.T) {
	system, pid := startConnection(t, actors.ConnectionConfig{Transport: testserver.Stdio(t)})
	in := newInbox(t, system)
	const n = 32
	far := time.Now().Add(10 * time.Minute)
	for i := range n {
		in.send(system, pid, &messages.CallTool{ID: uint64(i + 1), Name: "add", Deadline: far,
			Arguments: fmt.Appendf(nil, `{"a":%d,"b":1000}`, i)})
	}
	for range n {
		r := in.reply(t)
		assert.Equal(t, strconv.Itoa(int(r.ID)-1+1000), textOf(t, r), "call %d", r.ID)
	}

	in.send(system, pid, &messages.CallTool{ID: 100, Name: "slow", Arguments: []byte(`{"ms":600000}`)})
	system.Root.Send(pid, &messages.CancelCall{ID: 100})
	in.send(system, pid, &messages.CallTool{ID: 101, Name: "slow", Arguments: []byte(`{"ms":600000}`),
		Deadline: time.Now().Add(200 * time.Millisecond)})
	r := in.reply(t)
	assert.Equal(t, uint64(101), r.ID, "the cancelled call is not answered")
	require.NotNil(t, r.Failure)
	assert.Equal(t, messages.CauseDeadline, r.Failure.Cause)

	in.send(system, pid, &messages.CallTool{ID: 102, Name: "add", Arguments: []byte(`{"a":1,"b":2}`)})
	r = in.reply(t)
	assert.Equal(t, uint64(102), r.ID)
	assert.Equal(t, "3", textOf(t, r))
	in.empty(t)
}
