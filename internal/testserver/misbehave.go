package testserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// rawModes are the raw servers that run a loop of their own (see
// [serveRaw]); each takes the arguments given to [Raw] after the mode.
var rawModes = map[string]func(args []string, in io.Reader, out io.Writer) error{
	"misbehave":  serveMisbehave,
	"tools":      serveToolList,
	"args":       serveArgsEcho,
	"introspect": serveIntrospect,
}

// rawRequest is one JSON-RPC message a raw server received.
type rawRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// callParams are the params of a tools/call as they came over the wire.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// rawConn writes whole lines to the client; it is safe for concurrent use.
type rawConn struct {
	mu  sync.Mutex
	out io.Writer
}

func (c *rawConn) line(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.out.Write(b); err != nil {
		return err
	}
	_, err := c.out.Write([]byte{'\n'})
	return err
}

func (c *rawConn) result(id json.RawMessage, result any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		return err
	}
	return c.line(b)
}

func (c *rawConn) rpcError(id json.RawMessage, code int, msg string) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	return c.line(b)
}

// textResult is a tools/call result with one text block.
func textResult(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

// toolDefs lists tools that take any object.
func toolDefs(names ...string) map[string]any {
	tools := make([]any, 0, len(names))
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "description": n, "inputSchema": map[string]any{"type": "object"}})
	}
	return map[string]any{"tools": tools}
}

// serveLines reads one JSON-RPC message per line and hands it to handle.
// It answers server/discover itself, for mode's server name.
func serveLines(mode string, in io.Reader, out io.Writer, handle func(c *rawConn, req *rawRequest) error) error {
	c := &rawConn{out: out}
	sc := requestLines(in)
	for sc.Scan() {
		req := &rawRequest{}
		if err := json.Unmarshal(sc.Bytes(), req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		if req.Method == "" {
			continue // a response to a request of ours
		}
		if req.Method == "server/discover" {
			res, _ := answer(mode, req.Method)
			if err := c.result(req.ID, res); err != nil {
				return err
			}
			continue
		}
		if err := handle(c, req); err != nil {
			return err
		}
	}
	return sc.Err()
}

// serveMisbehave is mode "misbehave": each tool misbehaves in its own way,
// and every tools/call runs concurrently, so that one misbehaving call can be
// watched while others go on. Its tools:
//
//   - ok: text "ok".
//   - reply {result} | {error} | {raw}: answers with result as the result,
//     or error as the JSON-RPC error, or writes raw (a string, or an array of
//     strings, one line each) verbatim, with every "$ID" replaced by the
//     request's id.
//   - huge {mib}: a text result of mib MiB of "x", streamed.
//   - late: waits until the client cancels it (at most 30s), then answers
//     anyway.
//   - flood {n, method}: sends n notifications of method (default
//     "notifications/message"), then answers "flooded n".
//   - stats: {"late": answers sent by late, "cancelled": cancellations
//     seen, "calls": tools/call requests read, this one included}.
func serveMisbehave(_ []string, in io.Reader, out io.Writer) error {
	var (
		mu        sync.Mutex
		cancelled = map[string]chan struct{}{}
		late      atomic.Int64
		seen      atomic.Int64
		calls     atomic.Int64
		wg        sync.WaitGroup
	)
	defer wg.Wait()
	cancelChan := func(id string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		ch, ok := cancelled[id]
		if !ok {
			ch = make(chan struct{})
			cancelled[id] = ch
		}
		return ch
	}
	return serveLines("misbehave", in, out, func(c *rawConn, req *rawRequest) error {
		switch req.Method {
		case "tools/list":
			return c.result(req.ID, toolDefs("ok", "reply", "huge", "late", "flood", "stats"))
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(req.Params, &p)
			seen.Add(1)
			close(cancelChan(string(p.RequestID)))
			return nil
		case "tools/call":
		default:
			if len(req.ID) == 0 {
				return nil
			}
			return c.rpcError(req.ID, -32601, "Method not found")
		}
		calls.Add(1)
		var p callParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return c.rpcError(req.ID, -32602, err.Error())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch p.Name {
			case "ok":
				err = c.result(req.ID, textResult("ok"))
			case "reply":
				err = misbehaveReply(c, req.ID, p.Arguments)
			case "huge":
				var a struct {
					MiB int `json:"mib"`
				}
				_ = json.Unmarshal(p.Arguments, &a)
				err = writeHuge(c, req.ID, a.MiB)
			case "late":
				select {
				case <-cancelChan(string(req.ID)):
				case <-time.After(30 * time.Second):
				}
				err = c.result(req.ID, textResult("late"))
				late.Add(1)
			case "flood":
				var a struct {
					N      int    `json:"n"`
					Method string `json:"method"`
				}
				_ = json.Unmarshal(p.Arguments, &a)
				if a.Method == "" {
					a.Method = "notifications/message"
				}
				err = flood(c, a.N, a.Method)
				if err == nil {
					err = c.result(req.ID, textResult(fmt.Sprintf("flooded %d", a.N)))
				}
			case "stats":
				b, _ := json.Marshal(map[string]int64{"late": late.Load(), "cancelled": seen.Load(), "calls": calls.Load()})
				err = c.result(req.ID, textResult(string(b)))
			default:
				err = c.rpcError(req.ID, -32602, "unknown tool "+strconv.Quote(p.Name))
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "misbehave:", err)
			}
		}()
		return nil
	})
}

func misbehaveReply(c *rawConn, id, args json.RawMessage) error {
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
		Raw    json.RawMessage `json:"raw"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return c.rpcError(id, -32602, err.Error())
	}
	switch {
	case a.Raw != nil:
		var lines []string
		if err := json.Unmarshal(a.Raw, &lines); err != nil {
			var one string
			if err := json.Unmarshal(a.Raw, &one); err != nil {
				return c.rpcError(id, -32602, "raw is neither a string nor strings")
			}
			lines = []string{one}
		}
		for _, l := range lines {
			if err := c.line([]byte(strings.ReplaceAll(l, "$ID", string(id)))); err != nil {
				return err
			}
		}
		return nil
	case a.Error != nil:
		return c.line([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":` + string(a.Error) + `}`))
	default:
		if a.Result == nil {
			a.Result = json.RawMessage("null")
		}
		return c.line([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(a.Result) + `}`))
	}
}

// writeHuge streams a one-line result of mib MiB of text without holding it.
func writeHuge(c *rawConn, id json.RawMessage, mib int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id); err != nil {
		return err
	}
	block := bytes.Repeat([]byte("x"), 1<<20)
	for range mib {
		if _, err := c.out.Write(block); err != nil {
			return err
		}
	}
	_, err := io.WriteString(c.out, "\"}]}}\n")
	return err
}

func flood(c *rawConn, n int, method string) error {
	for i := range n {
		params := map[string]any{"level": "info", "data": fmt.Sprintf("flood %d", i)}
		if method == "notifications/progress" {
			params = map[string]any{"progressToken": "flood", "progress": i}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
		if err := c.line(b); err != nil {
			return err
		}
	}
	return nil
}

// serveToolList is mode "tools": its tools/list is shaped by key=value
// arguments, and tools/call of any listed tool answers the tool's name.
//
//   - count=N: N tools named "tool00000"..., listed in reverse order
//     (default 1);
//   - page=P: P tools per page, pages chained by nextCursor (default all on
//     one page);
//   - dup=1: every page also lists "dup", described "dup on page k", so
//     that "dup" appears once per page;
//   - endless=1: every page has a nextCursor never seen before, and pages
//     past the N tools list P new tools each ("e<page>_<i>").
func serveToolList(args []string, in io.Reader, out io.Writer) error {
	opt := map[string]int{"count": 1}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("tools: bad argument %q", a)
		}
		opt[k] = n
	}
	names := make([]string, opt["count"])
	for i := range names {
		names[i] = fmt.Sprintf("tool%05d", len(names)-1-i)
	}
	page := opt["page"]
	if page <= 0 {
		page = max(len(names), 1)
	}
	return serveLines("tools", in, out, func(c *rawConn, req *rawRequest) error {
		switch req.Method {
		case "tools/list":
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(req.Params, &p)
			k, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "p"))
			from := min(k*page, len(names))
			to := min(from+page, len(names))
			pageNames := names[from:to]
			if opt["endless"] != 0 && from == to {
				pageNames = make([]string, page)
				for i := range pageNames {
					pageNames[i] = fmt.Sprintf("e%d_%d", k, i)
				}
			}
			res := toolDefs(pageNames...)
			if opt["dup"] != 0 {
				res["tools"] = append(res["tools"].([]any), map[string]any{"name": "dup",
					"description": fmt.Sprintf("dup on page %d", k), "inputSchema": map[string]any{"type": "object"}})
			}
			if to < len(names) || opt["endless"] != 0 {
				res["nextCursor"] = fmt.Sprintf("p%d", k+1)
			}
			return c.result(req.ID, res)
		case "tools/call":
			var p callParams
			_ = json.Unmarshal(req.Params, &p)
			return c.result(req.ID, textResult(p.Name))
		}
		if len(req.ID) == 0 {
			return nil
		}
		return c.rpcError(req.ID, -32601, "Method not found")
	})
}

// ArgsStats is what the "stats" tool of mode "args" reports.
type ArgsStats struct {
	// Calls counts the echo calls received.
	Calls int `json:"calls"`
	// Distinct counts the different argument texts among them.
	Distinct int `json:"distinct"`
	// NonObject counts echo calls whose "arguments" was present and not a
	// JSON object (null included).
	NonObject int `json:"nonObject"`
}

// serveArgsEcho is mode "args", which reports what arrived on the wire:
//
//   - echo: the call's "arguments" exactly as received, or "<none>" when
//     the field is absent;
//   - stats: the [ArgsStats] of every echo call so far, as JSON.
//
// It answers in order, one call at a time.
func serveArgsEcho(_ []string, in io.Reader, out io.Writer) error {
	var stats ArgsStats
	seen := map[string]bool{}
	return serveLines("args", in, out, func(c *rawConn, req *rawRequest) error {
		switch req.Method {
		case "tools/list":
			return c.result(req.ID, toolDefs("echo", "stats"))
		case "tools/call":
			var p callParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return c.rpcError(req.ID, -32602, err.Error())
			}
			if p.Name == "stats" {
				b, _ := json.Marshal(stats)
				return c.result(req.ID, textResult(string(b)))
			}
			stats.Calls++
			args := string(p.Arguments)
			if !seen[args] {
				seen[args] = true
				stats.Distinct++
			}
			if p.Arguments == nil {
				return c.result(req.ID, textResult("<none>"))
			}
			if t := bytes.TrimSpace(p.Arguments); len(t) == 0 || t[0] != '{' {
				stats.NonObject++
			}
			return c.result(req.ID, textResult(args))
		}
		if len(req.ID) == 0 {
			return nil
		}
		return c.rpcError(req.ID, -32601, "Method not found")
	})
}

// serveIntrospect is mode "introspect", which reports how it was started:
//
//   - argv: its arguments after the mode, as a JSON array;
//   - env: its environment, as a JSON array of "KEY=value";
//   - cwd: its working directory.
func serveIntrospect(args []string, in io.Reader, out io.Writer) error {
	return serveLines("introspect", in, out, func(c *rawConn, req *rawRequest) error {
		switch req.Method {
		case "tools/list":
			return c.result(req.ID, toolDefs("argv", "env", "cwd"))
		case "tools/call":
			var p callParams
			_ = json.Unmarshal(req.Params, &p)
			var v any
			switch p.Name {
			case "argv":
				v = append([]string{}, args...)
			case "env":
				v = os.Environ()
			case "cwd":
				wd, _ := os.Getwd()
				v = wd
			}
			b, _ := json.Marshal(v)
			return c.result(req.ID, textResult(string(b)))
		}
		if len(req.ID) == 0 {
			return nil
		}
		return c.rpcError(req.ID, -32601, "Method not found")
	})
}
