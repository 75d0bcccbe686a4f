//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// corpusConfig adds real servers' tool lists, served over loopback HTTP,
// to the calc server's config.
func corpusConfig(t *testing.T, names ...string) *mcpconfig.Config {
	t.Helper()
	cfg := calcConfig(t)
	servers, err := toolcorpus.Load()
	require.NoError(t, err)
	for _, s := range servers {
		for _, name := range names {
			if s.Name == name {
				srv := testserver.NewHTTPServer(toolcorpus.NewServer(s))
				t.Cleanup(srv.Close)
				cfg.Servers[name] = &mcpconfig.Server{Name: name, Type: mcpconfig.TypeHTTP, URL: srv.URL}
			}
		}
	}
	require.Len(t, cfg.Servers, len(names)+1)
	return cfg
}

// A toolbox of grains searches, publishes and calls as a local one does,
// with the servers' instructions carried from whichever member hosts them.
func TestToolboxOfGrainsWithToolSearch(t *testing.T) {
	cfg := corpusConfig(t, "context7", "everything", "github", "memory")
	members := startMembers(t, 2, cfg)
	search := toolbox.WithToolSearch(toolbox.ToolSearch{})
	local, err := toolbox.Open(context.Background(), cfg, search, toolbox.WithStrict())
	require.NoError(t, err)
	defer local.Close()

	// A toolbox on each member: every grain is remote to one of them.
	for _, m := range members {
		tb, err := grid.OpenToolbox(context.Background(), m, cfg, search, toolbox.WithStrict())
		require.NoError(t, err)
		defer tb.Close()
		for _, server := range []string{"context7", "everything", "github", "memory", "calc"} {
			assert.Equal(t, local.Plugin(server).Instructions(), tb.Plugin(server).Instructions(), server)
		}
		assert.NotEmpty(t, tb.Plugin("everything").Instructions())

		for _, q := range []string{"open a bug ticket on github", "add two numbers", "calc__add, memory__read_graph"} {
			assert.Equal(t, local.Search(q), tb.Search(q), q)
		}
		localReq := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
		gridReq := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
		require.NoError(t, local.OnRequest(context.Background(), localReq))
		require.NoError(t, tb.OnRequest(context.Background(), gridReq))
		assert.Equal(t, localReq, gridReq, "the same search tool and instructions")
		require.Len(t, gridReq.Tools, 1)
		assert.Contains(t, gridReq.Messages[0].Blocks[0].(host.Text).Text, "## everything\n")

		// Search, then call what it found, through the grain.
		sc := host.ToolCall{ID: "s", Name: toolbox.DefaultToolSearchName, Arguments: json.RawMessage(`{"query":"calc__add"}`)}
		chunk := &host.Chunk{Blocks: []host.Block{sc}}
		require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
		res := chunk.Blocks[0].(host.ToolResult)
		gridReq.Messages = append(gridReq.Messages,
			host.Message{Role: host.RoleAssistant, Blocks: []host.Block{sc}},
			host.Message{Role: host.RoleTool, Blocks: []host.Block{res}})
		gridReq.Tools = nil
		require.NoError(t, tb.OnRequest(context.Background(), gridReq))
		require.Len(t, gridReq.Tools, 2)
		assert.Equal(t, "calc__add", gridReq.Tools[1].Name)
		chunk = &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c", Name: "calc__add", Arguments: json.RawMessage(`{"a":2,"b":3}`)}}}
		require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
		assert.Equal(t, host.ToolResult{ToolCallID: "c", Name: "calc__add", Content: "5"}, chunk.Blocks[0])
	}
}
