package testserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// serveRaw is a hand-written newline-delimited JSON-RPC server, for the
// misbehaviours go-sdk's server cannot produce. Every mode answers
// server/discover for 2026-07-28 and lists one tool "t", except:
//
//   - legacy: answers server/discover with "method not found" and
//     initialize with a 2025-06-18 result, as a pre-2026 server does;
//   - task: tools/call answers resultType "task";
//   - input_required: tools/call answers resultType "input_required";
//   - weird: tools/call answers resultType "weird" with no content;
//   - cursor_cycle: tools/list always answers nextCursor "again";
//   - list_error: tools/list answers a JSON-RPC error;
//   - garbage: tools/call is answered with a line that is not JSON;
//   - call_error: tools/call answers the JSON-RPC error [CallErrorCode],
//     [CallErrorMessage], with data {"field": "a"}.
//
// The modes of [rawModes] (misbehave, tools, args, introspect) run loops of
// their own, documented beside them, and take args as their own.
//
// For the other modes args[0], when given, is a file that receives a line per
// message received: the method, then the _meta protocol version, client name,
// and "caps" when client capabilities are present ("-" for each that is
// missing).
func serveRaw(mode string, args []string, in io.Reader, out io.Writer) error {
	if serve, ok := rawModes[mode]; ok {
		return serve(args, in, out)
	}
	log, closeLog, err := methodLog(args)
	if err != nil {
		return err
	}
	defer closeLog()
	enc := json.NewEncoder(out)
	sc := requestLines(in)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		fmt.Fprintln(log, req.Method, metaSummary(req.Params))
		if len(req.ID) == 0 {
			continue // a notification
		}
		result, rpcErr := answer(mode, req.Method)
		if mode == "garbage" && req.Method == "tools/call" {
			fmt.Fprintln(out, "this is not json")
			continue
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		if err := enc.Encode(msg); err != nil {
			return err
		}
	}
	return sc.Err()
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// The JSON-RPC error of mode "call_error".
const (
	CallErrorCode    = -32602
	CallErrorMessage = "argument a is not a number"
)

func answer(mode, method string) (any, *rpcError) {
	switch method {
	case "server/discover":
		if mode == "legacy" {
			return nil, &rpcError{Code: -32601, Message: "Method not found"}
		}
		return map[string]any{
			"supportedVersions": []string{"2026-07-28"},
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "raw-" + mode, "version": "0"}},
		}, nil
	case "initialize":
		return map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "legacy", "version": "0"},
		}, nil
	case "tools/list":
		if mode == "list_error" {
			return nil, &rpcError{Code: -32603, Message: "tools are on fire"}
		}
		res := map[string]any{"tools": []any{map[string]any{
			"name": "t", "description": "a tool", "inputSchema": map[string]any{"type": "object"},
		}}}
		if mode == "cursor_cycle" {
			res["nextCursor"] = "again"
		}
		return res, nil
	case "tools/call":
		switch mode {
		case "task":
			return map[string]any{"resultType": "task", "task": map[string]any{
				"taskId": "t-1", "status": "working", "createdAt": time.Now().UTC().Format(time.RFC3339),
			}}, nil
		case "input_required":
			return map[string]any{"resultType": "input_required", "requestState": "st",
				"inputRequests": map[string]any{"q1": map[string]any{
					"method": "elicitation/create",
					"params": map[string]any{"message": "name?", "requestedSchema": map[string]any{"type": "object"}},
				}}}, nil
		case "weird":
			return map[string]any{"resultType": "weird"}, nil
		case "call_error":
			return nil, &rpcError{Code: CallErrorCode, Message: CallErrorMessage, Data: map[string]any{"field": "a"}}
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "Method not found"}
}

func metaSummary(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	var pv string
	var info struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &pv)
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/clientInfo"], &info)
	caps := "-"
	if _, ok := p.Meta["io.modelcontextprotocol/clientCapabilities"]; ok {
		caps = "caps"
	}
	return orDash(pv) + " " + orDash(info.Name) + " " + caps
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// methodLog is the file args[0] names, opened for appending, that a raw
// server writes a line per message to; io.Discard when args is empty.
func methodLog(args []string) (log io.Writer, closeLog func(), err error) {
	if len(args) == 0 {
		return io.Discard, func() {}, nil
	}
	f, err := os.OpenFile(args[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { _ = f.Close() }, nil
}

// requestLines reads a raw server's input a JSON-RPC message a line, lines
// of up to 64 MiB.
func requestLines(in io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	return sc
}
