package tasks_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
)

// fresh opens a connection per request: a restarted server has closed the
// ones a pool would keep.
var fresh = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rpc is a JSON-RPC client of the task server, over HTTP or over lines.
type rpc struct {
	url string // HTTP when set

	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
}

func (c *rpc) request(ctx context.Context, method, taskID string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	var answer []byte
	if c.url != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Mcp-Method", method)
		if taskID != "" {
			req.Header.Set("Mcp-Name", taskID)
		}
		resp, err := fresh.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if answer, err = io.ReadAll(resp.Body); err != nil {
			return nil, err
		}
	} else {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, err := c.in.Write(append(body, '\n')); err != nil {
			return nil, err
		}
		if answer, err = c.out.ReadBytes('\n'); err != nil {
			return nil, err
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal(answer, &msg); err != nil {
		return nil, err
	}
	if msg.Error != nil {
		return nil, msg.Error
	}
	return msg.Result, nil
}

// start calls the work tool with args, declaring the extension, and
// parses the task it becomes.
func (c *rpc) start(t *testing.T, args map[string]any) *tasks.Task {
	t.Helper()
	raw, err := c.request(t.Context(), "tools/call", "", map[string]any{"name": "work", "arguments": args,
		"_meta": map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
			"extensions": map[string]any{tasks.Extension: map[string]any{}}}}})
	require.NoError(t, err)
	task, err := tasks.ParseCreated(raw)
	require.NoError(t, err)
	return task
}

// lines serves the task server over dir in this process, on pipes.
func lines(t *testing.T, dir string) *rpc {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- taskserver.New(dir).ServeLines(inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		assert.NoError(t, <-done)
	})
	return &rpc{in: inW, out: bufio.NewReader(outR)}
}

func served(t *testing.T, dir string) *taskserver.HTTP {
	h, err := taskserver.StartHTTP(dir)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, h.Stop()) })
	return h
}

// both runs a test over stdio lines and over HTTP.
func both(t *testing.T, run func(t *testing.T, c *rpc, dir string)) {
	t.Run("stdio", func(t *testing.T) {
		dir := t.TempDir()
		run(t, lines(t, dir), dir)
	})
	t.Run("http", func(t *testing.T) {
		dir := t.TempDir()
		run(t, &rpc{url: served(t, dir).URL}, dir)
	})
}

func text(t *testing.T, result json.RawMessage) (string, bool) {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(result, &r))
	require.Len(t, r.Content, 1)
	return r.Content[0].Text, r.IsError
}

func requests(t *testing.T, dir, method string) []taskserver.Request {
	t.Helper()
	all, err := taskserver.Requests(dir)
	require.NoError(t, err)
	var out []taskserver.Request
	for _, r := range all {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func TestATaskIsDrivenToItsResult(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		task := c.start(t, map[string]any{"polls": 3, "text": "finished", "message": "step"})
		var seen []string
		res, err := tasks.Drive(t.Context(), c.request, tasks.Config{Seen: func(t *tasks.Task) {
			seen = append(seen, string(t.Status)+":"+t.StatusMessage)
		}}, task)
		require.NoError(t, err)
		got, isError := text(t, res)
		assert.Equal(t, "finished", got)
		assert.False(t, isError)
		assert.Equal(t, []string{"working:step 1", "working:step 2", "working:step 3", "completed:"}, seen)

		// Every poll echoed the latest requestState (the server refuses any
		// other) and, over HTTP, named the task in Mcp-Name.
		gets := requests(t, dir, "tasks/get")
		require.Len(t, gets, 4)
		for _, g := range gets {
			assert.Empty(t, g.Refused)
			assert.Equal(t, task.ID, g.TaskID)
			if c.url != "" {
				assert.Equal(t, task.ID, g.McpName)
			}
		}
		assert.Len(t, requests(t, dir, "tools/call"), 1)
	})
}

func TestAFailedTaskIsItsJSONRPCError(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, _ string) {
		_, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, c.start(t, map[string]any{"outcome": "fail"}))
		require.ErrorIs(t, err, tasks.ErrFailed)
		var rpcErr *jsonrpc.Error
		require.ErrorAs(t, err, &rpcErr)
		assert.EqualValues(t, taskserver.FailCode, rpcErr.Code)
		assert.Equal(t, taskserver.FailMessage, rpcErr.Message)
	})
}

func TestAnIsErrorResultIsAResult(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, _ string) {
		res, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, c.start(t, map[string]any{"outcome": "isError", "text": "bad input"}))
		require.NoError(t, err)
		got, isError := text(t, res)
		assert.Equal(t, "bad input", got)
		assert.True(t, isError)
	})
}

func TestInputIsAnsweredOnceAcrossPolls(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		var asked []string
		answer := func(_ context.Context, key string, req json.RawMessage) (json.RawMessage, error) {
			var r struct {
				Method string `json:"method"`
			}
			require.NoError(t, json.Unmarshal(req, &r))
			asked = append(asked, key+" "+r.Method)
			return json.RawMessage(`{"action":"accept","content":{"name":"Ana"}}`), nil
		}
		// lag: the server still shows the answered request on the next two
		// polls, as the SEP allows.
		res, err := tasks.Drive(t.Context(), c.request, tasks.Config{Answer: answer}, c.start(t, map[string]any{"ask": true, "lag": 2}))
		require.NoError(t, err)
		got, _ := text(t, res)
		assert.Equal(t, "Hello, Ana!", got)
		assert.Equal(t, []string{taskserver.InputKey + " elicitation/create"}, asked)
		updates := requests(t, dir, "tasks/update")
		require.Len(t, updates, 1)
		assert.Equal(t, []string{taskserver.InputKey}, updates[0].InputResponses)
		assert.Empty(t, updates[0].Refused)
	})
}

func TestInputWithoutAHandlerCancelsTheTask(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		_, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, c.start(t, map[string]any{"ask": true}))
		require.ErrorIs(t, err, tasks.ErrNoInput)
		cancels := requests(t, dir, "tasks/cancel")
		require.Len(t, cancels, 1)
		assert.Empty(t, cancels[0].Refused)
	})
}

func TestTheCallersEndCancelsTheTaskOnce(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		ctx, cancel := context.WithCancel(t.Context())
		polled := 0
		_, err := tasks.Drive(ctx, c.request, tasks.Config{Seen: func(*tasks.Task) {
			if polled++; polled == 2 {
				cancel()
			}
		}}, c.start(t, map[string]any{"outcome": "never"}))
		require.ErrorIs(t, err, context.Canceled)
		cancels := requests(t, dir, "tasks/cancel")
		require.Len(t, cancels, 1)
		assert.Empty(t, cancels[0].Refused, "the cancel echoes the latest requestState")
	})
}

func TestACancelAfterAPollInFlightEchoesItsRequestState(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		ctx, cancel := context.WithCancel(t.Context())
		gets := 0
		// The caller gives up while the second tasks/get is on its way: the
		// server takes it and moves on to a new requestState, and a sender
		// whose ctx has ended by then returns without the answer, as the
		// connection's does.
		send := func(sctx context.Context, method, id string, params any) (json.RawMessage, error) {
			if method == "tasks/get" {
				if gets++; gets == 2 {
					cancel()
				}
			}
			raw, err := c.request(context.WithoutCancel(sctx), method, id, params)
			if sctx.Err() != nil {
				return nil, sctx.Err()
			}
			return raw, err
		}
		_, err := tasks.Drive(ctx, send, tasks.Config{}, c.start(t, map[string]any{"outcome": "never"}))
		require.ErrorIs(t, err, context.Canceled)
		cancels := requests(t, dir, "tasks/cancel")
		require.Len(t, cancels, 1)
		assert.Empty(t, cancels[0].Refused, "the cancel echoes the requestState of the poll in flight")
	})
}

// A cancel that fails is the drive's error, beside ctx's: the caller
// tells a connection that failed under it from a server's refusal.
func TestACancelThatFailsIsACancelError(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		ctx, cancel := context.WithCancel(t.Context())
		broken := errors.New("connection refused")
		send := func(sctx context.Context, method, id string, params any) (json.RawMessage, error) {
			if method == "tasks/cancel" {
				return nil, broken
			}
			return c.request(sctx, method, id, params)
		}
		_, err := tasks.Drive(ctx, send, tasks.Config{Seen: func(*tasks.Task) { cancel() }},
			c.start(t, map[string]any{"outcome": "never", "polls": 100}))
		require.ErrorIs(t, err, context.Canceled)
		ce, ok := errors.AsType[*tasks.CancelError](err)
		require.True(t, ok, "%v", err)
		require.ErrorIs(t, ce.Err, broken)
		assert.Empty(t, requests(t, dir, "tasks/cancel"))

		// A cancel the server answers is no error of the drive's.
		ctx, cancel = context.WithCancel(t.Context())
		_, err = tasks.Drive(ctx, c.request, tasks.Config{Seen: func(*tasks.Task) { cancel() }},
			c.start(t, map[string]any{"outcome": "never", "polls": 100}))
		require.ErrorIs(t, err, context.Canceled)
		_, ok = errors.AsType[*tasks.CancelError](err)
		assert.False(t, ok, "%v", err)
		assert.Len(t, requests(t, dir, "tasks/cancel"), 1)
	})
}

func TestALeftTaskIsNotCancelled(t *testing.T) {
	both(t, func(t *testing.T, c *rpc, dir string) {
		gone := errors.New("the connection ended")
		ctx, cancel := context.WithCancelCause(t.Context())
		var causes []error
		_, err := tasks.Drive(ctx, c.request, tasks.Config{
			Seen:  func(*tasks.Task) { cancel(gone) },
			Leave: func(cause error) bool { causes = append(causes, cause); return true },
		}, c.start(t, map[string]any{"outcome": "never", "polls": 100}))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []error{gone}, causes, "Leave is asked with ctx's cause")
		assert.Empty(t, requests(t, dir, "tasks/cancel"), "a task left runs on")
	})
}

func TestAStateResumesTheTask(t *testing.T) {
	dir := t.TempDir()
	c := &rpc{url: served(t, dir).URL}
	task := c.start(t, map[string]any{"polls": 3, "message": "step"})
	var kept *tasks.Task
	polls := 0
	ctx, cancel := context.WithCancel(t.Context())
	_, err := tasks.Drive(ctx, c.request, tasks.Config{
		Keep:  func(t *tasks.Task) error { kept = t; return nil },
		Seen:  func(*tasks.Task) { polls++; cancel() },
		Leave: func(error) bool { return true },
	}, task)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, polls)
	// The public state, as a store keeps it, round-trips through JSON.
	b, err := json.Marshal(kept.State())
	require.NoError(t, err)
	var st struct{ RequestState string }
	require.NoError(t, json.Unmarshal(b, &st))
	assert.Equal(t, *kept.RequestState, st.RequestState)
	from := tasks.FromState(kept.State())
	assert.Equal(t, kept.RequestState, from.RequestState)
	res, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, from)
	require.NoError(t, err)
	got, _ := text(t, res)
	assert.Equal(t, "done", got)
	for _, g := range requests(t, dir, "tasks/get") {
		assert.Empty(t, g.Refused, "the kept requestState is the latest")
	}
}

func TestATaskPastItsTimeToLiveExpires(t *testing.T) {
	c := &rpc{url: served(t, t.TempDir()).URL}
	// A time to live of one second that must pass: the server keeps the
	// task working for ever.
	_, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, c.start(t, map[string]any{"outcome": "never", "ttl": 1, "interval": 100}))
	require.ErrorIs(t, err, tasks.ErrExpired)
	assert.Contains(t, err.Error(), "time to live of 1s")
}

func TestATaskResumesOnANewConnectionAndIsLostOnAServerThatForgot(t *testing.T) {
	dir := t.TempDir()
	h := served(t, dir)
	c := &rpc{url: h.URL}
	gate := filepath.Join(dir, "gate")
	task := c.start(t, map[string]any{"until": gate})

	// The first drive keeps every description and ends with the server.
	var kept *tasks.Task
	keep := func(t *tasks.Task) error { kept = t; return nil }
	stopped := false
	_, err := tasks.Drive(t.Context(), c.request, tasks.Config{Keep: keep, Seen: func(*tasks.Task) {
		if !stopped {
			stopped = true
			require.NoError(t, h.Stop())
		}
	}}, task)
	require.Error(t, err)
	assert.NotErrorIs(t, err, tasks.ErrLost)
	require.NotNil(t, kept)

	// The server comes back with its tasks; a new drive resumes from what
	// was kept, and the tool is not called again.
	require.NoError(t, h.Restart(dir))
	require.NoError(t, os.WriteFile(gate, nil, 0o600))
	res, err := tasks.Drive(t.Context(), c.request, tasks.Config{}, kept)
	require.NoError(t, err)
	got, _ := text(t, res)
	assert.Equal(t, "done", got)
	assert.Len(t, requests(t, dir, "tools/call"), 1)
	for _, g := range requests(t, dir, "tasks/get") {
		assert.Empty(t, g.Refused)
	}

	// A server that forgot its tasks makes the next one lost.
	task = c.start(t, map[string]any{"outcome": "never"})
	require.NoError(t, h.Restart(t.TempDir()))
	_, err = tasks.Drive(t.Context(), c.request, tasks.Config{}, task)
	require.ErrorIs(t, err, tasks.ErrLost)
}

func TestANotificationEndsTheWait(t *testing.T) {
	c := &rpc{url: served(t, t.TempDir()).URL}
	task := c.start(t, map[string]any{"outcome": "never", "interval": 60000})
	updates := make(chan *tasks.Task, 1)
	updates <- &tasks.Task{ID: task.ID, Status: tasks.Completed, Result: json.RawMessage(`{"content":[{"type":"text","text":"pushed"}]}`)}
	res, err := tasks.Drive(t.Context(), c.request, tasks.Config{Updates: updates, MaxInterval: time.Hour}, task)
	require.NoError(t, err)
	got, _ := text(t, res)
	assert.Equal(t, "pushed", got)
}

func TestNotificationsOfAnotherTaskOrOlderChangeNothing(t *testing.T) {
	dir := t.TempDir()
	c := &rpc{url: served(t, dir).URL}
	task := c.start(t, nil) // completes with "done" at its second poll
	pushed := json.RawMessage(`{"content":[{"type":"text","text":"pushed"}]}`)
	updates := make(chan *tasks.Task, 2)
	updates <- &tasks.Task{ID: "another", Status: tasks.Completed, Result: pushed}
	updates <- &tasks.Task{ID: task.ID, Status: tasks.Completed, Result: pushed, LastUpdatedAt: task.LastUpdatedAt.Add(-time.Second)}
	close(updates)
	res, err := tasks.Drive(t.Context(), c.request, tasks.Config{Updates: updates}, task)
	require.NoError(t, err)
	got, _ := text(t, res)
	assert.Equal(t, "done", got)
	assert.Len(t, requests(t, dir, "tasks/get"), 2)
}

func TestANotificationWithoutRequestStateKeepsTheLatest(t *testing.T) {
	dir := t.TempDir()
	c := &rpc{url: served(t, dir).URL}
	task := c.start(t, nil)
	updates := make(chan *tasks.Task, 1)
	updates <- &tasks.Task{ID: task.ID, Status: tasks.Working, StatusMessage: "pushed"}
	var seen []string
	res, err := tasks.Drive(t.Context(), c.request, tasks.Config{Updates: updates, Seen: func(u *tasks.Task) { seen = append(seen, u.StatusMessage) }}, task)
	require.NoError(t, err)
	got, _ := text(t, res)
	assert.Equal(t, "done", got)
	assert.Contains(t, seen, "pushed")
	for _, g := range requests(t, dir, "tasks/get") {
		assert.Empty(t, g.Refused) // the server refuses a stale or missing requestState
	}
}

func TestKeepingFailsTheDriveAndCancelsTheTask(t *testing.T) {
	dir := t.TempDir()
	c := &rpc{url: served(t, dir).URL}
	full := errors.New("disk full")
	_, err := tasks.Drive(t.Context(), c.request, tasks.Config{Keep: func(*tasks.Task) error { return full }}, c.start(t, nil))
	require.ErrorIs(t, err, full)
	assert.Len(t, requests(t, dir, "tasks/cancel"), 1)
	assert.Empty(t, requests(t, dir, "tasks/get"))
}

func TestParseRefusesWhatTheSEPDoesNotAllow(t *testing.T) {
	for _, tc := range []struct{ name, raw string }{
		{"no id", `{"resultType":"complete","status":"working"}`},
		{"unknown status", `{"resultType":"complete","taskId":"a","status":"sleeping"}`},
		{"completed without result", `{"resultType":"complete","taskId":"a","status":"completed"}`},
		{"failed without error", `{"resultType":"complete","taskId":"a","status":"failed"}`},
		{"input without requests", `{"resultType":"complete","taskId":"a","status":"input_required"}`},
		{"get answered as a task", `{"resultType":"task","taskId":"a","status":"working"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tasks.ParseGot(json.RawMessage(tc.raw))
			require.ErrorIs(t, err, tasks.ErrInvalid)
		})
	}
	created, err := tasks.ParseCreated(json.RawMessage(`{"resultType":"task","taskId":"a","status":"working","result":{"content":[]}}`))
	require.NoError(t, err)
	assert.Nil(t, created.Result, "a CreateTaskResult's result is never used")
	_, err = tasks.ParseCreated(json.RawMessage(`{"resultType":"complete","taskId":"a","status":"working"}`))
	require.ErrorIs(t, err, tasks.ErrInvalid)
}

func ExampleDrive() {
	dir, _ := os.MkdirTemp("", "tasks")
	defer os.RemoveAll(dir)
	h, _ := taskserver.StartHTTP(dir)
	defer h.Stop()
	c := &rpc{url: h.URL}
	raw, _ := c.request(context.Background(), "tools/call", "", map[string]any{"name": "work",
		"arguments": map[string]any{"polls": 2, "text": "ready"},
		"_meta": map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{
			"extensions": map[string]any{tasks.Extension: map[string]any{}}}}})
	task, _ := tasks.ParseCreated(raw)
	res, err := tasks.Drive(context.Background(), c.request, tasks.Config{}, task)
	fmt.Println(string(res), err)
	// Output: {"content":[{"text":"ready","type":"text"}],"isError":false} <nil>
}

// A task may start already ended (SEP-2663 lets it start in any status),
// and the answer that created it carries no result nor error: the driver
// asks tasks/get once for them, and never panics on a failed task without
// its error.
func TestATaskThatStartsEndedIsDrivenLikeAnyOther(t *testing.T) {
	for _, tc := range []struct {
		name, got string
		check     func(t *testing.T, res json.RawMessage, err error)
	}{
		{"completed", `{"taskId":"t1","status":"completed","result":{"content":[{"type":"text","text":"done"}]}}`,
			func(t *testing.T, res json.RawMessage, err error) {
				require.NoError(t, err)
				got, isError := text(t, res)
				assert.Equal(t, "done", got)
				assert.False(t, isError)
			}},
		{"failed", `{"taskId":"t1","status":"failed","error":{"code":-32000,"message":"broke"}}`,
			func(t *testing.T, _ json.RawMessage, err error) {
				require.ErrorIs(t, err, tasks.ErrFailed)
				var rpcErr *jsonrpc.Error
				require.ErrorAs(t, err, &rpcErr)
				assert.Equal(t, "broke", rpcErr.Message)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			created, err := tasks.ParseCreated(json.RawMessage(`{"resultType":"task","taskId":"t1","status":"` + tc.name + `"}`))
			require.NoError(t, err)
			var methods []string
			send := func(_ context.Context, method, taskID string, _ any) (json.RawMessage, error) {
				methods = append(methods, method+" "+taskID)
				return json.RawMessage(tc.got), nil
			}
			res, err := tasks.Drive(t.Context(), send, tasks.Config{}, created)
			tc.check(t, res, err)
			assert.Equal(t, []string{"tasks/get t1"}, methods, "one tasks/get, nothing else")
		})
	}
	// A failed task whose error never came reads as failed, without a panic.
	t.Run("failed, and tasks/get refused", func(t *testing.T) {
		created, err := tasks.ParseCreated(json.RawMessage(`{"resultType":"task","taskId":"t1","status":"failed","statusMessage":"gone"}`))
		require.NoError(t, err)
		send := func(context.Context, string, string, any) (json.RawMessage, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such task"}
		}
		_, err = tasks.Drive(t.Context(), send, tasks.Config{}, created)
		require.ErrorIs(t, err, tasks.ErrLost)
		assert.NotPanics(t, func() { _ = err.Error() })
	})
}
