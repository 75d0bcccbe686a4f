package testserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

func init() {
	rawModes["hang"] = serveHang
}

// serveHang is the raw server of mode "hang": it answers server/discover
// and lists one tool, "hang", whose calls it never answers, so that the
// client has to cancel them. Every message received, notifications
// included, is logged as [serveRaw] logs them to the file args[0].
func serveHang(args []string, in io.Reader, out io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("hang: want one argument, the log file; got %q", args)
	}
	log, err := os.OpenFile(args[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	conn := &rawConn{out: out}
	sc := requestLines(in)
	for sc.Scan() {
		var req rawRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		fmt.Fprintln(log, req.Method, metaSummary(req.Params))
		if len(req.ID) == 0 {
			continue
		}
		switch req.Method {
		case "server/discover":
			res, _ := answer("hang", req.Method)
			err = conn.result(req.ID, res)
		case "tools/list":
			err = conn.result(req.ID, toolDefs("hang"))
		case "tools/call":
			continue // never answered
		default:
			err = conn.rpcError(req.ID, -32601, "Method not found")
		}
		if err != nil {
			return err
		}
	}
	return sc.Err()
}

// Recorder is an http.Handler that notes every JSON-RPC message POSTed to
// it, as [serveRaw] logs them ("method protocolVersion clientName caps"),
// before handing the request to Next.
type Recorder struct {
	Next http.Handler

	mu    sync.Mutex
	lines []string
}

// ServeHTTP records r's message and serves r with Next.
func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req rawRequest
		if json.Unmarshal(body, &req) == nil {
			rec.mu.Lock()
			rec.lines = append(rec.lines, req.Method+" "+metaSummary(req.Params))
			rec.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	rec.Next.ServeHTTP(w, r)
}

// Lines returns what was recorded so far, one line per message.
func (rec *Recorder) Lines() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.lines...)
}
