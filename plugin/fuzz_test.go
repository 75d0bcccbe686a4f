package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// The fuzz targets here drive a real plugin connected to the raw "args"
// server, which echoes every call's "arguments" exactly as they arrived on
// the wire and counts calls, and non-object arguments, in its stats.

// argsServer is one connection to the "args" server for a fuzz target,
// shared by all of its inputs, and the number of calls it must have seen.
type argsServer struct {
	p     *plugin.McpPlugin
	calls int
}

func newArgsServer(f *testing.F) *argsServer {
	f.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, testserver.Raw(f, "args"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = p.Close() })
	return &argsServer{p: p}
}

// checkStats fails t unless the server has seen exactly the calls counted so
// far, and never a non-object "arguments".
func (s *argsServer) checkStats(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.p.CallTool(ctx, "stats", nil).Await(ctx)
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	var stats testserver.ArgsStats
	if err := json.Unmarshal([]byte(plugin.RenderResult(res)), &stats); err != nil {
		t.Fatal(err)
	}
	if stats.NonObject != 0 {
		t.Fatalf("the server received %d calls with non-object arguments", stats.NonObject)
	}
	if stats.Calls != s.calls {
		t.Fatalf("the server saw %d calls, %d were made", stats.Calls, s.calls)
	}
}

// validArguments is the oracle of the arguments rule (an object stays as
// it is, null becomes no arguments, anything else is a validation error),
// by encoding/json: an object, null, or nothing.
func validArguments(b []byte) bool {
	t := bytes.Trim(b, " \t\r\n")
	if len(t) == 0 || string(t) == "null" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal(t, &obj) == nil && obj != nil
}

const validationError = "mcp-connector: validation (tools/call arguments)"

// sameArguments reports whether the server received what the caller gave:
// the same JSON object, or none.
func sameArguments(sent []byte, received string) bool {
	t := bytes.Trim(sent, " \t\r\n")
	if len(t) == 0 || string(t) == "null" {
		return received == "<none>" || received == "{}"
	}
	a, errA := decodeNumbers(t)
	b, errB := decodeNumbers([]byte(received))
	return errA == nil && errB == nil && reflect.DeepEqual(a, b)
}

func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// FuzzCallToolArguments calls the echo tool with arbitrary argument text.
// Either the call fails validation and nothing reaches the server, or the
// server receives a JSON object equal to the one given (or none for null).
func FuzzCallToolArguments(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `{"a":1}`, `{"a":{"b":[1,2,{"c":null}]},"d":"e"}`, ` {"a":"\u003c\u00e9\u2028"} `,
		`[]`, `[{}]`, `1`, `"s"`, `true`, `{`, `{"a":1}{"b":2}`, `{"a":1e400}`, `{"a":1,"a":2}`,
		"{\"a\":\"\xff\"}", "\ufeff{}", "\v{}", `{"big":12345678901234567890123}`,
	} {
		f.Add([]byte(s))
	}
	s := newArgsServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := s.p.CallTool(ctx, "echo", json.RawMessage(data)).Await(ctx)
		if valid := validArguments(data); (err == nil) != valid {
			t.Fatalf("arguments %q (valid: %v): error %v", data, valid, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), validationError) {
				t.Fatalf("arguments %q: %v", data, err)
			}
		} else {
			s.calls++
			if got := plugin.RenderResult(res); !sameArguments(data, got) {
				t.Fatalf("sent %q, the server received %q", data, got)
			}
		}
		s.checkStats(t)
	})
}

// Block sequences for FuzzOnStreamChunk are encoded as bytes: per block a
// kind byte (text, thinking, tool call, tool result), then for a tool call a
// name byte and a length-prefixed argument text, for the others a
// length-prefixed text.
var fuzzToolNames = []string{"echo", "nope", "", "ECHO", "echo "}

func decodeBlocks(data []byte) []host.Block {
	var blocks []host.Block
	next := func() (byte, bool) {
		if len(data) == 0 {
			return 0, false
		}
		b := data[0]
		data = data[1:]
		return b, true
	}
	text := func() string {
		n, _ := next()
		n = min(n, byte(len(data)))
		s := string(data[:n])
		data = data[n:]
		return s
	}
	for id := 0; len(data) > 0; id++ {
		kind, _ := next()
		switch kind % 4 {
		case 0:
			blocks = append(blocks, host.Text{Text: text()})
		case 1:
			blocks = append(blocks, host.Thinking{Text: text()})
		case 2:
			name, _ := next()
			call := host.ToolCall{ID: "call-" + string(rune('a'+id%26)) + strings.Repeat("'", id/26),
				Name: fuzzToolNames[int(name)%len(fuzzToolNames)]}
			if args := text(); args != "" || kind&0x80 == 0 {
				call.Arguments = json.RawMessage(args)
			}
			blocks = append(blocks, call)
		case 3:
			blocks = append(blocks, host.ToolResult{ToolCallID: "old", Name: "echo", Content: text()})
		}
	}
	return blocks
}

// encodeBlocks is decodeBlocks' inverse, for readable seeds.
func encodeBlocks(blocks ...host.Block) []byte {
	var b []byte
	text := func(s string) { b = append(append(b, byte(len(s))), s...) }
	for _, blk := range blocks {
		switch blk := blk.(type) {
		case host.Text:
			b = append(b, 0)
			text(blk.Text)
		case host.Thinking:
			b = append(b, 1)
			text(blk.Text)
		case host.ToolCall:
			b = append(b, 2)
			for i, n := range fuzzToolNames {
				if n == blk.Name {
					b = append(b, byte(i))
				}
			}
			text(string(blk.Arguments))
		case host.ToolResult:
			b = append(b, 3)
			text(blk.Content)
		}
	}
	return b
}

// FuzzOnStreamChunk runs the hook over arbitrary block sequences: it returns
// nil, keeps the number and the order of blocks, leaves every block but a
// call of a discovered tool as it was, turns each such call into a
// ToolResult of the same id and name (a validation error for arguments that
// are no object), and the server receives exactly the valid calls, each with
// its object.
func FuzzOnStreamChunk(f *testing.F) {
	call := func(name, args string) host.ToolCall {
		return host.ToolCall{Name: name, Arguments: json.RawMessage(args)}
	}
	for _, seq := range [][]host.Block{
		{},
		{host.Text{Text: "hello"}},
		{call("echo", `{"a":1}`)},
		{host.Thinking{Text: "hm"}, call("echo", `{"a":1}`), host.Text{Text: "x"}, call("nope", `{}`), call("echo", `[1]`)},
		{call("echo", ``), call("echo", `null`), call("echo", `{"b":[true,false]}`), call("ECHO", `{}`)},
		{call("", `{}`), call("echo ", `{}`), host.ToolResult{Content: "kept"}, call("echo", `{"a":`)},
	} {
		f.Add(encodeBlocks(seq...))
	}
	s := newArgsServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeBlocks(data)
		chunk := &host.Chunk{Blocks: append([]host.Block(nil), in...)}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.p.OnStreamChunk(ctx, chunk); err != nil {
			t.Fatalf("the hook returned %v", err)
		}
		if len(chunk.Blocks) != len(in) {
			t.Fatalf("%d blocks became %d", len(in), len(chunk.Blocks))
		}
		for i, before := range in {
			after := chunk.Blocks[i]
			call, isCall := before.(host.ToolCall)
			if !isCall || !s.p.HasTool(call.Name) {
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("block %d changed: %#v became %#v", i, before, after)
				}
				continue
			}
			res, ok := after.(host.ToolResult)
			if !ok {
				t.Fatalf("call %d of %q stayed %#v", i, call.Name, after)
			}
			if res.ToolCallID != call.ID || res.Name != call.Name {
				t.Fatalf("call %q (%s) answered as %q (%s)", call.ID, call.Name, res.ToolCallID, res.Name)
			}
			if valid := validArguments(call.Arguments); res.IsError == valid {
				t.Fatalf("call %q with arguments %q (valid: %v) answered %#v", call.ID, call.Arguments, valid, res)
			}
			if res.IsError {
				if !strings.HasPrefix(res.Content, validationError) {
					t.Fatalf("call %q failed: %s", call.ID, res.Content)
				}
				continue
			}
			s.calls++
			if !sameArguments(call.Arguments, res.Content) {
				t.Fatalf("call %q sent %q, the server received %q", call.ID, call.Arguments, res.Content)
			}
		}
		s.checkStats(t)
	})
}
