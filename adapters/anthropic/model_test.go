package anthropicmcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The scripted model: a local server speaking the Messages API, streamed
// (SSE) or not, whose turn n answers with script[n].

// toolUse is one tool call the model makes.
type toolUse struct {
	Name  string
	Input string // JSON
}

// toolResult is a tool_result block of a request.
type toolResult struct {
	ID      string
	Text    string
	IsError bool
}

// turn is what the model does when it reads a request: call tools, or
// answer (from the request's tool results).
type turn func(t *testing.T, req request) (calls []toolUse, answer string)

// request is a request body the model received.
type request struct {
	Raw   json.RawMessage
	Tools []map[string]any
	// Results are the tool_result blocks of the last user message.
	Results []toolResult
}

type model struct {
	t      *testing.T
	script []turn
	mu     sync.Mutex
	reqs   []request
	srv    *httptest.Server
}

func newModel(t *testing.T, script ...turn) *model {
	m := &model{t: t, script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) requests() []request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]request(nil), m.reqs...)
}

func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" {
		http.Error(w, "no such path "+r.URL.Path, http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Stream   bool             `json:"stream"`
		Tools    []map[string]any `json:"tools"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := request{Raw: raw, Tools: body.Tools}
	if n := len(body.Messages); n > 0 && body.Messages[n-1].Role == "user" {
		for _, c := range body.Messages[n-1].Content {
			var b struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(c, &b) != nil || b.Type != "tool_result" {
				continue
			}
			req.Results = append(req.Results, toolResult{ID: b.ToolUseID, Text: resultText(b.Content), IsError: b.IsError})
		}
	}
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, req)
	m.mu.Unlock()
	if n >= len(m.script) {
		http.Error(w, fmt.Sprintf("the script has %d turns; this is request %d", len(m.script), n+1), http.StatusBadRequest)
		return
	}
	calls, answer := m.script[n](m.t, req)
	if body.Stream {
		m.stream(w, n, calls, answer)
		return
	}
	var content []map[string]any
	if answer != "" {
		content = append(content, map[string]any{"type": "text", "text": answer})
	}
	for i, c := range calls {
		content = append(content, map[string]any{"type": "tool_use", "id": callID(n, i), "name": c.Name, "input": json.RawMessage(c.Input)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "scripted",
		"content": content, "stop_reason": stopReason(calls), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})
}

func callID(turn, i int) string { return fmt.Sprintf("toolu_%d_%d", turn, i) }

func stopReason(calls []toolUse) string {
	if len(calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// stream writes the turn as the API's server-sent events.
func (m *model) stream(w http.ResponseWriter, n int, calls []toolUse, answer string) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "scripted", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 0}}})
	i := 0
	if answer != "" {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		// Two deltas: the client must put them together.
		half := len(answer) / 2
		for _, part := range []string{answer[:half], answer[half:]} {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for k, c := range calls {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{
			"type": "tool_use", "id": callID(n, k), "name": c.Name, "input": map[string]any{}}})
		half := len(c.Input) / 2
		for _, part := range []string{c.Input[:half], c.Input[half:]} {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stopReason(calls), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 1}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// call is a turn that calls one tool.
func call(name, input string) turn {
	return func(*testing.T, request) ([]toolUse, string) { return []toolUse{{name, input}}, "" }
}

// answerFromResult is a turn that answers with the one tool result it
// reads, prefixed.
func answerFromResult(prefix string) turn {
	return func(t *testing.T, req request) ([]toolUse, string) {
		require.Len(t, req.Results, 1, "the model expected one tool result")
		r := req.Results[0]
		state := "ok"
		if r.IsError {
			state = "error"
		}
		return nil, fmt.Sprintf("%s[%s] %s", prefix, state, r.Text)
	}
}

// toolNamed returns the request's tool of that name, or nil.
func toolNamed(req request, name string) map[string]any {
	for _, tl := range req.Tools {
		if tl["name"] == name {
			return tl
		}
	}
	return nil
}

func toolNames(req request) []string {
	var out []string
	for _, tl := range req.Tools {
		name, _ := tl["name"].(string)
		out = append(out, name)
	}
	return out
}
