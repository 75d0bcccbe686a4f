package plugin_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// These tests drive tasks (SEP-2663) of internal/fixture/taskserver, over
// stdio (the test binary re-executed) and over Streamable HTTP. Its tasks
// progress by polls and files, never by time: no success path here waits
// for a clock.

// taskServer is a task server reached one way, and the directory of its
// tasks and request log.
type taskServer struct {
	tr   transport.McpTransport
	dir  string
	http *taskserver.HTTP // nil over stdio
}

// taskServers are the task server over stdio and Streamable HTTP, with
// flags (taskserver.FlagNotify, taskserver.FlagAccepted).
func taskServers(_ *testing.T, flags ...string) map[string]func(t *testing.T) taskServer {
	return map[string]func(t *testing.T) taskServer{
		"stdio": func(t *testing.T) taskServer {
			dir := t.TempDir()
			cmd, args := taskserver.Command(t, dir, flags...)
			s := transport.NewStdio(cmd, args...)
			s.Env = append(s.Env, testserver.FastExitEnv)
			return taskServer{tr: s, dir: dir}
		},
		"http": func(t *testing.T) taskServer {
			dir := t.TempDir()
			h, err := taskserver.StartHTTP(dir, flags...)
			require.NoError(t, err)
			t.Cleanup(func() { _ = h.Stop() })
			return taskServer{tr: transport.StreamableHTTP{URL: h.URL}, dir: dir, http: h}
		},
	}
}

// requests is the server's log so far.
func (s taskServer) requests(t *testing.T) []taskserver.Request {
	t.Helper()
	reqs, err := taskserver.Requests(s.dir)
	require.NoError(t, err)
	return reqs
}

// ofMethod is the requests of method the log holds, in order.
func ofMethod(reqs []taskserver.Request, method string) []taskserver.Request {
	var out []taskserver.Request
	for _, r := range reqs {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// count is how many requests of method the log holds.
func count(reqs []taskserver.Request, method string) int { return len(ofMethod(reqs, method)) }

// checkTaskRequests checks what every request of the log says of the
// client: every request declared the extension (or, with declared false,
// none did),
// no requestState it echoed was refused as stale, and over HTTP each
// tasks/* request named its task in Mcp-Name.
func (s taskServer) checkTaskRequests(t *testing.T, declared bool) []taskserver.Request {
	t.Helper()
	reqs := s.requests(t)
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		assert.Equal(t, declared, r.Declared, "%s declares the extension", r.Method)
		assert.Empty(t, r.Refused, "%s was refused", r.Method)
		if strings.HasPrefix(r.Method, "tasks/") {
			assert.NotEmpty(t, r.RequestState, "%s echoes the requestState", r.Method)
			if s.http != nil {
				assert.Equal(t, r.TaskID, r.McpName, "%s: Mcp-Name is the task id", r.Method)
				assert.Equal(t, r.Method, r.McpMethod, "%s: Mcp-Method", r.Method)
			}
		}
	}
	return reqs
}

func callWork(ctx context.Context, p *plugin.McpPlugin, args map[string]any) (*mcp.CallToolResult, error) {
	return p.CallTool(ctx, "work", args).Await(ctx)
}

func TestTaskCompletes(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			var mu sync.Mutex
			var progress []string
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithProgress(func(pr plugin.Progress) {
				mu.Lock()
				progress = append(progress, pr.Message)
				mu.Unlock()
			}))
			res, err := callWork(t.Context(), p, map[string]any{"polls": 3, "text": "finished", "message": "step"})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, "finished", plugin.RenderResult(res))
			mu.Lock()
			assert.Equal(t, []string{"step 1", "step 2", "step 3"}, progress, "each new status message is progress, before the result")
			mu.Unlock()

			// A quick tool answers as before.
			assert.Equal(t, "quick", callText(t, p, "quick", nil))

			reqs := s.checkTaskRequests(t, true)
			assert.Equal(t, 2, count(reqs, "tools/call"), "work once, quick once")
			assert.GreaterOrEqual(t, count(reqs, "tasks/get"), 4)
			assert.Zero(t, count(reqs, "tasks/cancel"), "a task that completed is not cancelled")
			assert.Zero(t, count(reqs, "subscriptions/listen"), "a server of the draft is not asked for notifications: it sends them unasked")
		})
	}
}

func TestTaskIsErrorAndFailure(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))

			res, err := callWork(t.Context(), p, map[string]any{"outcome": "isError", "text": "bad input"})
			require.NoError(t, err, "a completed task with isError is a result")
			assert.True(t, res.IsError)
			assert.Equal(t, "tool error: bad input", plugin.RenderResult(res))
			tr := p.CallTool(t.Context(), "work", map[string]any{"outcome": "isError", "text": "bad input"}).ToolResult(t.Context())
			assert.True(t, tr.IsError, "the hook's ToolResult keeps isError")

			_, err = callWork(t.Context(), p, map[string]any{"outcome": "fail"})
			require.Error(t, err)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			assert.NotErrorIs(t, err, plugin.ErrTaskLost)
			var rpc *jsonrpc.Error
			require.ErrorAs(t, err, &rpc, "the server's error of a failed task")
			assert.Equal(t, int64(taskserver.FailCode), rpc.Code)
			assert.Equal(t, taskserver.FailMessage, rpc.Message)
			assert.Contains(t, err.Error(), "task failed")

			reqs := s.checkTaskRequests(t, true)
			assert.Zero(t, count(reqs, "tasks/cancel"))
		})
	}
}

// oneCancel checks that the log holds exactly one tasks/cancel, accepted
// (its requestState the latest), and returns it.
func (s taskServer) oneCancel(t *testing.T) taskserver.Request {
	t.Helper()
	cancels := ofMethod(s.checkTaskRequests(t, true), "tasks/cancel")
	require.Len(t, cancels, 1, "tasks/cancel is sent once")
	return cancels[0]
}

// waitCancel waits until the server has received a tasks/cancel.
func (s taskServer) waitCancel(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return count(s.requests(t), "tasks/cancel") > 0 }, 30*time.Second, 5*time.Millisecond)
}

func TestTaskCancelledByCtx(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			polled := make(chan struct{}, 1)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithProgress(func(plugin.Progress) {
				select {
				case polled <- struct{}{}:
				default:
				}
			}))
			ctx, cancel := context.WithCancel(t.Context())
			f := p.CallTool(ctx, "work", map[string]any{"outcome": "never", "polls": 1000000, "message": "step"})
			<-polled // the task runs, and is polled
			cancel()
			_, err := f.Await(t.Context())
			require.ErrorIs(t, err, context.Canceled)
			s.waitCancel(t)
			require.NoError(t, p.Close())
			c := s.oneCancel(t)
			assert.NotEmpty(t, c.TaskID)
		})
	}
}

func TestTaskIdleTimeoutCancels(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			// The task never changes its status message: no sign of life.
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithIdleTimeout(300*time.Millisecond))
			_, err := callWork(t.Context(), p, map[string]any{"outcome": "never"})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "idle timeout")
			s.waitCancel(t)
			require.NoError(t, p.Close())
			s.oneCancel(t)
		})
	}
}

func TestTaskTimeoutCancels(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			// The task's own time replaces the default call timeout.
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{Timeout: 300 * time.Millisecond}),
				plugin.WithDefaultCallTimeout(time.Hour))
			_, err := callWork(t.Context(), p, map[string]any{"outcome": "never"})
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Contains(t, err.Error(), "the task timeout of 300ms (WithTasks)")
			s.waitCancel(t)
			require.NoError(t, p.Close())
			s.oneCancel(t)
		})
	}
}

func TestTaskInput(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			asked := 0
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithInputRequired(plugin.InputHandlers{
				Elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					assert.Equal(t, "Please enter your name.", req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
			}))
			// lag: the server shows the answered request twice more.
			res, err := callWork(t.Context(), p, map[string]any{"ask": true, "lag": 2})
			require.NoError(t, err)
			assert.Equal(t, "Hello, Ada!", plugin.RenderResult(res))
			assert.Equal(t, 1, asked, "each input request is answered once")
			reqs := s.checkTaskRequests(t, true)
			assert.Equal(t, 1, count(reqs, "tasks/update"))
			assert.Zero(t, count(reqs, "tasks/cancel"))
		})
	}
}

func TestTaskInputWithoutHandler(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))
			_, err := callWork(t.Context(), p, map[string]any{"ask": true})
			require.ErrorIs(t, err, plugin.ErrNotSupported)
			assert.Contains(t, err.Error(), "elicitation/create")
			assert.Contains(t, err.Error(), "WithInputRequired")
			require.NoError(t, p.Close())
			reqs := s.checkTaskRequests(t, true)
			assert.Zero(t, count(reqs, "tasks/update"))
			s.oneCancel(t)
		})
	}
}

func TestTaskTTLPasses(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))
			// ttl 0: the task's time to live ends as it is created.
			_, err := callWork(t.Context(), p, map[string]any{"outcome": "never", "ttl": 0})
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), "task expired")
			assert.Contains(t, err.Error(), "time to live of 0s passed")
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			require.NoError(t, p.Close())
			s.oneCancel(t)
		})
	}
}

func TestTaskResultOverTheCap(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithMaxResultBytes(100))
			args := map[string]any{"bytes": 5000}
			out := p.CallTool(t.Context(), "work", args).ToolResult(t.Context())
			assert.False(t, out.IsError)
			assert.LessOrEqual(t, len(out.Content), 100)
			assert.Contains(t, out.Content, "more cut]")
			res, err := callWork(t.Context(), p, args)
			require.NoError(t, err)
			assert.Len(t, plugin.RenderResult(res), 5000, "CallTool's result is whole")
			s.checkTaskRequests(t, true)
		})
	}
}

func TestTaskLostWhenServerForgets(t *testing.T) {
	leakCheck(t)
	s := taskServers(t)["http"](t)
	polled := make(chan struct{}, 1)
	p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}), plugin.WithProgress(func(plugin.Progress) {
		select {
		case polled <- struct{}{}:
		default:
		}
	}))
	until := filepath.Join(t.TempDir(), "never")
	f := p.CallTool(t.Context(), "work", map[string]any{"until": until, "message": "step"})
	<-polled
	// The server comes back on another directory: it knows the task no
	// more.
	require.NoError(t, s.http.Restart(t.TempDir()))
	_, err := f.Await(t.Context())
	require.ErrorIs(t, err, plugin.ErrTaskLost)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	var rpc *jsonrpc.Error
	assert.False(t, errors.As(err, &rpc) && rpc.Code == int64(taskserver.FailCode), "a lost task is no failed task")
	assert.Equal(t, 1, count(s.requests(t), "tools/call"), "the tool is not called again")
}

func TestTasksOff(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr)
			// Without the declaration the server answers at once.
			res, err := callWork(t.Context(), p, map[string]any{"text": "at once"})
			require.NoError(t, err)
			assert.Equal(t, "at once", plugin.RenderResult(res))
			reqs := s.checkTaskRequests(t, false)
			for _, r := range reqs {
				assert.False(t, r.Declared, "%s declares nothing", r.Method)
			}
			assert.Zero(t, count(reqs, "tasks/get"))

			// A tool served only as a task: the server's refusal says the
			// client lacks the extension, and the error says how to get it.
			_, err = callWork(t.Context(), p, map[string]any{"only": true})
			require.ErrorIs(t, err, plugin.ErrNotSupported)
			rpc, ok := errors.AsType[*jsonrpc.Error](err)
			require.True(t, ok, "the server's error: %v", err)
			assert.EqualValues(t, taskserver.MissingCapabilityCode, rpc.Code)
			assert.Contains(t, err.Error(), "plugin.WithTasks")
			reqs = s.requests(t)
			assert.Equal(t, "Missing required client capability", reqs[len(reqs)-1].Refused)
		})
	}
	t.Run("foreign transport", func(t *testing.T) {
		leakCheck(t)
		s := taskServers(t)["http"](t)
		// A transport of the host's own: the option declares nothing there.
		p := connect(t, foreignHTTP{url: s.http.URL}, plugin.WithTasks(plugin.TaskOptions{}))
		res, err := callWork(t.Context(), p, map[string]any{"text": "at once"})
		require.NoError(t, err)
		assert.Equal(t, "at once", plugin.RenderResult(res))
		s.checkTaskRequests(t, false)
	})
	t.Run("task anyway", func(t *testing.T) {
		leakCheck(t)
		p := connect(t, testserver.Raw(t, "task"))
		_, err := p.CallTool(t.Context(), "t", nil).Await(t.Context())
		require.ErrorIs(t, err, plugin.ErrNotSupported)
		assert.Contains(t, err.Error(), `resultType "task"`)
	})
}

// foreignHTTP is a transport.McpTransport that is not the module's own:
// go-sdk's Streamable HTTP client transport, bare.
type foreignHTTP struct{ url string }

func (f foreignHTTP) String() string { return "foreign " + f.url }

func (f foreignHTTP) Open(*zap.Logger) (mcp.Transport, error) {
	return &mcp.StreamableClientTransport{Endpoint: f.url}, nil
}

// A task answer the client cannot drive (a status the SEP does not know)
// fails the call, and the task it names is cancelled before the caller
// hears of it: the server does not run it for nobody.
func TestTaskAnswerNotDrivenIsCancelled(t *testing.T) {
	for name, start := range taskServers(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			s := start(t)
			p := connect(t, s.tr, plugin.WithTasks(plugin.TaskOptions{}))
			_, err := p.CallTool(t.Context(), "malformed", nil).Await(t.Context())
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), "server answered a task")
			cancels := ofMethod(s.requests(t), "tasks/cancel")
			require.Len(t, cancels, 1, "cancelled once, before the call failed")
			assert.Equal(t, taskserver.MalformedTaskID, cancels[0].TaskID)
		})
	}
}
