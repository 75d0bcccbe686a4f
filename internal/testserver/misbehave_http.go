package testserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// MisbehavingHTTP is a hand-written Streamable HTTP endpoint (JSON
// responses, no sessions) whose tools misbehave over HTTP:
//
//   - ok: text "ok".
//   - huge {mib}: an application/json response with a text result of mib
//     MiB, streamed without a Content-Length.
//   - huge_sse {mib}: the same result as one server-sent event.
//   - status {code, body}: answers with that HTTP status and body (text).
//   - garbage: a 200 application/json response that is not JSON.
type MisbehavingHTTP struct {
	// URL is the endpoint.
	URL string

	mu      sync.Mutex
	headers []http.Header
}

// Headers returns the headers of every request received so far.
func (m *MisbehavingHTTP) Headers() []http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]http.Header(nil), m.headers...)
}

// NewMisbehavingHTTP starts a [MisbehavingHTTP] on a loopback port; it stops
// when the test ends.
func NewMisbehavingHTTP(t testing.TB) *MisbehavingHTTP {
	t.Helper()
	m := &MisbehavingHTTP{}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

func (m *MisbehavingHTTP) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.headers = append(m.headers, r.Header.Clone())
	m.mu.Unlock()
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req rawRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	switch req.Method {
	case "server/discover":
		res, _ := answer("misbehave-http", req.Method)
		reply(res)
		return
	case "tools/list":
		reply(toolDefs("ok", "huge", "huge_sse", "status", "garbage"))
		return
	case "tools/call":
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": rpcError{Code: -32601, Message: "Method not found"}})
		return
	}
	var p callParams
	_ = json.Unmarshal(req.Params, &p)
	var a struct {
		MiB  int    `json:"mib"`
		Code int    `json:"code"`
		Body string `json:"body"`
	}
	_ = json.Unmarshal(p.Arguments, &a)
	switch p.Name {
	case "huge", "huge_sse":
		prefix, suffix := "", "\n"
		if p.Name == "huge_sse" {
			w.Header().Set("Content-Type", "text/event-stream")
			prefix, suffix = "event: message\ndata: ", "\n\n"
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		fmt.Fprintf(w, `%s{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, prefix, req.ID)
		block := bytes.Repeat([]byte("x"), 1<<20)
		for range a.MiB {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}]}}`+suffix)
	case "status":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(a.Code)
		_, _ = io.WriteString(w, a.Body)
	case "garbage":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "this is not json\n")
	default:
		reply(textResult("ok"))
	}
}
