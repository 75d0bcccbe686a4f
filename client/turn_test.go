package client_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The calls a model streams one after another reach the hooks in one chunk,
// once their run ends; Text and Thinking runs are chunks of their own, as
// soon as they are complete.
func TestStreamHandsARunOfToolCallsInOneChunk(t *testing.T) {
	srv := newLLMServer(t, streamOf(
		chunk(content("Let me compute."), ""),
		chunk(toolDelta(0, "call_a", "add", `{"a":1,`), ""),
		chunk(toolDelta(0, "", "", `"b":2}`), ""),
		chunk(toolDelta(1, "call_w", "weather", `{"city":"Paris"}`), ""),
		chunk(reasoning("reasoning_content", "and one more"), ""),
		chunk(toolDelta(2, "call_b", "add", `{"a":40,"b":2}`), ""),
		chunk(`{}`, "tool_calls"),
	))
	rec := &recorder{name: "rec", log: &eventLog{}}
	res, err := srv.newClient(t, client.WithPlugin(&adder{}), client.WithPlugin(rec)).Stream(t.Context(), question())
	require.NoError(t, err)

	a := host.ToolResult{ToolCallID: "call_a", Name: "add", Content: "3"}
	w := host.ToolCall{ID: "call_w", Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}
	b := host.ToolResult{ToolCallID: "call_b", Name: "add", Content: "42"}
	assert.Equal(t, [][]host.Block{
		{host.Text{Text: "Let me compute."}},
		{a, w},
		{host.Thinking{Text: "and one more"}},
		{b},
	}, rec.chunks, "one chunk per Text or Thinking run, one per run of calls")
	assert.Equal(t, []host.Block{host.Text{Text: "Let me compute."}, a, w, host.Thinking{Text: "and one more"}, b},
		res.Blocks, "the model's order")
}

// A stream that breaks after complete calls runs none of them: they are the
// calls of an unfinished answer, and stay in the result as the model made
// them.
func TestStreamBrokenAfterCompleteCallsRunsNone(t *testing.T) {
	head := []string{
		chunk(content("The answer is "), ""),
		chunk(toolDelta(0, "call_1", "add", `{"a":21,"b":21}`), ""),
		chunk(toolDelta(1, "call_2", "add", `{"a":`), ""),
	}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"connection dropped", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, head...)
			panic(http.ErrAbortHandler)
		}},
		{"body ends without finish_reason", func(w http.ResponseWriter, _ *http.Request) {
			sse(w, head...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newLLMServer(t, tc.handler)
			add := &adder{}
			res, err := srv.newClient(t, client.WithPlugin(add)).Stream(t.Context(), question())
			require.Error(t, err)
			assert.Zero(t, add.calls, "no call of a broken answer runs")
			assert.Equal(t, []host.Block{
				host.Text{Text: "The answer is "},
				host.ToolCall{ID: "call_1", Name: "add", Arguments: []byte(`{"a":21,"b":21}`)},
			}, res.Blocks, "the complete call stays as the model made it; the cut one is dropped")
		})
	}
}

// A turn's calls run together. The MCP server's gather tool is a
// rendezvous: each call answers "together" only once all n calls of its
// batch are in flight at once, so the four calls of one turn pass only if
// the client handed them to the plugin together and the plugin ran them
// concurrently. (Calls run one after another would each wait for the
// others until the tool's guard ends the wait with "alone".)
func TestStreamRunsATurnsToolCallsTogether(t *testing.T) {
	const n = 4
	mcpSrv := testserver.NewHTTPServer(testserver.NewServer())
	t.Cleanup(mcpSrv.Close)
	mcp, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: mcpSrv.URL})
	require.NoError(t, err)
	t.Cleanup(func() { _ = mcp.Close() })

	events := []string{chunk(reasoning("reasoning_content", "four at once"), ""), chunk(content("Gathering."), "")}
	for i := range n {
		events = append(events, chunk(toolDelta(i, fmt.Sprintf("call_%d", i), "gather", fmt.Sprintf(`{"n":%d}`, n)), ""))
	}
	events = append(events, chunk(`{}`, "tool_calls"))
	srv := newLLMServer(t, streamOf(events...))

	res, err := srv.newClient(t, client.WithPlugin(mcp)).Stream(t.Context(), question())
	require.NoError(t, err)

	require.Len(t, res.Blocks, 2+n)
	assert.Equal(t, host.Thinking{Text: "four at once"}, res.Blocks[0])
	assert.Equal(t, host.Text{Text: "Gathering."}, res.Blocks[1])
	for i, blk := range res.Blocks[2:] {
		r, ok := blk.(host.ToolResult)
		require.True(t, ok, "block %d: got %T", i, blk)
		assert.Equal(t, fmt.Sprintf("call_%d", i), r.ToolCallID, "results keep the model's order")
		assert.Equal(t, "together", r.Content, "call %d did not overlap the others", i)
		assert.False(t, r.IsError)
	}
}
