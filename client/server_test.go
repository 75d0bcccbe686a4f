package client_test

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
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/client"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// llmServer is a loopback OpenAI-compatible endpoint that answers every
// POST /v1/chat/completions with the handler's output and records what it
// was sent.
type llmServer struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []string
	requests []*http.Request
}

func newLLMServer(t *testing.T, handler http.HandlerFunc) *llmServer {
	t.Helper()
	s := &llmServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		s.requests = append(s.requests, r)
		s.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"no such route","type":"not_found_error","code":404}}`, http.StatusNotFound)
			return
		}
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// lastBody returns the JSON body of the last request, decoded.
func (s *llmServer) lastBody(t *testing.T) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.bodies, "the server received no request")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s.bodies[len(s.bodies)-1]), &m))
	return m
}

func (s *llmServer) lastRequest(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.requests, "the server received no request")
	return s.requests[len(s.requests)-1]
}

// newClient returns a client for s that never retries, with the plugins.
func (s *llmServer) newClient(t *testing.T, opts ...client.Option) *client.Client {
	t.Helper()
	opts = append([]client.Option{
		client.WithProvider(client.OpenAICompatible),
		client.WithBaseURL(s.URL + "/v1"),
		client.WithModel("test-model"),
		client.WithMaxRetries(0),
	}, opts...)
	c, err := client.New(opts...)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// sse writes events in the server-sent-events format of the chat-completions
// API, each flushed at once, so the client reads them one by one.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		f.Flush()
	}
}

// streamOf returns a handler that streams the events and then [DONE].
func streamOf(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		sse(w, append(events, "[DONE]")...)
	}
}

// chunk is one chat.completion.chunk with one choice carrying delta (a JSON
// object) and finish (a finish_reason, or "" for null).
func chunk(delta, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"test-model",`+
		`"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`, delta, fr)
}

// toolDelta is a tool_calls delta piece; id and name may be empty, and args
// is a fragment of the arguments' JSON text.
func toolDelta(index int, id, name, args string) string {
	tc := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
	if id != "" {
		tc["id"] = id
		tc["type"] = "function"
	}
	if name != "" {
		tc["function"].(map[string]any)["name"] = name
	}
	b, _ := json.Marshal(map[string]any{"tool_calls": []any{tc}})
	return string(b)
}

func content(s string) string {
	b, _ := json.Marshal(map[string]any{"content": s})
	return string(b)
}

func reasoning(field, s string) string {
	b, _ := json.Marshal(map[string]any{"content": nil, field: s})
	return string(b)
}

const roleDelta = `{"role":"assistant","content":""}`

// splitArgs cuts JSON text into n roughly equal fragments, as servers stream
// arguments token by token.
func splitArgs(s string, n int) []string {
	var out []string
	step := (len(s) + n - 1) / n
	for len(s) > 0 {
		k := min(step, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func joined(parts []string) string { return strings.Join(parts, "") }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
