package plugin_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

var (
	loadGoroutines = flag.Int("load.goroutines", 64, "goroutines of TestLoadEveryCallGetsItsOwnResult")
	loadCalls      = flag.Int("load.calls", 1000, "tool calls per goroutine of TestLoadEveryCallGetsItsOwnResult")
)

// token is what one call of the load test sends and must get back.
type token struct {
	G int `json:"g"`
	I int `json:"i"`
}

// TestLoadEveryCallGetsItsOwnResult runs many goroutines of tool calls on
// one plugin, half through OnStreamChunk (two calls and two pass-through
// blocks per chunk) and half through CallTool. The "args" server echoes each
// call's arguments, a token unique to the call, and counts what it received:
// every call must get its own token back, and the server must have seen each
// token exactly once. Size it with -load.goroutines and -load.calls; -short
// runs 8 x 100.
func TestLoadEveryCallGetsItsOwnResult(t *testing.T) {
	leakCheck(t)
	goroutines, calls := *loadGoroutines, *loadCalls
	if testing.Short() {
		goroutines, calls = 8, 100
	}
	p := connect(t, testserver.Raw(t, "args"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	// got[g][i] counts the results that carried token {g, i}.
	got := make([][]int, goroutines)
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		got[g] = make([]int, calls)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; {
				if i%4 == 0 && i+1 < calls {
					loadHook(t, ctx, p, got[g], g, i)
					i += 2
					continue
				}
				loadCall(t, ctx, p, got[g], g, i)
				i++
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	total := goroutines * calls
	t.Logf("%d goroutines x %d calls = %d calls in %v (%.0f calls/s)",
		goroutines, calls, total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())

	for g := range got {
		for i, n := range got[g] {
			if n != 1 {
				t.Errorf("token {%d %d} came back %d times", g, i, n)
			}
		}
	}
	res, err := p.CallTool(ctx, "stats", nil).Await(ctx)
	require.NoError(t, err)
	var stats testserver.ArgsStats
	require.NoError(t, json.Unmarshal([]byte(plugin.RenderResult(res)), &stats))
	assert.Equal(t, testserver.ArgsStats{Calls: total, Distinct: total}, stats,
		"the server saw every call once, none with non-object arguments")
}

// loadCall makes call {g, i} through CallTool.
func loadCall(t *testing.T, ctx context.Context, p *plugin.McpPlugin, got []int, g, i int) {
	res, err := p.CallTool(ctx, "echo", token{g, i}).Await(ctx)
	if !assert.NoError(t, err) {
		return
	}
	countToken(t, got, token{g, i}, plugin.RenderResult(res))
}

// loadHook makes calls {g, i} and {g, i+1} through one chunk.
func loadHook(t *testing.T, ctx context.Context, p *plugin.McpPlugin, got []int, g, i int) {
	args := func(i int) json.RawMessage {
		b, _ := json.Marshal(token{g, i})
		return b
	}
	id := func(i int) string { return fmt.Sprintf("call-%d-%d", g, i) }
	chunk := &host.Chunk{Blocks: []host.Block{
		host.Thinking{Text: "two calls"},
		host.ToolCall{ID: id(i), Name: "echo", Arguments: args(i)},
		host.ToolCall{ID: "not-ours", Name: "no_such_tool", Arguments: args(i)},
		host.ToolCall{ID: id(i + 1), Name: "echo", Arguments: args(i + 1)},
	}}
	if !assert.NoError(t, p.OnStreamChunk(ctx, chunk)) {
		return
	}
	assert.Equal(t, host.Thinking{Text: "two calls"}, chunk.Blocks[0])
	assert.Equal(t, host.ToolCall{ID: "not-ours", Name: "no_such_tool", Arguments: args(i)}, chunk.Blocks[2])
	for _, k := range []int{1, 3} {
		r, ok := chunk.Blocks[k].(host.ToolResult)
		if !assert.True(t, ok, "block %d is a result", k) {
			continue
		}
		want := i + (k-1)/2
		assert.Equal(t, id(want), r.ToolCallID, "a result keeps its call's id and place")
		assert.False(t, r.IsError, r.Content)
		countToken(t, got, token{g, want}, r.Content)
	}
}

// countToken checks that a result carried the token of its call and counts
// the token it carried, when it is one of this goroutine's.
func countToken(t *testing.T, got []int, want token, content string) {
	var tok token
	if !assert.NoError(t, json.Unmarshal([]byte(content), &tok), content) {
		return
	}
	assert.Equal(t, want, tok, "a result reached another call")
	if tok.G == want.G && tok.I >= 0 && tok.I < len(got) {
		got[tok.I]++
	}
}
