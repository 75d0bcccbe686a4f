package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/httppool"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// These tests hold the plugin against servers that misbehave on purpose
// (internal/fixture/testserver's raw modes "misbehave" and "tools", and
// MisbehavingHTTP). Each misbehaviour ends in a clear Internal error or in
// the behaviour documented beside it; no test leaves a goroutine behind, and
// where the session survives the misbehaviour, the plugin still works.

// leakCheck fails t when a goroutine started during t outlives it. Call it
// before anything registers a cleanup: cleanups run last in, first out, so
// this one runs after every Close.
func leakCheck(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		// Idle keep-alive connections of HTTP tests live in a pool until
		// the server closes them or they idle out; the goroutines that
		// serve them are net/http's.
		httppool.CloseIdle()
		// protoactor's dead-letter throttle ends after its interval by
		// itself (a retired connection that stops as its supervisor stops
		// leaves a Stop undelivered), as TestMain knows.
		goleak.VerifyNone(t, ignore, goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
	})
}

// misbehaving connects to the raw "misbehave" server over stdio.
func misbehaving(t *testing.T, opts ...plugin.Option) *plugin.McpPlugin {
	t.Helper()
	tr := testserver.Raw(t, "misbehave")
	// A child stuck writing a huge line must not hold Close for long.
	tr.TerminateTimeout = 200 * time.Millisecond
	return connect(t, tr, opts...)
}

// callWithin calls tool and waits at most d.
func callWithin(p *plugin.McpPlugin, d time.Duration, tool string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return p.CallTool(ctx, tool, args).Await(ctx)
}

// requireUsable proves the session still serves calls.
func requireUsable(t *testing.T, p *plugin.McpPlugin) {
	t.Helper()
	res, err := callWithin(p, 10*time.Second, "ok", nil)
	require.NoError(t, err, "the session survives")
	assert.Equal(t, "ok", plugin.RenderResult(res))
}

// requireNoHang proves that a call after a session-ending misbehaviour
// returns: it fails Internal, or succeeds once a supervisor reconnected.
func requireNoHang(t *testing.T, p *plugin.McpPlugin) {
	t.Helper()
	_, err := callWithin(p, 10*time.Second, "ok", nil)
	if err != nil {
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.NotContains(t, err.Error(), "caller gave up", "a dead session fails calls at once")
	}
}

// reply makes the misbehave server's "reply" tool answer raw lines.
func reply(lines ...string) map[string]any { return map[string]any{"raw": lines} }

func TestAnswerWithAnotherIDIsIgnoredUntilTheDeadline(t *testing.T) {
	leakCheck(t)
	p := misbehaving(t)
	// go-sdk drops a response whose id it did not send; only the caller's
	// deadline ends the wait, and the session goes on.
	for name, line := range map[string]string{
		"unknown number": `{"jsonrpc":"2.0","id":999999,"result":{"content":[]}}`,
		"id as a string": `{"jsonrpc":"2.0","id":"$ID","result":{"content":[]}}`,
		"negative id":    `{"jsonrpc":"2.0","id":-1,"result":{"content":[]}}`,
		"id of an error": `{"jsonrpc":"2.0","id":999999,"error":{"code":1,"message":"m"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := callWithin(p, 300*time.Millisecond, "reply", reply(line))
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), "deadline exceeded")
			assert.Contains(t, err.Error(), `tools/call "reply"`)
			requireUsable(t, p)
		})
	}
	t.Run("stray answer before the right one", func(t *testing.T) {
		res, err := callWithin(p, 10*time.Second, "reply", reply(
			`{"jsonrpc":"2.0","id":999999,"result":{"content":[{"type":"text","text":"stray"}]}}`,
			`{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"right"}]}}`))
		require.NoError(t, err)
		assert.Equal(t, "right", plugin.RenderResult(res))
	})
	t.Run("answered twice", func(t *testing.T) {
		res, err := callWithin(p, 10*time.Second, "reply", reply(
			`{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"first"}]}}`,
			`{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"second"}]}}`))
		require.NoError(t, err)
		assert.Equal(t, "first", plugin.RenderResult(res))
		requireUsable(t, p)
	})
}

func TestResultOfTheWrongShapeIsInternalAndTheSessionLives(t *testing.T) {
	leakCheck(t)
	p := misbehaving(t)
	for _, result := range []string{
		`42`, `"text"`, `[]`, `true`,
		`{"content":"not an array"}`,
		`{"content":[42]}`,
		`{"content":[{"type":"no such type"}]}`,
		`{"content":[{"type":"text","text":5}]}`,
		`{"content":[{"type":"image","data":"not base64!"}]}`,
		`{"isError":"yes","content":[]}`,
	} {
		t.Run(result, func(t *testing.T) {
			_, err := callWithin(p, 10*time.Second, "reply", map[string]any{"result": json.RawMessage(result)})
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.Contains(t, err.Error(), `tools/call "reply"`)
			requireUsable(t, p)
		})
	}
	// go-sdk reads these leniently as a result with no content: the
	// documented rendering is the empty string.
	for _, result := range []string{`null`, `{}`, `{"content":null}`, `{"content":[{"type":"text"}]}`} {
		t.Run(result, func(t *testing.T) {
			res, err := callWithin(p, 10*time.Second, "reply", map[string]any{"result": json.RawMessage(result)})
			require.NoError(t, err)
			assert.Empty(t, plugin.RenderResult(res))
		})
	}
	t.Run("invalid UTF-8 becomes U+FFFD", func(t *testing.T) {
		res, err := callWithin(p, 10*time.Second, "reply",
			reply("{\"jsonrpc\":\"2.0\",\"id\":$ID,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\xffb\"}]}}"))
		require.NoError(t, err)
		assert.Equal(t, "a\uFFFDb", plugin.RenderResult(res))
	})
	t.Run("JSON-RPC error", func(t *testing.T) {
		_, err := callWithin(p, 10*time.Second, "reply", map[string]any{"error": json.RawMessage(`{"code":-32000,"message":"tool exploded"}`)})
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.Contains(t, err.Error(), "tool exploded")
		requireUsable(t, p)
	})
}

func TestLineThatIsNoMessageIsSkippedAndTheSessionGoesOn(t *testing.T) {
	leakCheck(t)
	core, logs := observer.New(zap.InfoLevel)
	p := misbehaving(t, plugin.WithLogger(zap.New(core)))
	// Messages are framed by newlines; a line that is no JSON-RPC message is
	// skipped and counted, as the TypeScript SDK's client skips it, and the
	// answer on the next line still reaches its call.
	after := `{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"after"}]}}`
	for name, line := range map[string]string{
		"not JSON":               `this is not json`,
		"a truncated line":       `{"jsonrpc":"2.0","id":$ID,"result":{"content":[`,
		"null id":                `{"jsonrpc":"2.0","id":null,"result":{"content":[]}}`,
		"no id":                  `{"jsonrpc":"2.0","result":{"content":[]}}`,
		"id as an object":        `{"jsonrpc":"2.0","id":{"n":$ID},"result":{"content":[]}}`,
		"not a JSON-RPC message": `42`,
		"a batch":                `[{"jsonrpc":"2.0","id":$ID,"result":{"content":[]}}]`,
		"error is not an object": `{"jsonrpc":"2.0","id":$ID,"error":"str"}`,
		"two values on one line": `{"jsonrpc":"2.0","method":"x"} {"jsonrpc":"2.0","method":"y"}`,
		"wrong jsonrpc version":  `{"jsonrpc":"1.0","id":$ID,"result":{"content":[]}}`,
		"empty object":           `{}`,
		"control bytes":          "\x00\x01\x02",
	} {
		t.Run(name, func(t *testing.T) {
			res, err := callWithin(p, 10*time.Second, "reply", reply(line, after))
			require.NoError(t, err)
			assert.Equal(t, "after", plugin.RenderResult(res))
		})
	}
	t.Run("with no answer after it, the call ends at its deadline", func(t *testing.T) {
		_, err := callWithin(p, 300*time.Millisecond, "reply", reply(`this is not json`))
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.Contains(t, err.Error(), "deadline exceeded")
		requireUsable(t, p)
	})
	assert.Equal(t, actors.Ready, p.Status().State)
	assert.Zero(t, p.Status().Restarts, "no line ended the session")
	assert.NotZero(t, logs.FilterMessageSnippet("not JSON-RPC messages").Len(), "skipped lines are warned of")
}

func TestAnswerGoSDKCannotUseFailsOnlyItsCall(t *testing.T) {
	leakCheck(t)
	p := misbehaving(t)
	for name, line := range map[string]string{
		"both result and error": `{"jsonrpc":"2.0","id":$ID,"result":{"content":[]},"error":{"code":1,"message":"m"}}`,
		"deeply nested (4k [)":  `{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":` + strings.Repeat("[", 4096) + strings.Repeat("]", 4096) + `}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := callWithin(p, 10*time.Second, "reply", reply(line))
			require.ErrorIs(t, err, plugin.ErrInternal)
			assert.NotContains(t, err.Error(), "deadline exceeded", "the failure is reported, not waited out")
			requireUsable(t, p)
		})
	}
}

// peakHeapDuring returns the most heap this process held while f ran,
// sampled every millisecond, with the collector made eager so that the
// figure tracks live memory rather than garbage.
func peakHeapDuring(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak
}

func TestOversizedResultIsRefusedInBoundedMemory(t *testing.T) {
	// A message over transport.MaxMessageBytes (16 MiB) is refused while it
	// is read: the client never holds it whole. A stdio line or a JSON body
	// over HTTP fails only its own call; within a server-sent event the
	// refusal ends the session (go-sdk cannot skip one event). What the
	// client holds depends on the limit, not on the message: at 128 MiB the
	// message is well clear of the 3-4x the limit that go-sdk's buffers take.
	const mib = 128
	huge := map[string]any{"mib": mib}
	check := func(t *testing.T, err error, peak uint64, limit string) {
		t.Helper()
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.Contains(t, err.Error(), limit, "the error names the limit")
		assert.Less(t, peak, uint64(mib<<20), "a %d MiB message is never held whole", mib)
		t.Logf("peak heap %d MiB for a %d MiB message", peak>>20, mib)
	}
	t.Run("stdio", func(t *testing.T) {
		leakCheck(t)
		p := misbehaving(t)
		var err error
		peak := peakHeapDuring(func() { _, err = callWithin(p, 30*time.Second, "huge", huge) })
		check(t, err, peak, transport.ErrMessageTooLarge.Error())
		assert.ErrorIs(t, err, transport.ErrMessageTooLarge)
		requireUsable(t, p)
	})
	t.Run("http json", func(t *testing.T) {
		leakCheck(t)
		srv := testserver.NewMisbehavingHTTP(t)
		p := connect(t, transport.StreamableHTTP{URL: srv.URL})
		var err error
		peak := peakHeapDuring(func() { _, err = callWithin(p, 30*time.Second, "huge", huge) })
		check(t, err, peak, transport.ErrMessageTooLarge.Error())
		assert.ErrorIs(t, err, transport.ErrMessageTooLarge)
		assert.NotContains(t, err.Error(), "connection lost")
		requireUsable(t, p)
	})
	t.Run("http event stream", func(t *testing.T) {
		leakCheck(t)
		srv := testserver.NewMisbehavingHTTP(t)
		p := connect(t, transport.StreamableHTTP{URL: srv.URL})
		var err error
		peak := peakHeapDuring(func() { _, err = callWithin(p, 30*time.Second, "huge_sse", huge) })
		check(t, err, peak, "SSE event exceeded 16777216 bytes")
		requireNoHang(t, p)
	})
}

func TestResultJustUnderTheLimitIsDeliveredWhole(t *testing.T) {
	leakCheck(t)
	p := misbehaving(t)
	res, err := callWithin(p, 60*time.Second, "huge", map[string]any{"mib": 15})
	require.NoError(t, err)
	out := plugin.RenderResult(res)
	assert.Len(t, out, 15<<20, "no truncation below the limit")
	requireUsable(t, p)
}

func TestNotificationFloodIsAbsorbed(t *testing.T) {
	leakCheck(t)
	core, logs := observer.New(zap.InfoLevel)
	p := misbehaving(t, plugin.WithLogger(zap.New(core)))
	const n = 5000
	for _, method := range []string{"notifications/message", "notifications/progress", "notifications/no_such_thing"} {
		t.Run(method, func(t *testing.T) {
			res, err := callWithin(p, 60*time.Second, "flood", map[string]any{"n": n, "method": method})
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf("flooded %d", n), plugin.RenderResult(res))
			requireUsable(t, p)
		})
	}
	assert.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len()+logs.FilterLevelExact(zapcore.ErrorLevel).Len(),
		"a flood of notifications is no flood of warnings")
}

func TestAnswerAfterTheCallerGaveUpIsDropped(t *testing.T) {
	leakCheck(t)
	core, logs := observer.New(zap.InfoLevel)
	p := misbehaving(t, plugin.WithLogger(zap.New(core)))

	// The server answers "late" only once it has seen the cancellation.
	_, err := callWithin(p, 200*time.Millisecond, "late", nil)
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "deadline exceeded")

	// Through the hook: a cancelled stream still gets a ToolResult.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "late"}}}
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	got, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok)
	assert.Equal(t, "c1", got.ToolCallID)
	assert.True(t, got.IsError)
	assert.Contains(t, got.Content, "context canceled")

	// Both late answers reach the client, which drops them quietly.
	var stats misbehaveStats
	require.Eventually(t, func() bool {
		stats = readMisbehaveStats(p)
		return stats.err == nil && stats.Late == 2 && stats.Cancelled == 2
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, stats.err)
	requireUsable(t, p)
	assert.Zero(t, logs.FilterLevelExact(zapcore.WarnLevel).Len()+logs.FilterLevelExact(zapcore.ErrorLevel).Len())
}

func TestCloseWithACallThatNeverAnswers(t *testing.T) {
	leakCheck(t)
	p, err := plugin.Connect(context.Background(), testserver.Raw(t, "misbehave"))
	require.NoError(t, err)
	f := p.CallTool(context.Background(), "reply", reply(`{"jsonrpc":"2.0","id":999999,"result":{}}`))
	// The call is in flight once the server has read it: the stats call
	// that counts it is the second tools/call it read.
	require.Eventually(t, func() bool {
		st := readMisbehaveStats(p)
		return st.err == nil && st.Calls >= 2
	}, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, p.Close())
	_, err = f.Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
}

func TestDuplicateToolNamesKeepTheFirst(t *testing.T) {
	leakCheck(t)
	// "dup" is listed on both pages, described by its page.
	p := connect(t, testserver.Raw(t, "tools", "count=3", "page=2", "dup=1"))
	var names []string
	for _, tool := range p.Tools() {
		names = append(names, tool.Name)
		if tool.Name == "dup" {
			assert.Equal(t, "dup on page 0", tool.Description)
		}
	}
	assert.Equal(t, []string{"dup", "tool00000", "tool00001", "tool00002"}, names)
	assert.Len(t, p.ToolDefinitions(), 4)
	res, err := callWithin(p, 10*time.Second, "dup", nil)
	require.NoError(t, err)
	assert.Equal(t, "dup", plugin.RenderResult(res))
}

func TestTenThousandTools(t *testing.T) {
	for name, args := range map[string][]string{
		"one page":     {"count=10000"},
		"pages of 100": {"count=10000", "page=100"},
	} {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			start := time.Now()
			p := connect(t, testserver.Raw(t, "tools", args...))
			t.Logf("connect with 10,000 tools: %v", time.Since(start))
			tools := p.Tools()
			require.Len(t, tools, 10000)
			for i, tool := range tools {
				require.Equal(t, fmt.Sprintf("tool%05d", i), tool.Name, "sorted by name")
			}
			assert.True(t, p.HasTool("tool09999"))
			assert.Len(t, p.ToolDefinitions(), 10000)
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "x", Name: "tool04242"}}}
			require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
			assert.Equal(t, host.ToolResult{ToolCallID: "x", Name: "tool04242", Content: "tool04242"}, chunk.Blocks[0])
		})
	}
}

// misbehaveStats is what the misbehave server's "stats" tool reports, or
// why it could not be read.
type misbehaveStats struct {
	Late, Cancelled, Calls int
	err                    error
}

func readMisbehaveStats(p *plugin.McpPlugin) misbehaveStats {
	var st misbehaveStats
	res, err := callWithin(p, 10*time.Second, "stats", nil)
	if err != nil {
		st.err = err
		return st
	}
	st.err = json.Unmarshal([]byte(plugin.RenderResult(res)), &st)
	return st
}

// A server's JSON-RPC error message reaches the caller's error and the
// model's tool result with every control character escaped: an escape
// sequence, an OSC 52 clipboard write, a carriage return that would
// overwrite the line, a C1 control and a bidi override cannot drive a
// terminal or reorder what the user reads.
func TestServerErrorMessagesReachErrorsWithoutControlCharacters(t *testing.T) {
	leakCheck(t)
	p := misbehaving(t)
	hostile := "boom\x1b[8mhidden\x1b]52;c;ZWNobyBoaQ==\x07\r\x1b[2Kfine\u0085\u202egnp.exe"
	msg, err := json.Marshal(hostile)
	require.NoError(t, err)
	args := map[string]any{"error": json.RawMessage(`{"code":-32000,"message":` + string(msg) + `}`)}
	_, err = callWithin(p, 10*time.Second, "reply", args)
	require.ErrorIs(t, err, plugin.ErrInternal)
	text := err.Error()
	assert.Contains(t, text, `boom\x1b[8mhidden`, "the server's words, escaped")
	for _, c := range []string{"\x1b", "\x07", "\r", "\u0085", "\u202e"} {
		assert.NotContains(t, text, c, "the error holds no %q", c)
	}

	raw, err := json.Marshal(args)
	require.NoError(t, err)
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "call-1", Name: "reply", Arguments: raw}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, p.OnStreamChunk(ctx, chunk))
	res, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok, "the call became its result")
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, `boom\x1b[8mhidden`)
	for _, c := range []string{"\x1b", "\x07", "\r", "\u0085", "\u202e"} {
		assert.NotContains(t, res.Content, c, "the tool result holds no %q", c)
	}
	requireUsable(t, p)
}
