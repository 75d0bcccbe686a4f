package directcall

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceDecode is what the line decoder must agree with: the rules of
// jsonrpc.DecodeMessage, spelled out with encoding/json (keys exact, the
// last of a duplicate winning).
func referenceDecode(line []byte) (jsonrpc.Message, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return nil, false
	}
	var version string
	if raw, ok := obj["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, false
	}
	var id jsonrpc.ID
	if raw, ok := obj["id"]; ok {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return nil, false
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, false
		}
	}
	if raw, ok := obj["method"]; ok {
		var method string
		if json.Unmarshal(raw, &method) != nil {
			return nil, false
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: obj["params"]}, true
	}
	if !id.IsValid() {
		return nil, false
	}
	resp := &jsonrpc.Response{ID: id, Result: obj["result"]}
	if raw, ok := obj["error"]; ok && string(raw) != "null" {
		werr := new(jsonrpc.Error)
		if json.Unmarshal(raw, werr) != nil {
			return nil, false
		}
		resp.Error = werr
	}
	return resp, true
}

// sameMessage fails t unless a and b are the same message; payloads are
// compared compacted when compact is set.
func sameMessage(t testing.TB, a, b jsonrpc.Message, compact bool) {
	t.Helper()
	raw := func(r json.RawMessage) string {
		if !compact || len(r) == 0 {
			return string(r)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, r); err != nil {
			t.Fatalf("payload %q is not JSON: %v", r, err)
		}
		return buf.String()
	}
	switch x := a.(type) {
	case *jsonrpc.Request:
		y, ok := b.(*jsonrpc.Request)
		if !ok {
			t.Fatalf("request %q against %T", x.Method, b)
		}
		if x.ID != y.ID || x.Method != y.Method || raw(x.Params) != raw(y.Params) {
			t.Fatalf("requests differ: %v %q %.200q against %v %q %.200q", x.ID.Raw(), x.Method, x.Params, y.ID.Raw(), y.Method, y.Params)
		}
	case *jsonrpc.Response:
		y, ok := b.(*jsonrpc.Response)
		if !ok {
			t.Fatalf("response %v against %T", x.ID.Raw(), b)
		}
		if x.ID != y.ID || raw(x.Result) != raw(y.Result) {
			t.Fatalf("responses differ: %v %.200q against %v %.200q", x.ID.Raw(), x.Result, y.ID.Raw(), y.Result)
		}
		xe, _ := x.Error.(*jsonrpc.Error)
		ye, _ := y.Error.(*jsonrpc.Error)
		if (xe == nil) != (ye == nil) || (xe != nil && (xe.Code != ye.Code || xe.Message != ye.Message || raw(xe.Data) != raw(ye.Data))) {
			t.Fatalf("response errors differ: %#v against %#v", x.Error, y.Error)
		}
	default:
		t.Fatalf("unexpected message type %T", a)
	}
}

// checkLine decodes line and holds the result against the reference, then
// encodes it and holds the encoding against the message and against go-sdk's
// own encoder.
func checkLine(t testing.TB, d *Decoder, text []byte) {
	t.Helper()
	want, ok := referenceDecode(text)
	for _, owned := range []bool{false, true} {
		got, why := d.Decode(bytes.Clone(text), owned)
		if !ok {
			if got != nil {
				t.Fatalf("decoded %.200q, which is no JSON-RPC message, as a %T", text, got)
			}
			if why != reasonNotJSON && why != reasonNotJSONRPC {
				t.Fatalf("reason %q for %.200q", why, text)
			}
			continue
		}
		if got == nil {
			t.Fatalf("refused %.200q (%s); the reference reads a %T", text, why, want)
		}
		sameMessage(t, got, want, false)
	}
	if !ok {
		return
	}
	out, err := AppendMessage(nil, want)
	if err != nil {
		t.Fatalf("encoding %.200q: %v", text, err)
	}
	if bytes.ContainsAny(out, "\r\n") {
		t.Fatalf("encoding of %.200q is more than one line: %.200q", text, out)
	}
	if req, ok := want.(*jsonrpc.Request); ok && req.Method == "" {
		return // go-sdk's encoder, and ours, leave out an empty method: no message comes back
	}
	again, ok := referenceDecode(out)
	if !ok {
		t.Fatalf("encoding %.200q of %.200q does not decode", out, text)
	}
	sameMessage(t, again, want, true)
	sdk, err := jsonrpc.EncodeMessage(want)
	if err != nil {
		return // go-sdk cannot encode what it decoded (e.g. a null payload); nothing to compare
	}
	var a, b any
	if json.Unmarshal(out, &a) != nil || json.Unmarshal(sdk, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("encoding of %.200q differs from go-sdk's:\n%.200s\n%.200s", text, out, sdk)
	}
}

func TestDecodeAgreesWithTheReference(t *testing.T) {
	var d Decoder
	for _, line := range decodeSeeds {
		t.Run(line[:min(len(line), 40)], func(t *testing.T) { checkLine(t, &d, []byte(line)) })
	}
}

// decodeSeeds are lines of every shape; they seed the fuzz target too.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}]}}`,
	`{"jsonrpc":"2.0","id":"abc","result":{}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"boom","data":{"x":[1,2]}}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":"roots/list","params":{}}`,
	` { "jsonrpc" : "2.0" , "id" : 12 , "result" : { "a" : [ 1 , { } , [ ] ] } } `,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r",
	`{"jsonrpc":"2.0","id":1.9,"result":{}}`,
	`{"jsonrpc":"2.0","id":-0,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
	`{"jsonrpc":"2.0","id":123456789012345678901,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e400,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":{"n":1},"result":{}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":2.0,"id":1,"result":{}}`,
	`{"jsonrpc":null,"id":1,"result":{}}`,
	`{"id":1,"result":{}}`,
	`{"JSONRPC":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2\u002e0","\u0069d":5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":"str"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":null}`,
	`{"jsonrpc":"2.0","method":null}`,
	`{"jsonrpc":"2.0","method":5}`,
	`{"jsonrpc":"2.0","method":"a\u0000b\ud83d\ude00","params":[1]}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"bad \xff utf8\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xfe\",\"result\":{}}",
	`{"jsonrpc":"2.0","id":"a\"b\\c\/\b\f\n\r\t\u2028","result":"\u2029"}`,
	`{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","method":"y"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":]}}`,
	`{"jsonrpc":"2.0","id":1,"result":[1,]}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":1,}}`,
	`{"jsonrpc":"2.0","id":1,"result":01}`,
	`{"jsonrpc":"2.0","id":1,"result":1.}`,
	`{"jsonrpc":"2.0","id":1,"result":-}`,
	`{"jsonrpc":"2.0","id":1,"result":1e+}`,
	`{"jsonrpc":"2.0","id":1,"result":tru}`,
	`{"jsonrpc":"2.0","id":1,"result":"\x"}`,
	`{"jsonrpc":"2.0","id":1,"result":"\u12"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"tab\there\"}",
	`{"jsonrpc":"2.0","id":1,"result":{"deep":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{}`, `[]`, `42`, `"str"`, `null`, `[{"jsonrpc":"2.0","method":"x"}]`,
	`Server v1.2 starting on stdio...`,
	"\x00\x01\x02",
	`{"level":"info","msg":"ready"}`,
}

func TestDecodeReadsTheMessage(t *testing.T) {
	var d Decoder
	msg, why := d.Decode([]byte(`{"jsonrpc":"2.0","id":300,"result":{"content":[]}}`), false)
	require.Empty(t, why)
	resp := msg.(*jsonrpc.Response)
	assert.Equal(t, int64(300), resp.ID.Raw())
	assert.JSONEq(t, `{"content":[]}`, string(resp.Result))
	assert.Nil(t, resp.Error)

	msg, _ = d.Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`), false)
	req := msg.(*jsonrpc.Request)
	assert.False(t, req.ID.IsValid(), "a notification")
	assert.Equal(t, "notifications/message", req.Method)

	for line, why := range map[string]string{
		`Server v1.2`:                 reasonNotJSON,
		`{"jsonrpc":"2.0","id":1,"re`: reasonNotJSON,
		`{"level":"info"}`:            reasonNotJSONRPC,
		`[1,2]`:                       reasonNotJSONRPC,
		`{"jsonrpc":"2.0","id":null}`: reasonNotJSONRPC,
	} {
		msg, got := d.Decode([]byte(line), false)
		assert.Nil(t, msg, line)
		assert.Equal(t, why, got, line)
	}
}

func TestDecodedPayloadIsCopiedUnlessTheLineIsOwned(t *testing.T) {
	var d Decoder
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`)
	msg, _ := d.Decode(line, false)
	copy(line, bytes.Repeat([]byte("x"), len(line))) // the buffer is read into again
	assert.JSONEq(t, `{"a":1}`, string(msg.(*jsonrpc.Response).Result))

	line = []byte(`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`)
	msg, _ = d.Decode(line, true)
	res := msg.(*jsonrpc.Response).Result
	assert.Same(t, &line[len(`{"jsonrpc":"2.0","id":1,"result":`)], &res[0], "an owned line is not copied")
	assert.Equal(t, len(res), cap(res), "appending to the payload cannot overwrite the line")
}

func TestIDFromTheStartOfALine(t *testing.T) {
	var d Decoder
	for head, want := range map[string]any{
		`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"xxxx`:  int64(42),
		`{"id":"s-1","jsonrpc":"2.0","result":"xxxx`:                                 "s-1",
		` {"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"xx`:                   int64(7),
		`{"jsonrpc":"2.0","result":{"content":"xxxx`:                                 nil, // the id would come later
		`{"jsonrpc":"2.0","id":12`:                                                   nil, // 12 may go on: 123...
		`{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x":"x`: nil, // the server's own request
		`{"jsonrpc":"2.0","id":null,"result":"xxx`:                                   nil,
		`[{"jsonrpc":"2.0","id":1,"result":"xxx`:                                     nil,
		`xxxxxxxxxxxxxxxxxxxx`:                                                       nil,
	} {
		id, ok := d.IDFromStart([]byte(head))
		if want == nil {
			assert.False(t, ok, head)
			continue
		}
		require.True(t, ok, head)
		assert.Equal(t, want, id.Raw(), head)
	}
}

func TestEncodeIsOneLineInGoSDKsOrder(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(12))
	sid, _ := jsonrpc.MakeID("a\nb")
	for _, c := range []struct {
		msg  jsonrpc.Message
		want string
	}{
		{&jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"add"}`)},
			`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"add"}}`},
		{&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage("{\n  \"requestId\": 3\n}")},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`},
		{&jsonrpc.Response{ID: sid, Result: json.RawMessage(`{}`)},
			`{"jsonrpc":"2.0","id":"a\nb","result":{}}`},
		{&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32601, Message: "no <such> method"}},
			`{"jsonrpc":"2.0","id":12,"error":{"code":-32601,"message":"no \u003csuch\u003e method"}}`},
	} {
		got, err := AppendMessage(nil, c.msg)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got))
		assert.NotContains(t, string(got), "\n")
		sdk, err := jsonrpc.EncodeMessage(c.msg)
		require.NoError(t, err)
		assert.JSONEq(t, string(sdk), string(got), "the same message as go-sdk's encoder writes")
	}
	_, err := AppendMessage(nil, &jsonrpc.Request{Method: "x", Params: json.RawMessage("{\n")})
	assert.Error(t, err, "a payload with a newline that is not JSON")
}

func TestDecodeAllocatesOnlyTheMessage(t *testing.T) {
	var d Decoder
	line := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"3"}],"isError":false}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if msg, _ := d.Decode(line, false); msg == nil {
			t.Fatal("no message")
		}
	})
	// The response, its result's copy and, at most, the boxed id.
	assert.LessOrEqual(t, allocs, 3.0)
	owned := testing.AllocsPerRun(100, func() {
		if msg, _ := d.Decode(line, true); msg == nil {
			t.Fatal("no message")
		}
	})
	assert.Equal(t, allocs-1, owned, "an owned line's result is not copied")

	id, _ := jsonrpc.MakeID(float64(42))
	d.Sent = &SentIDs{}
	d.Sent.Remember(id)
	known := testing.AllocsPerRun(100, func() {
		if msg, _ := d.Decode(line, true); msg.(*jsonrpc.Response).ID != id {
			t.Fatal("another id")
		}
	})
	assert.Equal(t, 1.0, known, "the answer to a call written reuses its id: only the response is new")
}

func TestAnswersReuseTheIDsOfTheCallsWritten(t *testing.T) {
	d := Decoder{Sent: &SentIDs{}}
	for _, n := range []int64{300, 300 + 32, 7} {
		id, _ := jsonrpc.MakeID(float64(n))
		d.Sent.Remember(id)
	}
	for line, want := range map[string]any{
		`{"jsonrpc":"2.0","id":332,"result":{}}`:   int64(332), // remembered
		`{"jsonrpc":"2.0","id":300,"result":{}}`:   int64(300), // overwritten in the ring: made anew
		`{"jsonrpc":"2.0","id":7.5,"result":{}}`:   int64(7),   // cut, as go-sdk cuts it
		`{"jsonrpc":"2.0","id":"332","result":{}}`: "332",
	} {
		msg, why := d.Decode([]byte(line), false)
		require.Empty(t, why, line)
		assert.Equal(t, want, msg.(*jsonrpc.Response).ID.Raw(), line)
	}
}

// BenchmarkDecodeLine decodes the answer to a tools/call as a stdio
// connection reads it, its line reused (copied out) or owned.
func BenchmarkDecodeLine(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"the sum of 21 and 21 is 42"}],"structuredContent":{"sum":42},"isError":false}}`)
	id, _ := jsonrpc.MakeID(float64(42))
	for _, owned := range []bool{false, true} {
		b.Run(map[bool]string{false: "copied", true: "owned"}[owned], func(b *testing.B) {
			d := Decoder{Sent: &SentIDs{}}
			d.Sent.Remember(id)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if msg, _ := d.Decode(line, owned); msg == nil {
					b.Fatal("no message")
				}
			}
		})
	}
}

// A posted call's line is the line appendCall makes of the same call, with
// and without arguments, a progress token and an envelope.
func TestPostedLineIsTheCallsLine(t *testing.T) {
	req := &jsonrpc.Request{Method: "tools/list", Params: json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}`)}
	id, err := jsonrpc.MakeID(float64(1))
	require.NoError(t, err)
	req.ID = id
	env := envelopeOf(req)
	require.NotNil(t, env)
	for _, e := range []*envelope{nil, env} {
		for _, args := range []string{"", `{ "a" : [1, 2] }`} {
			for _, token := range []string{"", "7"} {
				p := &mcp.CallToolParams{Name: `to"ol`}
				if args != "" {
					p.Arguments = json.RawMessage(args)
				}
				if token != "" {
					p.SetProgressToken(token)
				}
				want, err := appendCall(nil, -idBase-3, p, e)
				require.NoError(t, err)
				got, err := appendPosted(nil, -idBase-3, &Call{Name: `to"ol`, Arguments: json.RawMessage(args), ProgressToken: token}, e)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got))
			}
		}
	}
	_, err = appendPosted(nil, 1, &Call{Name: "x", Arguments: json.RawMessage(`{`)}, nil)
	assert.Error(t, err, "arguments that are no JSON")
}
