package transport

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.uber.org/zap"
)

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
// newline: each line of at most the limit is the message encoding/json
// reads in it (or none, for a blank line or one that is no JSON-RPC
// message); each longer line is dropped, standing in for an error answer to
// the id its start names, if any. Every message delivered encodes as one
// line that decodes back to it.
func FuzzStdioFraming(f *testing.F) {
	for _, s := range decodeSeeds {
		if len(s) <= 2*fuzzLimit {
			f.Add([]byte(s+"\n"+response(2)+"\n"), []byte{0})
		}
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

		var d lineDecoder
		var want []jsonrpc.Message
		for _, l := range bytes.Split(stream, []byte("\n")) {
			switch {
			case len(l) > fuzzLimit:
				if id, ok := d.idFromStart(l[:fuzzLimit+1]); ok {
					want = append(want, &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
						Code: jsonrpc.CodeInternalError, Message: ErrMessageTooLarge.Error()}})
				}
			case skipWS(l, 0) == len(l):
			default:
				checkLine(t, &d, l)
				if m, ok := referenceDecode(l); ok {
					want = append(want, m)
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("read %d messages, want %d: %v against %v", len(got), len(want), ids(got), ids(want))
		}
		for i := range got {
			sameMessage(t, got[i], want[i], false)
		}
	})
}
