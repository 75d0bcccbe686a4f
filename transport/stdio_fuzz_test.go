package transport

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// framingSeeds are lines of the shapes a server writes, and some it
// should not.
var framingSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
	`{"jsonrpc":"2.0","id":"s","error":{"code":-32601,"message":"nope"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	"banner line",
	`{"not":"jsonrpc"}`,
	`{"jsonrpc":"2.0","id":4,"result":{}`,
	"   ",
	`[1,2]`,
}

// chunkReader hands out data in reads whose sizes cycle through sizes.
type chunkReader struct {
	data  []byte
	sizes []byte
	n     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := 1 + int(r.sizes[r.n%len(r.sizes)])
	r.n++
	k = min(k, len(p), len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// fuzzLimit is the line limit under fuzzing: small, so that over-long lines
// come up.
const fuzzLimit = 256

// FuzzStdioFraming feeds a stream, in reads of fuzzed sizes, to a stdio
// connection and holds what it reads against the stream split at every
// newline: each line of at most the limit is the message the line decoder
// reads in it (or none, for a blank line or one that is no JSON-RPC
// message; directcall's tests hold the decoder to encoding/json's reading
// of the same lines); each longer line is dropped, standing in for an error answer to
// the id its start names, if any. Every message delivered encodes as one
// line that decodes back to it.
func FuzzStdioFraming(f *testing.F) {
	for _, s := range framingSeeds {
		f.Add([]byte(s+"\n"+response(2)+"\n"), []byte{0})
	}
	f.Add([]byte("banner\r\n\n"+response(1)+"\r\n"+response(2)), []byte{3, 200, 17})
	f.Add([]byte(`{"jsonrpc":"2.0","id":9,"result":"`+strings.Repeat("x", 300)+"\"}\n"+response(3)+"\n"), []byte{255, 1})
	f.Add([]byte(`{"jsonrpc":"2.0","result":"`+strings.Repeat("x", 300)+"\",\"id\":9}\n"+response(3)), []byte{64})
	f.Add([]byte(`{"jsonrpc":"2.0","id":123`+strings.Repeat(" ", 240)+`45,"result":{}}`+"\n"), []byte{5})
	f.Fuzz(func(t *testing.T, stream, sizes []byte) {
		if len(sizes) == 0 {
			sizes = []byte{255}
		}
		conn := readerConn(&chunkReader{data: stream, sizes: sizes}, fuzzLimit, zap.NewNop())
		got := readAll(t, conn)

		var d directcall.Decoder
		var want []jsonrpc.Message
		for _, l := range bytes.Split(stream, []byte("\n")) {
			switch {
			case len(l) > fuzzLimit:
				if id, ok := d.IDFromStart(l[:fuzzLimit+1]); ok {
					want = append(want, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
						Code: jsonrpc.CodeInternalError, Message: ErrMessageTooLarge.Error()}})
				}
			case len(bytes.TrimLeft(l, " \t\r")) == 0:
			default:
				if m, _ := d.Decode(bytes.Clone(l), true); m != nil {
					want = append(want, m)
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("read %d messages, want %d: %v against %v", len(got), len(want), ids(got), ids(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("message %d: read %#v, want %#v", i, got[i], want[i])
			}
		}
	})
}
