package openaimcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The scripted model: a local server speaking the Chat Completions and
// Responses APIs, streamed (SSE) or not, whose turn n answers with
// script[n].

type toolUse struct {
	Name string
	Args string // JSON
}

// toolResult is what a request sent back for one call: a tool message or
// a function_call_output item.
type toolResult struct {
	ID   string
	Name string // Responses only
	Text string
}

type turn func(t *testing.T, req request) (calls []toolUse, answer string)

type request struct {
	Raw   json.RawMessage
	Tools []map[string]any
	// Results are the tool results after the model's last turn.
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
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Stream   bool             `json:"stream"`
		Tools    []map[string]any `json:"tools"`
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := request{Raw: raw, Tools: body.Tools}
	switch r.URL.Path {
	case "/chat/completions":
		for i := len(body.Messages) - 1; i >= 0 && body.Messages[i].Role == "tool"; i-- {
			var s string
			_ = json.Unmarshal(body.Messages[i].Content, &s)
			req.Results = append([]toolResult{{ID: body.Messages[i].ToolCallID, Text: s}}, req.Results...)
		}
	case "/responses":
		var items []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Name   string `json:"name"`
			Output string `json:"output"`
		}
		_ = json.Unmarshal(body.Input, &items)
		for i := len(items) - 1; i >= 0 && items[i].Type == "function_call_output"; i-- {
			req.Results = append([]toolResult{{ID: items[i].CallID, Name: items[i].Name, Text: items[i].Output}}, req.Results...)
		}
	default:
		http.Error(w, "no such path "+r.URL.Path, http.StatusNotFound)
		return
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
	if r.URL.Path == "/chat/completions" {
		m.chat(w, n, body.Stream, calls, answer)
	} else {
		m.responses(w, n, body.Stream, calls, answer)
	}
}

func callID(turn, i int) string { return fmt.Sprintf("call_%d_%d", turn, i) }

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

func (m *model) chat(w http.ResponseWriter, n int, stream bool, calls []toolUse, answer string) {
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id := fmt.Sprintf("chatcmpl_%d", n)
	if !stream {
		msg := map[string]any{"role": "assistant", "content": answer}
		var tcs []map[string]any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{"id": callID(n, i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		if tcs != nil {
			msg["tool_calls"] = tcs
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if answer != "" {
		half := len(answer) / 2
		chunk(map[string]any{"content": answer[:half]}, nil)
		chunk(map[string]any{"content": answer[half:]}, nil)
	}
	for i, c := range calls {
		half := len(c.Args) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": callID(n, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args[:half]}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.Args[half:]}}}}, nil)
	}
	chunk(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (m *model) responses(w http.ResponseWriter, n int, stream bool, calls []toolUse, answer string) {
	var output []any
	if answer != "" {
		output = append(output, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": answer, "annotations": []any{}}}})
	}
	for i, c := range calls {
		output = append(output, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i), "call_id": callID(n, i),
			"name": c.Name, "arguments": c.Args, "status": "completed"})
	}
	resp := map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1, "model": "scripted",
		"status": "completed", "output": output, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "response.created", map[string]any{"type": "response.created", "sequence_number": 0,
		"response": map[string]any{"id": resp["id"], "object": "response", "created_at": 1, "model": "scripted", "status": "in_progress", "output": []any{}}})
	seq := 1
	if answer != "" {
		half := len(answer) / 2
		for _, part := range []string{answer[:half], answer[half:]} {
			sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": seq,
				"item_id": fmt.Sprintf("msg_%d", n), "output_index": 0, "content_index": 0, "delta": part})
			seq++
		}
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "sequence_number": seq, "response": resp})
}

func call(name, args string) turn {
	return func(*testing.T, request) ([]toolUse, string) { return []toolUse{{name, args}}, "" }
}

func answerFromResult(prefix string) turn {
	return func(t *testing.T, req request) ([]toolUse, string) {
		require.Len(t, req.Results, 1, "the model expected one tool result")
		return nil, prefix + req.Results[0].Text
	}
}

func toolName(tl map[string]any) string {
	if name, ok := tl["name"].(string); ok {
		return name
	}
	if fn, ok := tl["function"].(map[string]any); ok {
		name, _ := fn["name"].(string)
		return name
	}
	if typ, _ := tl["type"].(string); typ == "tool_search" {
		return "(tool_search)"
	}
	return ""
}

func toolNames(req request) []string {
	var out []string
	for _, tl := range req.Tools {
		out = append(out, toolName(tl))
	}
	return out
}

func toolNamed(req request, name string) map[string]any {
	for _, tl := range req.Tools {
		if toolName(tl) == name {
			return tl
		}
	}
	return nil
}

// parameters is a tool's schema in either API's request.
func parameters(tl map[string]any) any {
	if fn, ok := tl["function"].(map[string]any); ok {
		return fn["parameters"]
	}
	return tl["parameters"]
}
