//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Progress the server sends before its result reaches the facade's
// WithProgress before the call returns, from a grain on another member: it
// travels ahead of the result.
func TestProgressThroughAGrainArrivesBeforeTheResult(t *testing.T) {
	cmd, args := testserver.ControlsCommand(t, testserver.ControlsOptions{})
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"ctl": {Name: "ctl", Type: mcpconfig.TypeStdio, Command: cmd, Args: args, Env: map[string]string{"GORACE": "atexit_sleep_ms=0"}},
	}}
	members := startMembers(t, 2, cfg)
	_, others := hostOf(t, members, "ctl")
	var mu sync.Mutex
	seen := map[string]int{}
	p := connect(t, others[0], "ctl", plugin.WithProgress(func(pr plugin.Progress) {
		mu.Lock()
		seen[pr.CallID]++
		mu.Unlock()
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 20 {
		id := fmt.Sprintf("call-%d", i)
		chunk := &host.Chunk{Blocks: []host.Block{
			host.ToolCall{ID: id, Name: "progress", Arguments: json.RawMessage(`{"steps":3,"ms":0}`)},
		}}
		require.NoError(t, p.OnStreamChunk(ctx, chunk))
		require.Equal(t, "done", chunk.Blocks[0].(host.ToolResult).Content)
		mu.Lock()
		n := seen[id]
		mu.Unlock()
		require.Equal(t, 3, n, "call %d: every step before the result", i)
	}
}
