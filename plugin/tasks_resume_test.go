package plugin_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// These tests lose a task's connection, or its process, while the task
// runs, and wait on it again (#44 items 4 and 5). Every wait is for an
// event: a poll seen as progress, a state of the connection, a record
// written.

// taskEvents are what a plugin tells of a task's call: each new status
// message (a poll that changed it) and each state of its connection.
type taskEvents struct {
	polled chan struct{}
	states chan actors.State
}

func newTaskEvents() *taskEvents {
	return &taskEvents{polled: make(chan struct{}, 1), states: make(chan actors.State, 64)}
}

func (e *taskEvents) options() []plugin.Option {
	return []plugin.Option{
		plugin.WithBackoff(5*time.Millisecond, 20*time.Millisecond),
		plugin.WithProgress(func(plugin.Progress) {
			select {
			case e.polled <- struct{}{}:
			default:
			}
		}),
		plugin.WithStatusHandler(func(st plugin.Status) {
			select {
			case e.states <- st.State:
			default:
			}
		}),
	}
}

// await waits for the connection's state want.
func (e *taskEvents) await(t *testing.T, want actors.State) {
	t.Helper()
	for {
		select {
		case st := <-e.states:
			if st == want {
				return
			}
		case <-t.Context().Done():
			t.Fatalf("no state %v", want)
		}
	}
}

// poll waits for a poll that changed the task's status message, after
// draining one seen before.
func (e *taskEvents) poll() {
	select {
	case <-e.polled:
	default:
	}
	<-e.polled
}

// workCalls counts the tools/call of work in the log.
func workCalls(reqs []taskserver.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Method == "tools/call" && r.Tool == "work" {
			n++
		}
	}
	return n
}

// taskIDs are the task ids the log's tasks/* requests named.
func taskIDs(reqs []taskserver.Request) map[string]bool {
	ids := map[string]bool{}
	for _, r := range reqs {
		if r.TaskID != "" {
			ids[r.TaskID] = true
		}
	}
	return ids
}

// restartMidTask stops s's HTTP server while a task polls, waits for the
// plugin to see its connection lost, and serves dir on the same address.
func restartMidTask(t *testing.T, s taskServer, e *taskEvents, dir string) {
	t.Helper()
	require.NoError(t, s.http.Stop())
	e.await(t, actors.Reconnecting)
	require.NoError(t, s.http.Restart(dir))
	e.await(t, actors.Ready)
}

func TestTaskResumesAfterHTTPServerRestart(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{}))...)
	until := filepath.Join(t.TempDir(), "go")
	f := p.CallTool(t.Context(), "work", map[string]any{"until": until, "message": "step", "text": "resumed"})
	e.poll()
	before := len(s.requests(t))
	restartMidTask(t, s, e, s.dir)

	require.NoError(t, os.WriteFile(until, nil, 0o600))
	res, err := f.Await(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "resumed", plugin.RenderResult(res))

	reqs := s.checkTaskRequests(t, true) // no requestState refused: the latest was echoed
	assert.Equal(t, 1, workCalls(reqs), "the tool is not called again")
	assert.Len(t, taskIDs(reqs), 1, "one task, polled before and after the restart")
	assert.Positive(t, count(reqs[before:], "tasks/get"), "polled after the restart")
	assert.Zero(t, count(reqs, "tasks/cancel"))
}

func TestTaskLostAfterHTTPServerRestart(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{}))...)
	f := p.CallTool(t.Context(), "work", map[string]any{"outcome": "never", "message": "step"})
	e.poll()
	// The server comes back without its tasks.
	restartMidTask(t, s, e, t.TempDir())
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrTaskLost)
	assert.NotErrorIs(t, err, plugin.ErrConnectionLost)
	assert.Equal(t, 1, workCalls(s.requests(t)), "the tool is not called again")
}

func TestTaskOverStdioEndsWithItsChild(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["stdio"](t)
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{}))...)
	f := p.CallTool(t.Context(), "work", map[string]any{"outcome": "never", "message": "step"})
	e.poll()
	_, err := p.CallTool(t.Context(), "crash", nil).Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrConnectionLost, "the child died under the crash call")
	_, err = f.Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrConnectionLost, "the task died with its child")
	e.await(t, actors.Ready)
	// The next child, on the same directory, would know the task: it is
	// not asked about it, and the tool is not called again.
	assert.Equal(t, "quick", callText(t, p, "quick", nil))
	reqs := s.requests(t)
	crashed := 0
	for i, r := range reqs {
		if r.Tool == "crash" {
			crashed = i
		}
	}
	require.Positive(t, crashed)
	assert.Zero(t, count(reqs[crashed:], "tasks/get"), "not polled after the child died")
	assert.Equal(t, 1, workCalls(reqs))
}

func TestTaskCancelledAfterResume(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{}))...)
	ctx, cancel := context.WithCancel(t.Context())
	f := p.CallTool(ctx, "work", map[string]any{"outcome": "never", "polls": 1000000, "message": "step"})
	e.poll()
	restartMidTask(t, s, e, s.dir)
	e.poll() // polled from the next connection: its status message changed
	cancel()
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	s.waitCancel(t)
	require.NoError(t, p.Close())
	s.oneCancel(t)
}

func TestTaskCancelledWhileReconnecting(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{}))...)
	ctx, cancel := context.WithCancel(t.Context())
	f := p.CallTool(ctx, "work", map[string]any{"outcome": "never", "message": "step"})
	e.poll()
	require.NoError(t, s.http.Stop())
	e.await(t, actors.Reconnecting)
	// The caller gives up while no connection can cancel the task.
	cancel()
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, s.http.Restart(s.dir))
	s.waitCancel(t) // the next connection cancels it
	require.NoError(t, p.Close())
	s.oneCancel(t)
}

// TestTaskCancelledBeforeItsCallIsBack gives up on a task whose call is
// still on its way back from the lost connection (its goroutine held in
// the store's Put) when the connection's end is known: the cancel waits
// for the call, and the next connection cancels the task.
func TestTaskCancelledBeforeItsCallIsBack(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	store := &holdingStore{TaskStore: plugin.DirTaskStore{Dir: filepath.Join(t.TempDir(), "tasks")},
		held: make(chan struct{}), release: make(chan struct{})}
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{Store: store}))...)
	ctx, cancel := context.WithCancel(t.Context())
	f := p.CallTool(ctx, "work", map[string]any{"outcome": "never", "polls": 1000000, "message": "step"})
	e.poll()
	store.hold.Store(true)
	<-store.held // the call's goroutine keeps the answer of a poll
	require.NoError(t, s.http.Stop())
	// Another call finds the server gone, and ends the connection.
	q := p.CallTool(t.Context(), "quick", nil)
	e.await(t, actors.Reconnecting)
	cancel()
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	close(store.release) // the task's call goes back to the supervisor now
	require.NoError(t, s.http.Restart(s.dir))
	s.waitCancel(t)
	if _, err := q.Await(t.Context()); err != nil {
		// It may have reached the server (the connection's EOF); one
		// refused waits for the next connection, and succeeds.
		require.ErrorIs(t, err, plugin.ErrConnectionLost)
	}
	require.NoError(t, p.Close())
	s.oneCancel(t)
}

// TestTaskCancelledAsItsServerWentAway gives up on a task right after its
// server went away, while the connection waits for the next poll and has
// not yet noticed: the tasks/cancel gets no answer, and the next
// connection sends it.
func TestTaskCancelledAsItsServerWentAway(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	store := &notingStore{TaskStore: plugin.DirTaskStore{Dir: filepath.Join(t.TempDir(), "tasks")}, server: s, t: t, put: make(chan struct{})}
	e := newTaskEvents()
	p := connect(t, s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{Store: store}))...)
	ctx, cancel := context.WithCancel(t.Context())
	// Polled every 30s (the longest wait): the cancel comes first.
	f := p.CallTool(ctx, "work", map[string]any{"outcome": "never", "interval": 60000})
	<-store.put
	require.NoError(t, s.http.Stop())
	cancel()
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.Canceled)
	e.await(t, actors.Reconnecting) // the cancel's failure ended the connection
	require.NoError(t, s.http.Restart(s.dir))
	s.waitCancel(t)
	require.NoError(t, p.Close())
	s.oneCancel(t)
}

// holdingStore is a task store whose Put, once hold is set, waits for
// release, and tells that it waits.
type holdingStore struct {
	plugin.TaskStore
	hold    atomic.Bool
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (h *holdingStore) Put(ctx context.Context, r plugin.TaskRecord) error {
	if h.hold.Load() {
		h.once.Do(func() { close(h.held) })
		<-h.release
	}
	return h.TaskStore.Put(ctx, r)
}

// notingStore is a task store that tells of its first Put, and what the
// server had received by then.
type notingStore struct {
	plugin.TaskStore
	server taskServer
	t      *testing.T

	once    sync.Once
	put     chan struct{}
	getsYet int // tasks/get the server had received at the first Put
}

func (n *notingStore) Put(ctx context.Context, r plugin.TaskRecord) error {
	err := n.TaskStore.Put(ctx, r)
	n.once.Do(func() {
		n.getsYet = count(n.server.requests(n.t), "tasks/get")
		close(n.put)
	})
	return err
}

func TestTaskResumedByTheNextProcess(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	store := &notingStore{TaskStore: plugin.DirTaskStore{Dir: filepath.Join(t.TempDir(), "tasks")}, server: s, t: t, put: make(chan struct{})}
	e := newTaskEvents()

	// The first program starts the task, and ends while it runs.
	first, err := plugin.Connect(t.Context(), s.tr, append(e.options(), plugin.WithTasks(plugin.TaskOptions{Store: store}))...)
	require.NoError(t, err)
	until := filepath.Join(t.TempDir(), "go")
	f := first.CallTool(t.Context(), "work", map[string]any{"until": until, "message": "step", "text": "kept"})
	<-store.put
	assert.Zero(t, store.getsYet, "the record is written before the first poll")
	e.poll()
	require.NoError(t, first.Close())
	_, err = f.Await(t.Context())
	require.Error(t, err)
	assert.Zero(t, count(s.requests(t), "tasks/cancel"), "a program that ends leaves its task running")

	// The next one finds it in the store, and waits on it.
	next := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{Store: store}))
	pending, err := next.PendingTasks(t.Context())
	require.NoError(t, err)
	require.Len(t, pending, 1)
	rec := pending[0]
	assert.Equal(t, "work", rec.Tool)
	assert.Equal(t, next.Server(), rec.Server)
	require.NotNil(t, rec.Task.RequestState)
	ids := taskIDs(s.requests(t))
	assert.True(t, ids[rec.Task.ID], "the server's task")

	// Another server's plugin on the same store sees none of it.
	other := connect(t, taskServers(t)["http"](t).tr, plugin.WithTasks(plugin.TaskOptions{Store: store}))
	theirs, err := other.PendingTasks(t.Context())
	require.NoError(t, err)
	assert.Empty(t, theirs)

	require.NoError(t, os.WriteFile(until, nil, 0o600))
	res, err := next.ResumeTask(t.Context(), rec.Task.ID).Await(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "kept", plugin.RenderResult(res))
	pending, err = next.PendingTasks(t.Context())
	require.NoError(t, err)
	assert.Empty(t, pending, "an ended task leaves the store")

	reqs := s.checkTaskRequests(t, true)
	assert.Equal(t, 1, workCalls(reqs), "the tool is not called again")

	_, err = next.ResumeTask(t.Context(), rec.Task.ID).Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrInternal, "an id the store does not keep")
}

func TestTaskTimeoutHoldsAcrossResume(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	e := newTaskEvents()
	// The task never ends: had the quick call's timeout held after the
	// resumption, it would have ended the call at 5s, naming it; the task's
	// own bound (10s) is the one that holds, on the next connection too.
	// The quick call's 5s also leaves a busy machine time to answer the
	// tools/call itself.
	p := connect(t, s.tr, append(e.options(), plugin.WithDefaultCallTimeout(5*time.Second),
		plugin.WithTasks(plugin.TaskOptions{Timeout: 10 * time.Second}))...)
	f := p.CallTool(t.Context(), "work", map[string]any{"outcome": "never", "polls": 1000000, "message": "step"})
	e.poll()
	restartMidTask(t, s, e, s.dir)
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "the task timeout of 10s (WithTasks)")
	assert.NotContains(t, err.Error(), "WithDefaultCallTimeout")
	require.NoError(t, p.Close())
	assert.LessOrEqual(t, count(s.requests(t), "tasks/cancel"), 1, "tasks/cancel at most once")
	assert.Equal(t, 1, workCalls(s.requests(t)))
}
