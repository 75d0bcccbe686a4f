package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// cuttingServer is a go-sdk server on loopback HTTP whose first answer to
// each tool's call is cut mid-stream: the tool runs, the handler writes
// half of its event stream and then drops the connection. Its tools:
// "look" (readOnlyHint), "put" (idempotentHint), "write" (no hint), and
// "cut" (readOnlyHint), every answer of which is cut.
type cuttingServer struct {
	*httptest.Server
	runs sync.Map // tool -> *atomic.Int32: how many times it ran
	mu   sync.Mutex
	ids  map[string][]string // tool -> the request ids of its POSTs
	cut  map[string]bool     // tools whose first answer was cut
}

func newCuttingServer(t *testing.T) *cuttingServer {
	t.Helper()
	cs := &cuttingServer{ids: map[string][]string{}, cut: map[string]bool{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "cutting", Version: "1"}, nil)
	for _, tool := range []*mcp.Tool{
		{Name: "look", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "put", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		{Name: "write"},
		{Name: "cut", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
	} {
		tool.InputSchema = map[string]any{"type": "object"}
		n := &atomic.Int32{}
		cs.runs.Store(tool.Name, n)
		s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool.Name + " done"}}}, nil
		})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") != "tools/call" {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var call struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &call)
		tool := r.Header.Get("Mcp-Name")
		cs.mu.Lock()
		cs.ids[tool] = append(cs.ids[tool], string(call.ID))
		first := !cs.cut[tool] || tool == "cut"
		cs.cut[tool] = true
		cs.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !first {
			h.ServeHTTP(w, r)
			return
		}
		// The tool runs; its answer is written half, then the connection drops.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		require.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		b := rec.Body.Bytes()
		_, _ = w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *cuttingServer) ran(tool string) int32 {
	n, _ := cs.runs.Load(tool)
	return n.(*atomic.Int32).Load()
}

func (cs *cuttingServer) posts(tool string) []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]string(nil), cs.ids[tool]...)
}

func TestACutStreamIsResentOnceForARepeatableTool(t *testing.T) {
	cs := newCuttingServer(t)
	p := connect(t, transport.StreamableHTTP{URL: cs.URL}, plugin.WithRetryIdempotent())
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	if os.Getenv("MCPCONNECTOR_DIRECT_CALLS") == "0" {
		// The session path (ClientSession.CallTool) is go-sdk's: a cut
		// answer fails the call there and nothing is re-sent, as
		// WithRetryIdempotent's doc says.
		_, err := p.CallTool(ctx, "look", nil).Await(ctx)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "terminated without response")
		assert.EqualValues(t, 1, cs.ran("look"), "not re-sent on the session path")
		return
	}
	for _, tool := range []string{"look", "put"} {
		res, err := p.CallTool(ctx, tool, nil).Await(ctx)
		require.NoError(t, err, tool)
		assert.Equal(t, tool+" done", plugin.RenderResult(res))
		assert.EqualValues(t, 2, cs.ran(tool), "%s: run, cut, run again", tool)
		ids := cs.posts(tool)
		require.Len(t, ids, 2, tool)
		assert.NotEqual(t, ids[0], ids[1], "%s: re-sent with a new id", tool)
	}

	// A tool that says nothing of repeating is not re-sent: the call fails.
	_, err := p.CallTool(ctx, "write", nil).Await(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "terminated without response")
	assert.EqualValues(t, 1, cs.ran("write"))
	assert.Len(t, cs.posts("write"), 1)

	// Cut again, a call is not re-sent a second time.
	_, err = p.CallTool(ctx, "cut", nil).Await(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "re-sent once")
	assert.EqualValues(t, 2, cs.ran("cut"))
	assert.Len(t, cs.posts("cut"), 2)

	// The session lived on: the next call of each is answered whole.
	res, err := p.CallTool(ctx, "write", nil).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "write done", plugin.RenderResult(res))
}

func TestACutStreamIsNotResentWithoutRetryIdempotent(t *testing.T) {
	cs := newCuttingServer(t)
	p := connect(t, transport.StreamableHTTP{URL: cs.URL})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := p.CallTool(ctx, "look", nil).Await(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "terminated without response")
	assert.EqualValues(t, 1, cs.ran("look"))
	assert.Len(t, cs.posts("look"), 1)
}
