package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// readerConn is a stdio connection reading r, with no process behind it.
func readerConn(r io.Reader, limit int, logger *zap.Logger) *stdioConn {
	c := &stdioConn{lines: newLineReader(r, limit), logger: logger, gate: newFloodGate(logger)}
	c.direct = directcall.NewLines(c)
	return c
}

// readAll reads messages until the stream ends.
func readAll(t testing.TB, c *stdioConn) []jsonrpc.Message {
	t.Helper()
	var out []jsonrpc.Message
	for {
		msg, err := c.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, msg)
	}
}

// ids lists the messages as "id" for a response, "!id" for a response
// carrying an error, and the method for a request.
func ids(msgs []jsonrpc.Message) []string {
	var out []string
	for _, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Response:
			s := jsonString(m.ID.Raw())
			if m.Error != nil {
				s = "!" + s
			}
			out = append(out, s)
		case *jsonrpc.Request:
			out = append(out, m.Method)
		}
	}
	return out
}

func jsonString(v any) string {
	b, _ := directcall.AppendMessage(nil, &jsonrpc.Response{ID: mustID(v)})
	_, after, _ := strings.Cut(string(b), `"id":`)
	return strings.TrimSuffix(after, "}")
}

func mustID(v any) jsonrpc.ID {
	if n, ok := v.(int64); ok {
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

func response(id int) string {
	return `{"jsonrpc":"2.0","id":` + jsonString(int64(id)) + `,"result":{"content":[]}}`
}

// repeatReader yields n bytes of c.
type repeatReader struct {
	c byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.c
	}
	r.n -= k
	return k, nil
}

// hugeLine is a line of about mib MiB: prefix, then "x"s, then suffix.
func hugeLine(prefix string, mib int, suffix string) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), &repeatReader{'x', mib << 20}, strings.NewReader(suffix+"\n"))
}

func TestEveryKindOfLine(t *testing.T) {
	for _, c := range []struct {
		name    string
		stream  func() io.Reader
		want    []string
		skipped int
	}{
		{"blank lines", text("\n\n   \n\t\r\n" + response(1) + "\n\n"), []string{"1"}, 0},
		{"CRLF", text(response(1) + "\r\n" + response(2) + "\r\n"), []string{"1", "2"}, 0},
		{"banner text", text("Server v1.2 starting...\n" + response(1) + "\n"), []string{"1"}, 1},
		{"partial JSON", text(`{"jsonrpc":"2.0","id":1,"result":{"content":[` + "\n" + response(2) + "\n"), []string{"2"}, 1},
		{"valid JSON that is not JSON-RPC", text(`{"level":"info","msg":"ready"}` + "\n[1,2]\n42\n" +
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n" + response(3) + "\n"), []string{"3"}, 4},
		{"control bytes", text("\x00\x01\x02\n" + response(1) + "\n"), []string{"1"}, 1},
		{"notifications and requests", text(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n" +
			`{"jsonrpc":"2.0","id":"s1","method":"ping"}` + "\n" + response(4) + "\n"), []string{"notifications/progress", "ping", "4"}, 0},
		{"a last line without a newline", text(response(1) + "\n" + response(2)), []string{"1", "2"}, 0},
		{"an unfinished last line", text(response(1) + "\n" + `{"jsonrpc":"2.0","id":2,"res`), []string{"1"}, 1},
		{"a line split across many reads", func() io.Reader {
			return iotest.OneByteReader(strings.NewReader("banner\n" + response(1) + "\r\n\n" + response(2) + "\n"))
		}, []string{"1", "2"}, 1},
		{"a long line split across many reads", func() io.Reader {
			long := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"` + strings.Repeat("y", 100_000) + `"}]}}`
			return iotest.HalfReader(strings.NewReader(response(1) + "\n" + long + "\n" + response(6) + "\n"))
		}, []string{"1", "5", "6"}, 0},
		{"a 20 MiB line with a readable id", func() io.Reader {
			return io.MultiReader(text(response(1)+"\n")(),
				hugeLine(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"`, 20, `"}]}}`),
				text(response(8)+"\n")())
		}, []string{"1", "!7", "8"}, 1},
		{"a 20 MiB line without a readable id", func() io.Reader {
			return io.MultiReader(hugeLine(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`, 20, `"}]},"id":7}`),
				text(response(8)+"\n")())
		}, []string{"8"}, 1},
		{"a 20 MiB line of text", func() io.Reader {
			return io.MultiReader(hugeLine("", 20, ""), text(response(8)+"\n")())
		}, []string{"8"}, 1},
		{"a 20 MiB line that the stream ends in", func() io.Reader {
			return io.MultiReader(text(response(1)+"\n")(), io.LimitReader(hugeLine(`{"jsonrpc":"2.0","id":7,"result":"`, 20, ""), 18<<20))
		}, []string{"1", "!7"}, 1},
	} {
		// Over a reader, and over a pipe as from a child's stdout, which on
		// Unix is waited on with no buffer and read into borrowed ones.
		for _, over := range []string{"reader", "pipe"} {
			t.Run(c.name+"/"+over, func(t *testing.T) {
				core, logs := observer.New(zap.DebugLevel)
				stream := c.stream()
				if over == "pipe" {
					stream = pipeOf(t, stream)
				}
				conn := readerConn(stream, MaxMessageBytes, zap.New(core))
				assert.Equal(t, c.want, ids(readAll(t, conn)))
				assert.Equal(t, c.skipped, logs.FilterMessage("mcp server stdout line skipped").Len(), "each skipped line is told at debug level")
				assert.Equal(t, c.skipped, conn.strays.total)
				warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
				if c.skipped == 0 {
					assert.Empty(t, warns)
				} else {
					require.Len(t, warns, 1, "one warning within a second")
					assert.EqualValues(t, 1, warns[0].ContextMap()["skipped"])
				}
				assert.LessOrEqual(t, len(conn.lines.buf), readBufferSize, "the buffer is back to its usual size")
			})
		}
	}
}

// pipeOf is the read end of a pipe that r is copied into, in the writes r's
// reads make, and that closes when r ends.
func pipeOf(t *testing.T, r io.Reader) io.Reader {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = pr.Close() })
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if _, werr := pw.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		_ = pw.Close()
	}()
	return pr
}

func text(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }

func TestOverLongLineFailsItsCallWithTheLimit(t *testing.T) {
	conn := readerConn(hugeLine(`{"jsonrpc":"2.0","id":"call-9","result":"`, 17, `"}`), MaxMessageBytes, zap.NewNop())
	msg, err := conn.Read(context.Background())
	require.NoError(t, err)
	resp := msg.(*jsonrpc.Response)
	assert.Equal(t, "call-9", resp.ID.Raw())
	var werr *jsonrpc.Error
	require.ErrorAs(t, resp.Error, &werr)
	assert.EqualValues(t, jsonrpc.CodeInternalError, werr.Code)
	assert.Equal(t, "transport: server message exceeds 16 MiB", werr.Message)
	_, err = conn.Read(context.Background())
	assert.ErrorIs(t, err, io.EOF)
}

func TestLineAtTheLimitIsDeliveredAndOneByteMoreIsNot(t *testing.T) {
	const limit = 200
	pad := func(n int) string {
		head := `{"jsonrpc":"2.0","id":1,"result":"`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	at, over := pad(limit), pad(limit+1)
	require.Len(t, at, limit)
	conn := readerConn(strings.NewReader(at+"\n"+over+"\n"+over+"\r\n"), limit, zap.NewNop())
	assert.Equal(t, []string{"1", "!1", "!1"}, ids(readAll(t, conn)))
}

func TestLongLinesKeepTheirOwnBuffer(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("z", 3*readBufferSize) + `"}`
	conn := readerConn(strings.NewReader(long+"\n"+response(2)+"\n"), MaxMessageBytes, zap.NewNop())
	first, err := conn.Read(context.Background())
	require.NoError(t, err)
	second, err := conn.Read(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "2"}, ids([]jsonrpc.Message{first, second}))
	assert.Equal(t, `"`+strings.Repeat("z", 3*readBufferSize)+`"`, string(first.(*jsonrpc.Response).Result),
		"reading on did not overwrite the long line's result")
	assert.Len(t, conn.lines.buf, readBufferSize)
}

func TestStrayLinesAreWarnedOfOnceASecondWithoutTheirBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, logs := observer.New(zap.DebugLevel)
		conn := readerConn(nil, MaxMessageBytes, zap.New(core))
		stray := line{text: []byte("SECRET-TOOL-OUTPUT")}
		for range 10 {
			conn.skipped(stray, "not JSON", false)
		}
		time.Sleep(999 * time.Millisecond)
		conn.skipped(stray, "not JSON", false)
		warns := func() []observer.LoggedEntry { return logs.FilterLevelExact(zapcore.WarnLevel).All() }
		require.Len(t, warns(), 1, "the first stray line is warned of at once, the next ones wait a second")
		time.Sleep(2 * time.Millisecond)
		conn.skipped(stray, "not JSON-RPC", false)
		require.Len(t, warns(), 2)
		second := warns()[1].ContextMap()
		assert.EqualValues(t, 11, second["skipped"], "the lines since the last warning")
		assert.EqualValues(t, 12, second["skipped_total"])
		assert.Equal(t, "not JSON-RPC", second["last_reason"])

		conn.skipped(stray, "not JSON", false)
		conn.reportStrays() // as Close does
		require.Len(t, warns(), 3, "what is left is told at close")
		assert.EqualValues(t, 1, warns()[2].ContextMap()["skipped"])
		conn.reportStrays()
		assert.Len(t, warns(), 3, "and only once")

		for _, e := range logs.All() {
			quoted := strings.Contains(e.Message, "SECRET")
			for _, v := range e.ContextMap() {
				if s, ok := v.(string); ok && strings.Contains(s, "SECRET") {
					quoted = true
				}
			}
			if e.Level > zapcore.DebugLevel {
				assert.False(t, quoted, "a stray line is quoted at debug level only: %+v", e)
			}
		}
		assert.Equal(t, "SECRET-TOOL-OUTPUT", logs.FilterLevelExact(zapcore.DebugLevel).All()[0].ContextMap()["line"],
			"at debug level it is quoted")
	})
}

func TestReadBufferStaysSmallForSmallMessages(t *testing.T) {
	var stream bytes.Buffer
	for i := range 1000 {
		stream.WriteString(response(i) + "\n")
	}
	conn := readerConn(&stream, MaxMessageBytes, zap.NewNop())
	assert.Len(t, readAll(t, conn), 1000)
	assert.LessOrEqual(t, len(conn.lines.buf), readBufferSize)
}

// drained tells the reader whether a read has more to deliver: after the
// last line of a read, and not before (the reader yields to the caller an
// answer woke only when the next read would wait).
func TestDrainedAfterTheLastLineOfARead(t *testing.T) {
	lr := newLineReader(strings.NewReader("{\"a\":1}\n{\"b\":2}\n{\"c\""), MaxMessageBytes)
	l, err := lr.next()
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(l.text))
	assert.False(t, lr.drained(), "a second line is buffered")
	l, err = lr.next()
	require.NoError(t, err)
	assert.Equal(t, `{"b":2}`, string(l.text))
	assert.False(t, lr.drained(), "part of a third line is buffered")
	l, err = lr.next()
	require.NoError(t, err)
	assert.Equal(t, `{"c"`, string(l.text), "the last line, without its newline, as the stream ends")
	assert.True(t, lr.drained())
	_, err = lr.next()
	assert.ErrorIs(t, err, io.EOF)
}
