package actors_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
)

// The connection's tests run a bare McpConnection (no supervisor) on
// go-sdk's in-memory transports, in synctest bubbles where a deadline or
// an idle timeout is the subject: their timers run on the bubble's clock.

func controlsServer() *mcp.Server {
	return testserver.NewControlsServer(testserver.ControlsOptions{})
}

// A call is answered with its result, under its ID; a tool's own error is
// a result, not a failure; a tool the server does not know is a failure
// carrying the server's error.
func TestConnectionAnswersACallWithItsResult(t *testing.T) {
	mem := &memory{}
	t.Cleanup(mem.closeAll)
	system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
	in := newInbox(t, system)
	in.send(system, pid, &messages.CallTool{ID: 11, Name: "add", Arguments: []byte(`{"a":1.5,"b":2}`)})
	in.send(system, pid, &messages.CallTool{ID: 12, Name: "fail"})
	in.send(system, pid, &messages.CallTool{ID: 13, Name: "nope"})
	got := map[uint64]*messages.CallToolReply{}
	for range 3 {
		r := in.reply(t)
		got[r.ID] = r
	}
	assert.Equal(t, "3.5", textOf(t, got[11]))
	require.Nil(t, got[12].Failure)
	assert.True(t, got[12].Result.IsError)
	assert.Equal(t, "boom", got[12].Result.Content[0].(*mcp.TextContent).Text)
	require.NotNil(t, got[13].Failure)
	assert.Equal(t, messages.CallOp("nope"), got[13].Failure.Op)
	assert.Contains(t, got[13].Failure.Message, "nope")
}

// A CancelCall reaches the server: the handler sees its context cancelled,
// and the caller, who gave up, is not answered; the session serves the
// next call.
func TestConnectionCancelReachesTheServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"first"}`)})
		assert.Equal(t, "first", recv(t, b.entered, "the call reaches the server"))

		in.send(system, pid, &messages.CancelCall{ID: 1})
		assert.Equal(t, "first", recv(t, b.cancelled, "the server sees the cancellation"))
		synctest.Wait()
		in.empty(t)

		in.send(system, pid, &messages.CallTool{ID: 2, Name: "block", Arguments: []byte(`{"tag":"second"}`)})
		assert.Equal(t, "second", recv(t, b.entered, "the next call"))
		b.releaseAll()
		assert.Equal(t, "released second", textOf(t, in.reply(t)))
	})
}

// A call past its deadline fails naming the limit that set it, matches
// context.DeadlineExceeded, and is cancelled on the server.
func TestConnectionDeadlineNamesItsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
		_, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
		require.True(t, ok)
		in := newInbox(t, system)
		sent := time.Now()
		in.send(system, pid, &messages.CallTool{ID: 3, Name: "block", Arguments: []byte(`{"tag":"late"}`),
			Deadline: sent.Add(3 * time.Second), Limit: "the tool timeout of 3s (WithCallTimeoutCap)"})
		recv(t, b.entered, "the call reaches the server")

		r := in.reply(t)
		assert.Equal(t, 3*time.Second, time.Since(sent), "failed at its deadline")
		require.NotNil(t, r.Failure)
		assert.Equal(t, messages.CauseDeadline, r.Failure.Cause)
		assert.ErrorIs(t, r.Failure, context.DeadlineExceeded)
		assert.Equal(t, messages.CallOp("block"), r.Failure.Op)
		assert.Contains(t, r.Failure.Message, "the tool timeout of 3s (WithCallTimeoutCap) passed")
		assert.Equal(t, "late", recv(t, b.cancelled, "the server's handler is cancelled"))

		// Without a Limit the failure says it was the call's deadline.
		in.send(system, pid, &messages.CallTool{ID: 4, Name: "block", Arguments: []byte(`{"tag":"x"}`), Deadline: time.Now().Add(time.Second)})
		recv(t, b.entered, "the call reaches the server")
		r = in.reply(t)
		require.NotNil(t, r.Failure)
		assert.Contains(t, r.Failure.Message, "the call's deadline passed")
	})
}

// With an IdleTimeout a call fails when the server is silent that long,
// and the server sees it cancelled; progress pushes the timer back, so a
// call that reports often runs longer than its idle timeout.
func TestConnectionIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: controlsServer}
		t.Cleanup(mem.closeAll)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
		in := newInbox(t, system)
		sent := time.Now()
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "silent", Arguments: []byte(`{"ms":600000}`), IdleTimeout: 2 * time.Second})
		r := in.reply(t)
		assert.Equal(t, 2*time.Second, time.Since(sent))
		require.NotNil(t, r.Failure)
		assert.ErrorIs(t, r.Failure, context.DeadlineExceeded)
		assert.Contains(t, r.Failure.Message, "idle timeout: no progress from the server for 2s")

		sent = time.Now()
		in.send(system, pid, &messages.CallTool{ID: 2, Name: "progress", Arguments: []byte(`{"steps":4,"ms":1500}`), IdleTimeout: 2 * time.Second})
		r = in.reply(t)
		assert.Equal(t, "done", textOf(t, r), "reporting every 1.5s, it outlives its 2s idle timeout")
		assert.Equal(t, 6*time.Second, time.Since(sent))

		stats := ask(t, system, pid, &messages.CallTool{ID: 3, Name: "stats"}).(*messages.CallToolReply)
		var st testserver.ControlsStats
		require.NoError(t, json.Unmarshal([]byte(textOf(t, stats)), &st))
		assert.Equal(t, testserver.ControlsStats{Calls: 2, Cancelled: 1}, st, "the silent call was cancelled on the server")
	})
}

// A call that asks for progress gets the server's notifications, in
// order, before its reply; a call that does not gets none.
func TestConnectionProgressComesBeforeTheReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: controlsServer}
		t.Cleanup(mem.closeAll)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 7, Name: "progress", Arguments: []byte(`{"steps":3,"ms":10}`), Progress: true})
		for i := 1; i <= 3; i++ {
			m := in.next(t)
			p, ok := m.(*messages.CallProgress)
			require.True(t, ok, "message %d: got %T, want progress", i, m)
			assert.Equal(t, messages.CallProgress{ID: 7, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}, *p)
		}
		assert.Equal(t, "done", textOf(t, in.reply(t)))

		in.send(system, pid, &messages.CallTool{ID: 8, Name: "progress", Arguments: []byte(`{"steps":3,"ms":10}`)})
		assert.Equal(t, "done", textOf(t, in.reply(t)), "no progress asked for, none comes")
		// An idle timeout alone carries a token, so the server reports
		// progress; it keeps the call alive but is not passed on.
		in.send(system, pid, &messages.CallTool{ID: 9, Name: "progress", Arguments: []byte(`{"steps":3,"ms":10}`), IdleTimeout: time.Minute})
		assert.Equal(t, "done", textOf(t, in.reply(t)), "no progress asked for, none comes")
		synctest.Wait()
		in.empty(t)
	})
}

// AwaitReady and calls that arrive while connecting wait for the session
// and are answered in order once it is up; after that AwaitReady answers
// at once. A connection that could not connect answers both with why.
func TestConnectionAwaitReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{}
		t.Cleanup(mem.closeAll)
		gate := make(chan struct{})
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: gatedTransport{mem, gate}})
		in := newInbox(t, system)
		in.send(system, pid, &messages.AwaitReady{})
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "add", Arguments: []byte(`{"a":1,"b":1}`)})
		synctest.Wait()
		in.empty(t)

		close(gate)
		ready, ok := in.next(t).(*messages.Ready)
		require.True(t, ok)
		assert.Equal(t, testserver.ToolNames, toolNames(ready))
		assert.Equal(t, actors.ProtocolVersion, ready.ProtocolVersion)
		assert.Equal(t, "2", textOf(t, in.reply(t)))
		again, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
		require.True(t, ok)
		assert.Same(t, ready, again)

		refused := &memory{refuse: []error{errors.New("no route to server")}}
		system, pid = startConnection(t, actors.ConnectionConfig{Transport: refused})
		f, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Failure)
		require.True(t, ok)
		assert.Contains(t, f.Message, "no route to server")
		r := ask(t, system, pid, &messages.CallTool{ID: 2, Name: "add"}).(*messages.CallToolReply)
		require.NotNil(t, r.Failure)
		assert.Contains(t, r.Failure.Message, "no route to server")
		assert.Equal(t, messages.CallOp("add"), r.Failure.Op)
	})
}

// RefreshTools lists the tools again: its answer, and the connection's
// OnReady, carry the server's new list.
func TestConnectionRefreshToolsListsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: controlsServer}
		t.Cleanup(mem.closeAll)
		lists := make(chan *messages.Ready, 16)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem,
			OnReady: func(r *messages.Ready) { lists <- r }})
		first := recv(t, lists, "the first list")
		assert.Equal(t, testserver.ControlsToolNames, toolNames(first))

		add := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add_tool", Arguments: []byte(`{"name":"extra"}`)}).(*messages.CallToolReply)
		require.Equal(t, "added extra", textOf(t, add))
		synctest.Wait()
		assert.Empty(t, lists, "without ToolRefresh the list changes only when asked")

		r, ok := ask(t, system, pid, &messages.RefreshTools{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(r), "extra")
		assert.Contains(t, toolNames(recv(t, lists, "OnReady")), "extra")
		again, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
		require.True(t, ok)
		assert.Contains(t, toolNames(again), "extra", "AwaitReady answers the new list")
	})
}

// With ToolRefresh the server's tools/list_changed makes the connection
// list again by itself.
func TestConnectionToolRefreshFollowsTheServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{server: controlsServer}
		t.Cleanup(mem.closeAll)
		lists := make(chan *messages.Ready, 16)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem, ToolRefresh: true,
			OnReady: func(r *messages.Ready) { lists <- r }})
		recv(t, lists, "the first list")
		add := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add_tool", Arguments: []byte(`{"name":"extra"}`)}).(*messages.CallToolReply)
		require.Equal(t, "added extra", textOf(t, add))
		assert.Contains(t, toolNames(recv(t, lists, "the list after list_changed")), "extra")
	})
}

// A session that ends under a call fails it as lost (it may have reached
// the server); an unsupervised connection then stays ended, telling
// OnStatus once and answering AwaitReady and later calls with the cause.
func TestConnectionSessionLostUnderACall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		type status struct {
			state actors.State
			f     *messages.Failure
		}
		statuses := make(chan status, 16)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem,
			OnStatus: func(st actors.State, f *messages.Failure) { statuses <- status{st, f} }})
		assert.Equal(t, actors.Ready, recv(t, statuses, "ready").state)
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 1, Name: "block", Arguments: []byte(`{"tag":"a"}`)})
		recv(t, b.entered, "the call reaches the server")

		mem.kill()
		r := in.reply(t)
		require.NotNil(t, r.Failure)
		assert.Equal(t, messages.CauseConnectionLost, r.Failure.Cause)
		assert.Equal(t, messages.CallOp("block"), r.Failure.Op)
		ended := recv(t, statuses, "ended")
		assert.Equal(t, actors.Failed, ended.state)
		require.NotNil(t, ended.f)
		assert.Equal(t, messages.CauseConnectionLost, ended.f.Cause)

		f, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Failure)
		require.True(t, ok)
		assert.Equal(t, ended.f.Message, f.Message)
		later := ask(t, system, pid, &messages.CallTool{ID: 2, Name: "block"}).(*messages.CallToolReply)
		require.NotNil(t, later.Failure)
		assert.Equal(t, ended.f.Message, later.Failure.Message)
		synctest.Wait()
		assert.Equal(t, 1, mem.opened(), "nothing reconnects an unsupervised connection")
		assert.Empty(t, statuses)
	})
}

// A server that never answers fails the connection at its ConnectTimeout,
// with the timeout named and the deadline cause.
func TestConnectionConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := &memory{mute: true}
		t.Cleanup(mem.closeAll)
		begin := time.Now()
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem, ConnectTimeout: 7 * time.Second})
		f, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Failure)
		require.True(t, ok)
		assert.Equal(t, 7*time.Second, time.Since(begin))
		assert.ErrorIs(t, f, context.DeadlineExceeded)
		assert.Contains(t, f.Message, "no answer within the connect timeout of 7s")
	})
}

// A call ID already in flight is refused, the first call untouched; once
// that call is answered, its ID may be used again.
func TestConnectionRefusesAnIDInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlocker()
		mem := &memory{server: b.server}
		t.Cleanup(mem.closeAll)
		t.Cleanup(b.releaseAll)
		system, pid := startConnection(t, actors.ConnectionConfig{Transport: mem})
		in := newInbox(t, system)
		in.send(system, pid, &messages.CallTool{ID: 4, Name: "block", Arguments: []byte(`{"tag":"first"}`)})
		recv(t, b.entered, "the first call")
		in.send(system, pid, &messages.CallTool{ID: 4, Name: "block", Arguments: []byte(`{"tag":"twin"}`)})
		twin := in.reply(t)
		require.NotNil(t, twin.Failure)
		assert.Contains(t, twin.Failure.Message, "call id 4 is already in flight")
		synctest.Wait()
		assert.Empty(t, b.entered, "the twin never reached the server")

		b.releaseAll()
		assert.Equal(t, "released first", textOf(t, in.reply(t)))
		synctest.Wait()
		in.send(system, pid, &messages.CallTool{ID: 4, Name: "block", Arguments: []byte(`{"tag":"next"}`)})
		assert.Equal(t, "released next", textOf(t, in.reply(t)))
	})
}
