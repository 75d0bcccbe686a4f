package directcall

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callResultSeeds are results of every shape a server sends: each content
// kind, annotations, structuredContent, isError, _meta, resultType task and
// input_required, unknown and escaped names, duplicates, invalid UTF-8, and
// malformed ones.
var callResultSeeds = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[{"type":"text","text":"a\nb \"q\" \u00e9 \u003c"}],"isError":false}`,
	`{"content":[{"type":"text","text":"x"}],"isError":true}`,
	`{"content":[{"type":"text","text":"x","_meta":{"k":[1,2.5,"s",null,true,{"z":false}]}}]}`,
	`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5}}]}`,
	`{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}`,
	`{"content":[{"type":"audio","data":"aGVsbG8=","mimeType":"audio/wav","annotations":{"lastModified":"2025-01-01T00:00:00Z"}}]}`,
	`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","title":"A","description":"d","mimeType":"text/plain","size":12,"icons":[{"src":"https://x/i.png"}]}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"t"}}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///b","blob":"aGVsbG8="}}]}`,
	`{"content":[{"type":"tool_use","id":"1","name":"n","input":{"a":1}}]}`,
	`{"content":[{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"r"}],"isError":true}]}`,
	`{"content":[{"type":"text","text":"x"},{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
	`{"content":[],"structuredContent":{"temp":21.5,"tags":["a","b"],"nested":{"deep":[[1],[2,[3]]]}}}`,
	`{"content":[{"type":"text","text":"{}"}],"structuredContent":null}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":{"progressToken":7,"io.example/x":{"y":"z"}}}`,
	`{"content":[{"type":"text","text":"x"}],"_meta":null}`,
	`{"content":null}`,
	`{}`,
	`{"content":[{"type":"text","text":"x"}],"resultType":"complete"}`,
	`{"resultType":"complete","content":[{"type":"text","text":"x"}],"isError":true,"_meta":{"a":"b"},"structuredContent":[1]}`,
	`{"content":[],"resultType":"complete","resultType":"input_required"}`,
	`{"content":[],"resultType":null}`,
	`{"content":[],"resultType":""}`,
	`{"content":[],"resultType":"other"}`,
	`{"content":[],"resultType":7}`,
	`{"content":[],"resultType":"input_required","inputRequests":{"r1":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}`,
	`{"resultType":"task","task":{"taskId":"t1","status":"working","createdAt":"2025-01-01T00:00:00Z","ttl":60000}}`,
	`{"content":[{"type":"text","text":"x","unknown":1}],"unknown":{"a":[1,2]},"Content":[]}`,
	`{"con\u0074ent":[{"type":"text","text":"escaped name"}]}`,
	`{"content":[{"type":"te\u0078t","text":"escaped kind"}]}`,
	`{"content":[{"type":"text","text":"first"}],"content":[{"type":"text","text":"second"}]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"_meta":{"a":1},"_meta":{"b":2},"content":[]}`,
	`{"structuredContent":{"a":1,"a":2}}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff utf8\"}]}",
	`{"content":[{"type":"text","text":"lone \ud800 surrogate \udc00"}]}`,
	`{"content":[{"type":"text","text":"pair \ud83d\ude00"}]}`,
	`{"content":[{"type":"video","url":"x"}]}`,
	`{"content":[null]}`,
	`{"content":{"type":"text","text":"single"}}`,
	`{"content":"text"}`,
	`{"isError":"yes","content":[]}`,
	`{"isError":null,"content":[]}`,
	`{"structuredContent":1e400}`,
	`{"structuredContent":[1e308,-0,0.1,123456789012345678901234567890]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"text":"no type"}]}`,
	`{"content":[{"type":null,"text":"x"}]}`,
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[{"type":"text","text":5}]}`,
	`{"content":[{"type":"text","text":"x","_meta":[1]}]}`,
	`null`,
	`[]`,
	`"text"`,
	`{"content":[{"type":"text","text":"x"}]`,
	``,
}

// sameAsGoSDK fails t unless raw decodes as go-sdk decodes it: the same
// result, or an error from both.
func sameAsGoSDK(t *testing.T, raw []byte) {
	t.Helper()
	want := new(mcp.CallToolResult)
	wantErr := want.UnmarshalJSON(raw)
	got, err := DecodeCallToolResult(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("decoding %q: error %v, go-sdk's %v", raw, err, wantErr)
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoding %q:\n got %#v\nwant %#v", raw, got, want)
	}
}

func TestDecodeCallToolResultAsGoSDK(t *testing.T) {
	for _, s := range callResultSeeds {
		sameAsGoSDK(t, []byte(s))
	}
}

func TestDecodeCallToolResultHugeAndDeep(t *testing.T) {
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("é\\n", 1<<20) + `"}]}`
	sameAsGoSDK(t, []byte(big))
	many := `{"content":[` + strings.Repeat(`{"type":"text","text":"b"},`, 5000) + `{"type":"text","text":"end"}]}`
	sameAsGoSDK(t, []byte(many))
	for _, depth := range []int{10, maxFastDepth - 2, maxFastDepth + 2, 999, 1001, 5000} {
		deep := `{"structuredContent":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `,"content":[]}`
		sameAsGoSDK(t, []byte(deep))
		deepMeta := `{"_meta":{"a":` + strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}}`
		sameAsGoSDK(t, []byte(deepMeta))
	}
}

// TestDecodeCallToolResultFast checks the common shapes are read by the
// fast reading, not handed to go-sdk: otherwise the differential tests
// would pass on go-sdk's decoding alone.
func TestDecodeCallToolResultFast(t *testing.T) {
	for _, s := range callResultSeeds[:4] {
		d := new(resultDecoder)
		if _, ok := d.decode([]byte(s)); !ok {
			t.Errorf("%s: not read by the fast reading", s)
		}
	}
	for _, s := range []string{callResultSeeds[13], callResultSeeds[15], `{}`, callResultSeeds[19], callResultSeeds[20]} {
		d := new(resultDecoder)
		if _, ok := d.decode([]byte(s)); !ok {
			t.Errorf("%s: not read by the fast reading", s)
		}
	}
}

func FuzzDecodeCallToolResult(f *testing.F) {
	for _, s := range callResultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsGoSDK(t, raw)
	})
}

func BenchmarkDecodeCallToolResult(b *testing.B) {
	raw := []byte(`{"content":[{"type":"text","text":"echo: hello from the benchmark, a line of text"}],"isError":false}`)
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeCallToolResult(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r mcp.CallToolResult
			if err := r.UnmarshalJSON(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
