package actors_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// memory is a transport to go-sdk servers in this process, over go-sdk's
// in-memory transports: each Open connects a new session of a new server
// (testserver's, unless server says which), unless refuse or always says
// why not. kill ends the server session in force.
type memory struct {
	mu       sync.Mutex
	server   func() *mcp.Server // nil: testserver.NewServer
	legacy   bool               // the peer refuses server/discover, as a server of older revisions
	mute     bool               // the peer never answers
	refuse   []error            // the next Opens' errors, in order
	always   error              // once refuse is used up, every Open's error, if set
	sessions []*mcp.ServerSession
	conns    []mcp.Connection // the server's end of each session
	peers    []*rawPeer
	opens    int
	openedAt []time.Time // when each Open was called
}

func (m *memory) String() string { return "memory" }

func (m *memory) Open(*zap.Logger) (mcp.Transport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opens++
	m.openedAt = append(m.openedAt, time.Now())
	if len(m.refuse) > 0 {
		err := m.refuse[0]
		m.refuse = m.refuse[1:]
		return nil, err
	}
	if m.always != nil {
		return nil, m.always
	}
	client, server := mcp.NewInMemoryTransports()
	if m.legacy || m.mute {
		serve := serveLegacy
		if m.mute {
			serve = serveMute
		}
		p, err := serve(server)
		if err != nil {
			return nil, err
		}
		m.peers = append(m.peers, p)
		return client, nil
	}
	newServer := m.server
	if newServer == nil {
		newServer = testserver.NewServer
	}
	cut := &cuttable{Transport: server}
	ss, err := newServer().Connect(context.Background(), cut, nil)
	if err != nil {
		return nil, err
	}
	m.sessions = append(m.sessions, ss)
	m.conns = append(m.conns, cut.conn)
	return client, nil
}

// cuttable keeps the server's end of an in-memory transport, so that a
// test can cut it in force: a graceful ServerSession.Close waits for the
// handlers in flight.
type cuttable struct {
	mcp.Transport
	conn mcp.Connection
}

func (c *cuttable) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return conn, err
}

// opened is how many Opens were called.
func (m *memory) opened() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opens
}

// refuseAll makes every later Open fail with err; nil lets them through.
func (m *memory) refuseAll(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.always = err
}

// kill cuts the last server session's connection, as a server that goes
// away: its handlers in flight are not waited for.
func (m *memory) kill() {
	m.mu.Lock()
	conn := m.conns[len(m.conns)-1]
	m.mu.Unlock()
	_ = conn.Close()
}

func (m *memory) closeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ss := range m.sessions {
		_ = ss.Close()
	}
	for _, p := range m.peers {
		p.close()
	}
}

var _ transport.McpTransport = (*memory)(nil)

// states collects a supervisor's statuses as OnStatus reports them; next
// waits for the next one (a rendezvous, no clock).
type states chan actors.Status

func (s states) next(t *testing.T) actors.Status {
	t.Helper()
	select {
	case st := <-s:
		return st
	case <-time.After(30 * time.Second):
		t.Fatal("no status came")
		return actors.Status{}
	}
}

// until skips statuses until one in state st.
func (s states) until(t *testing.T, st actors.State) actors.Status {
	t.Helper()
	for {
		got := s.next(t)
		if got.State == st {
			return got
		}
	}
}

func spawnSupervisor(t *testing.T, cfg actors.SupervisorConfig) (*actor.ActorSystem, *actor.PID, states) {
	t.Helper()
	system := actor.NewActorSystem(quiet.Actors())
	ch := make(states, 64)
	cfg.OnStatus = func(st actors.Status) { ch <- st }
	pid := system.Root.Spawn(actors.NewSupervisorProps(cfg))
	t.Cleanup(func() {
		_ = system.Root.StopFuture(pid).Wait()
		system.Shutdown()
	})
	return system, pid, ch
}

func ask(t *testing.T, system *actor.ActorSystem, pid *actor.PID, msg any) any {
	t.Helper()
	res, err := system.Root.RequestFuture(pid, msg, 30*time.Second).Result()
	require.NoError(t, err)
	return res
}

// A supervisor goes Connecting, Ready; a lost session makes it
// Reconnecting, and the next session Ready again, one restart counted;
// calls work before and after.
func TestSupervisorStatesAcrossALostSession(t *testing.T) {
	mem := &memory{}
	t.Cleanup(mem.closeAll)
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
		Connection:     actors.ConnectionConfig{Transport: mem},
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
	})
	assert.Equal(t, actors.Connecting, sts.next(t).State)
	assert.Equal(t, actors.Ready, sts.next(t).State)
	_, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
	require.True(t, ok)

	mem.kill()
	lost := sts.next(t)
	assert.Equal(t, actors.Reconnecting, lost.State)
	assert.Equal(t, 1, lost.Restarts)
	require.NotNil(t, lost.LastFailure)
	back := sts.until(t, actors.Ready)
	assert.Equal(t, 1, back.Restarts)
	assert.Equal(t, 2, mem.opens)

	reply, ok := ask(t, system, pid, &messages.CallTool{ID: 1, Name: "add", Arguments: []byte(`{"a":1,"b":2}`)}).(*messages.CallToolReply)
	require.True(t, ok)
	require.Nil(t, reply.Failure)
	assert.Equal(t, "3", reply.Result.Content[0].(*mcp.TextContent).Text)
}

// A first connection that fails is final without RetryConnect: Failed,
// no restart, AwaitReady and calls answered with the failure.
func TestSupervisorFirstFailureIsFinalWithoutRetryConnect(t *testing.T) {
	mem := &memory{refuse: []error{errors.New("no route")}}
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}})
	assert.Equal(t, actors.Connecting, sts.next(t).State)
	failed := sts.until(t, actors.Failed)
	assert.Zero(t, failed.Restarts)
	f, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Failure)
	require.True(t, ok)
	assert.Contains(t, f.Message, "no route")
	reply := ask(t, system, pid, &messages.CallTool{ID: 2, Name: "add"}).(*messages.CallToolReply)
	require.NotNil(t, reply.Failure)
	assert.Equal(t, 1, mem.opens)
}

// With RetryConnect a first connection that fails is Failed and retried:
// calls meanwhile fail at once saying the server has not come up, and the
// first session that comes up makes it Ready.
func TestSupervisorRetriesAFirstConnection(t *testing.T) {
	mem := &memory{refuse: []error{errors.New("not yet"), errors.New("not yet")}}
	t.Cleanup(mem.closeAll)
	gate := make(chan struct{})
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
		Connection:     actors.ConnectionConfig{Transport: gatedTransport{mem, gate}},
		RetryConnect:   true,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
	})
	assert.Equal(t, actors.Connecting, sts.next(t).State)
	gate <- struct{}{} // the first attempt fails
	failed := sts.until(t, actors.Failed)
	assert.Equal(t, 1, failed.Restarts)
	reply := ask(t, system, pid, &messages.CallTool{ID: 3, Name: "add"}).(*messages.CallToolReply)
	require.NotNil(t, reply.Failure)
	assert.Contains(t, reply.Failure.Message, "has not come up")
	_, isFailure := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Failure)
	assert.True(t, isFailure, "AwaitReady answers the last failure while retrying")

	close(gate) // the next attempts go through: one more refusal, then a session
	assert.Equal(t, actors.Ready, sts.until(t, actors.Ready).State)
	assert.Equal(t, 3, mem.opens)
	reply = ask(t, system, pid, &messages.CallTool{ID: 4, Name: "add", Arguments: []byte(`{"a":2,"b":2}`)}).(*messages.CallToolReply)
	require.Nil(t, reply.Failure)
}

// A transport that cannot work is not retried, even with RetryConnect.
func TestSupervisorDoesNotRetryWhatNoRetryMends(t *testing.T) {
	mem := &memory{refuse: []error{transport.ErrNotSupported}}
	system, pid, sts := spawnSupervisor(t, actors.SupervisorConfig{
		Connection:   actors.ConnectionConfig{Transport: mem},
		RetryConnect: true, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
	})
	failed := sts.until(t, actors.Failed)
	require.NotNil(t, failed.LastFailure)
	assert.Equal(t, messages.FailureNotSupported, failed.LastFailure.Kind)
	reply := ask(t, system, pid, &messages.CallTool{ID: 5, Name: "add"}).(*messages.CallToolReply)
	require.NotNil(t, reply.Failure)
	assert.Equal(t, 1, mem.opens, "not opened again")
}

// gatedTransport lets each Open through only when gate gives a value (or
// is closed).
type gatedTransport struct {
	*memory
	gate chan struct{}
}

func (g gatedTransport) Open(l *zap.Logger) (mcp.Transport, error) {
	<-g.gate
	return g.memory.Open(l)
}

// A bare connection answers AwaitReady with its tools and serves calls
// over an in-memory session.
func TestConnectionStates(t *testing.T) {
	mem := &memory{}
	t.Cleanup(mem.closeAll)
	system := actor.NewActorSystem(quiet.Actors())
	t.Cleanup(system.Shutdown)
	pid := system.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{Transport: mem}))
	t.Cleanup(func() { _ = system.Root.StopFuture(pid).Wait() })
	ready, ok := ask(t, system, pid, &messages.AwaitReady{}).(*messages.Ready)
	require.True(t, ok)
	assert.Len(t, ready.Tools, len(testserver.ToolNames))
	reply := ask(t, system, pid, &messages.CallTool{ID: 6, Name: "add", Arguments: []byte(`{"a":20,"b":22}`)}).(*messages.CallToolReply)
	require.Nil(t, reply.Failure)
	assert.Equal(t, "42", reply.Result.Content[0].(*mcp.TextContent).Text)
}
