package testserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// SessionFirstMessage is what the raw mode "session_first" answers
// server/discover with, under code 0: gopls's words (v0.23.0, `gopls mcp`).
const SessionFirstMessage = `method "server/discover" is invalid during session initialization`

func init() {
	rawModes["session_first"] = serveSessionFirst
}

// serveSessionFirst is a server that wants a legacy session first, as
// gopls does: every request before initialize is answered with a JSON-RPC
// error of code 0 ([SessionFirstMessage] for server/discover), and the
// server stays up, reading, until its stdin closes. args[0], when given, is
// a file that receives a line per message received (its method).
func serveSessionFirst(args []string, in io.Reader, out io.Writer) error {
	log, closeLog, err := methodLog(args)
	if err != nil {
		return err
	}
	defer closeLog()
	enc := json.NewEncoder(out)
	sc := requestLines(in)
	for sc.Scan() {
		var req rawRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		fmt.Fprintln(log, req.Method)
		if len(req.ID) == 0 {
			continue
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if req.Method == "initialize" {
			msg["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
				"serverInfo": map[string]any{"name": "session-first", "version": "0"}}
		} else {
			msg["error"] = rpcError{Code: 0, Message: fmt.Sprintf("method %q is invalid during session initialization", req.Method)}
		}
		if err := enc.Encode(msg); err != nil {
			return err
		}
	}
	return sc.Err()
}

// RefusingHTTP is a Streamable HTTP endpoint of an older revision that
// answers every POST with one HTTP error status and body, as the
// TypeScript SDK v1's stateful server answers a POST that is not an
// initialize of a session ("Bad Request: Server not initialized").
type RefusingHTTP struct {
	// URL is the endpoint.
	URL string
	// Posts counts the POSTs received.
	Posts atomic.Int64
}

// LegacyNotInitializedBody is the body the TypeScript SDK v1 sends with its
// 400 to a POST before the session's initialize.
const LegacyNotInitializedBody = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`

// NewRefusingHTTP starts a [RefusingHTTP] on a loopback port answering
// status with body (as application/json when it starts with "{", else as
// text); it stops when the test ends.
func NewRefusingHTTP(t testing.TB, status int, body string) *RefusingHTTP {
	t.Helper()
	r := &RefusingHTTP{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			r.Posts.Add(1)
		}
		_, _ = io.Copy(io.Discard, req.Body)
		if len(body) > 0 && body[0] == '{' {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// NewListErrorHTTP starts a Streamable HTTP endpoint that speaks
// 2026-07-28 (server/discover answers it) and answers tools/list with the
// JSON-RPC error code and message in a 200 answer, as the Supabase server
// answers -32603 "fetch failed" when its backend is away; it stops when
// the test ends, and returns its URL.
func NewListErrorHTTP(t testing.TB, code int, message string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req rawRequest
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "server/discover":
			msg["result"], _ = answer("list-error-http", req.Method)
		case "tools/list":
			msg["error"] = rpcError{Code: code, Message: message}
		default:
			msg["error"] = rpcError{Code: -32601, Message: "Method not found"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
