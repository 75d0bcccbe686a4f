package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
)

func question() *host.Request {
	return host.NewRequest("").AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"})
}

func TestStreamReasoningAndText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delta func(string) string
	}{
		{"reasoning_content (llama-server)", func(s string) string { return reasoning("reasoning_content", s) }},
		{"reasoning (vLLM, Ollama)", func(s string) string { return reasoning("reasoning", s) }},
		{"both fields with the same text", func(s string) string {
			return `{"reasoning_content":"` + s + `","reasoning":"` + s + `"}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, streamOf(
				chunk(roleDelta, ""),
				chunk(tc.delta("Twenty-one "), ""),
				chunk(tc.delta("plus twenty-one "), ""),
				chunk(tc.delta("is 42."), ""),
				chunk(content("The sum "), ""),
				chunk(content("is 42."), ""),
				chunk(`{}`, "stop"),
			))
			rec := &recorder{name: "rec", log: &eventLog{}}
			res, err := srv.newClient(t, client.WithPlugin(rec)).Stream(t.Context(), question())
			require.NoError(t, err)

			want := []host.Block{
				host.Thinking{Text: "Twenty-one plus twenty-one is 42."},
				host.Text{Text: "The sum is 42."},
			}
			assert.Equal(t, want, res.Blocks)
			assert.Equal(t, "stop", res.FinishReason)
			assert.Equal(t, 3, res.ThinkingBlocks, "one per reasoning delta")
			assert.Equal(t, "The sum is 42.", res.Text())
			assert.Equal(t, [][]host.Block{want[:1], want[1:]}, rec.chunks, "one chunk per completed block")
		})
	}
}

func TestStreamToolCallArgumentsSplitAcrossDeltas(t *testing.T) {
	args := `{"a":21,"b":21}`
	parts := splitArgs(args, 4)
	require.Equal(t, args, joined(parts))
	events := []string{chunk(roleDelta, ""), chunk(toolDelta(0, "call_1", "add", ""), "")}
	for _, p := range parts {
		events = append(events, chunk(toolDelta(0, "", "", p), ""))
	}
	events = append(events, chunk(`{}`, "tool_calls"))
	srv := newLLMServer(t, streamOf(events...))

	rec := &recorder{name: "rec", log: &eventLog{}}
	res, err := srv.newClient(t, client.WithPlugin(rec)).Stream(t.Context(), question())
	require.NoError(t, err)

	require.Len(t, rec.chunks, 1, "the tool call reaches the hook once, complete")
	call, ok := rec.chunks[0][0].(host.ToolCall)
	require.True(t, ok, "got %T", rec.chunks[0][0])
	assert.Equal(t, "call_1", call.ID)
	assert.Equal(t, "add", call.Name)
	assert.JSONEq(t, args, string(call.Arguments))
	assert.Equal(t, "tool_calls", res.FinishReason)
	assert.Equal(t, []host.Block{call}, res.Blocks, "no plugin ran it: it passes through")
	assert.Equal(t, []host.ToolCall{call}, res.PendingToolCalls())
}

func TestStreamSeveralToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []string
	}{
		{"one after the other", []string{
			chunk(roleDelta, ""),
			chunk(content("Let me compute."), ""),
			chunk(toolDelta(0, "call_a", "add", `{"a":1,`), ""),
			chunk(toolDelta(0, "", "", `"b":2}`), ""),
			chunk(toolDelta(1, "call_w", "weather", `{"city":`), ""),
			chunk(toolDelta(1, "", "", `"Paris"}`), ""),
			chunk(toolDelta(2, "call_b", "add", `{"a":40,"b":2}`), ""),
			chunk(`{}`, "tool_calls"),
		}},
		{"all in one delta", []string{
			chunk(roleDelta, ""),
			chunk(content("Let me compute."), ""),
			chunk(`{"tool_calls":[`+
				`{"index":0,"id":"call_a","type":"function","function":{"name":"add","arguments":"{\"a\":1,\"b\":2}"}},`+
				`{"index":1,"id":"call_w","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},`+
				`{"index":2,"id":"call_b","type":"function","function":{"name":"add","arguments":"{\"a\":40,\"b\":2}"}}]}`, "tool_calls"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, streamOf(tc.events...))
			log := &eventLog{}
			add := &adder{}
			after := &recorder{name: "after", log: log}
			res, err := srv.newClient(t, client.WithPlugin(add), client.WithPlugin(after)).Stream(t.Context(), question())
			require.NoError(t, err)

			assert.Equal(t, 2, add.calls)
			assert.Equal(t, []host.Block{
				host.Text{Text: "Let me compute."},
				host.ToolResult{ToolCallID: "call_a", Name: "add", Content: "3"},
				host.ToolCall{ID: "call_w", Name: "weather", Arguments: []byte(`{"city":"Paris"}`)},
				host.ToolResult{ToolCallID: "call_b", Name: "add", Content: "42"},
			}, res.Blocks, "known tools become results, the unknown tool passes through")
			assert.Len(t, res.ToolCalls, 3, "the calls as the model made them")
			assert.Equal(t, []string{"call_a", "call_w", "call_b"},
				[]string{res.ToolCalls[0].ID, res.ToolCalls[1].ID, res.ToolCalls[2].ID})
			assert.Equal(t, []string{
				"after.OnRequest",
				`after.OnStreamChunk Text("Let me compute.")`,
				`after.OnStreamChunk ToolResult(call_a add "3" err=false)`,
				`after.OnStreamChunk ToolCall(call_w weather {"city":"Paris"})`,
				`after.OnStreamChunk ToolResult(call_b add "42" err=false)`,
				"after.OnResponseComplete tool_calls",
			}, log.all(), "the second plugin sees each chunk as the first left it")
		})
	}
}

func TestStreamHookOrder(t *testing.T) {
	srv := newLLMServer(t, streamOf(
		chunk(reasoning("reasoning_content", "hmm"), ""),
		chunk(toolDelta(0, "call_1", "add", `{"a":21,"b":21}`), ""),
		chunk(`{}`, "tool_calls"),
	))
	log := &eventLog{}
	a := &recorder{name: "A", log: log}
	b := &recorder{name: "B", log: log}
	res, err := srv.newClient(t, client.WithPlugin(a), client.WithPlugin(b)).Stream(t.Context(), question())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"A.OnRequest", "B.OnRequest",
		`A.OnStreamChunk Thinking("hmm")`, `B.OnStreamChunk Thinking("hmm")`,
		`A.OnStreamChunk ToolCall(call_1 add {"a":21,"b":21})`, `B.OnStreamChunk ToolCall(call_1 add {"a":21,"b":21})`,
		"A.OnResponseComplete tool_calls", "B.OnResponseComplete tool_calls",
	}, log.all())
	assert.Equal(t, res.Blocks, b.resp.Blocks)
}

func TestStreamExecuteLocalTool(t *testing.T) {
	srv := newLLMServer(t, streamOf(
		chunk(toolDelta(0, "call_1", "clock", `{}`), ""),
		chunk(toolDelta(1, "call_2", "other", `{}`), ""),
		chunk(`{}`, "tool_calls"),
	))
	res, err := srv.newClient(t, client.WithPlugin(&localRunner{name: "clock"})).Stream(t.Context(), question())
	require.NoError(t, err)
	assert.Equal(t, []host.Block{
		host.ToolResult{ToolCallID: "call_1", Name: "clock", Content: "ran clock"},
		host.ToolCall{ID: "call_2", Name: "other", Arguments: []byte(`{}`)},
	}, res.Blocks)
}

func TestStreamBadToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		events  []string
		want    host.Block
		isError bool
	}{
		{
			name:   "unknown tool passes through",
			events: []string{chunk(toolDelta(0, "call_1", "rm_rf", `{"path":"/"}`), "tool_calls")},
			want:   host.ToolCall{ID: "call_1", Name: "rm_rf", Arguments: []byte(`{"path":"/"}`)},
		},
		{
			name: "malformed arguments become an error result",
			events: []string{
				chunk(toolDelta(0, "call_1", "add", `{"a":21,`), ""),
				chunk(toolDelta(0, "", "", `"b":`), ""),
				chunk(`{}`, "tool_calls"),
			},
			isError: true,
		},
		{
			name:    "no arguments at all",
			events:  []string{chunk(toolDelta(0, "call_1", "add", ""), "tool_calls")},
			isError: true,
		},
		{
			name:   "no id and no index get a stable id",
			events: []string{chunk(`{"tool_calls":[{"function":{"name":"lookup","arguments":"{}"}}]}`, "tool_calls")},
			want:   host.ToolCall{ID: "call_0", Name: "lookup", Arguments: []byte(`{}`)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, streamOf(tc.events...))
			res, err := srv.newClient(t, client.WithPlugin(&adder{})).Stream(t.Context(), question())
			require.NoError(t, err)
			require.Len(t, res.Blocks, 1)
			if tc.isError {
				r, ok := res.Blocks[0].(host.ToolResult)
				require.True(t, ok, "got %T", res.Blocks[0])
				assert.True(t, r.IsError)
				assert.Equal(t, "call_1", r.ToolCallID)
				assert.Contains(t, r.Content, "invalid arguments")
				return
			}
			assert.Equal(t, tc.want, res.Blocks[0])
		})
	}
}

func TestStreamHTTPError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		message string
	}{
		{"llama-server JSON error", http.StatusNotFound,
			`{"error":{"code":404,"message":"model \"nope\" not found","type":"not_found_error"}}`, `model "nope" not found`},
		{"server error", http.StatusInternalServerError,
			`{"error":{"message":"out of memory","type":"server_error"}}`, "out of memory"},
		{"vLLM top-level error", http.StatusNotFound,
			`{"object":"error","message":"The model does not exist.","type":"NotFoundError","code":404}`, "The model does not exist."},
		{"plain text body", http.StatusBadRequest, "bad request, sorry", "bad request, sorry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			rec := &recorder{name: "rec", log: &eventLog{}}
			res, err := srv.newClient(t, client.WithPlugin(rec)).Stream(t.Context(), question())
			require.Error(t, err)

			var se *client.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.status, se.StatusCode)
			assert.Contains(t, err.Error(), srv.URL)
			assert.Contains(t, err.Error(), http.StatusText(tc.status))
			assert.Contains(t, err.Error(), tc.message)
			var apiErr *openai.Error
			assert.ErrorAs(t, err, &apiErr)
			assert.Empty(t, res.Blocks)
			assert.Equal(t, []string{"rec.OnRequest"}, rec.log.all(), "no chunk, no completion")
		})
	}
}

func TestStreamCutInTheMiddle(t *testing.T) {
	head := []string{
		chunk(content("The answer is "), ""),
		chunk(toolDelta(0, "call_1", "add", `{"a":21,`), ""),
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		is      error
	}{
		{"connection dropped", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, head...)
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}, nil},
		{"body ends without finish_reason", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, head...)
		}, client.ErrIncompleteStream},
		{"server sends an error event", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, append(head, `{"error":{"message":"context length exceeded"}}`)...)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, tc.handler)
			add := &adder{}
			rec := &recorder{name: "rec", log: &eventLog{}}
			res, err := srv.newClient(t, client.WithPlugin(add), client.WithPlugin(rec)).Stream(t.Context(), question())
			require.Error(t, err)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			require.NotNil(t, res, "the partial result comes back with the error")
			assert.Equal(t, []host.Block{host.Text{Text: "The answer is "}}, res.Blocks)
			assert.Zero(t, add.calls, "a tool call cut short never runs")
			assert.Nil(t, rec.resp, "OnResponseComplete does not run")
		})
	}
}

func TestStreamMalformed(t *testing.T) {
	srv := newLLMServer(t, streamOf(
		chunk(toolDelta(0, "call_a", "add", `{}`), ""),
		chunk(toolDelta(1, "call_b", "add", `{}`), ""),
		chunk(toolDelta(0, "", "", `{"late":true}`), ""),
		chunk(`{}`, "tool_calls"),
	))
	res, err := srv.newClient(t).Stream(t.Context(), question())
	require.ErrorIs(t, err, client.ErrMalformedStream)
	assert.Len(t, res.Blocks, 1, "call_a completed before the error")
}

func TestStreamCancelledByContext(t *testing.T) {
	srv := newLLMServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, chunk(reasoning("reasoning_content", "thinking..."), ""), chunk(content("partial"), ""))
		// A model that stalls until the client goes away. The timer is only
		// a guard: if cancelling failed to end the stream, the stream ends
		// normally and the assertions below fail instead of the test hanging.
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
			sse(w, chunk(`{}`, "stop"), "[DONE]")
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The Thinking block completes when the text begins; the hook then
	// cancels while the server is stalled.
	rec := &recorder{name: "rec", log: &eventLog{}, onChunk: func(context.Context, *host.Chunk) error {
		cancel()
		return nil
	}}
	res, err := srv.newClient(t, client.WithPlugin(rec)).Stream(ctx, question())
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, []host.Block{host.Thinking{Text: "thinking..."}}, res.Blocks)
}

func TestStreamHookErrors(t *testing.T) {
	boom := errors.New("boom")
	srv := newLLMServer(t, streamOf(chunk(content("hi"), "stop")))

	t.Run("OnRequest", func(t *testing.T) {
		p := &recorder{name: "picky", log: &eventLog{}, onRequest: func(*host.Request) error { return boom }}
		res, err := srv.newClient(t, client.WithPlugin(p)).Stream(t.Context(), question())
		require.ErrorIs(t, err, client.ErrHook)
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), `"picky"`)
		assert.Nil(t, res)
	})
	t.Run("OnStreamChunk", func(t *testing.T) {
		p := &recorder{name: "picky", log: &eventLog{}, onChunk: func(context.Context, *host.Chunk) error { return boom }}
		_, err := srv.newClient(t, client.WithPlugin(p)).Stream(t.Context(), question())
		require.ErrorIs(t, err, client.ErrHook)
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), "OnStreamChunk")
	})
}

func TestStreamOnRequestEditsACopy(t *testing.T) {
	srv := newLLMServer(t, streamOf(chunk(content("ok"), "stop")))
	p := &recorder{name: "tools", log: &eventLog{}, onRequest: func(r *host.Request) error {
		r.AddTool(host.ToolDefinition{Name: "add", Description: "Add two numbers and return their sum"})
		return nil
	}}
	c := srv.newClient(t, client.WithPlugin(p))
	req := question()
	for range 2 {
		_, err := c.Stream(t.Context(), req)
		require.NoError(t, err)
	}
	assert.Empty(t, req.Tools, "the caller's request is untouched")
	tools := srv.lastBody(t)["tools"].([]any)
	assert.Len(t, tools, 1, "the plugin's tool was sent, once")
}
