//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A toolbox of grains lists and reads resources and prompts, each under
// its server's name, from every member; with WithResourceTools the model's
// tools answer, and a resource link in a tool result names its server, so
// the read the model makes from it comes back with the resource's text.
func TestToolboxOfGrainsServesResources(t *testing.T) {
	cfg := calcConfig(t)
	cfg.Servers["docs"] = &mcpconfig.Server{Name: "docs", Type: mcpconfig.TypeHTTP, URL: resourceserver.HTTP(t)}
	members := startMembers(t, 2, cfg)

	// A toolbox on each member: every grain is remote to one of them.
	for _, m := range members {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		tb, err := grid.OpenToolbox(ctx, m, cfg, toolbox.WithStrict(), toolbox.WithResourceTools())
		require.NoError(t, err)
		defer tb.Close()

		rs, err := tb.ListResources(ctx, "")
		require.NoError(t, err, "calc has no resources: an empty list, not an error")
		var uris []string
		for _, r := range rs {
			assert.Equal(t, "docs", r.Server)
			uris = append(uris, r.Resource.URI)
		}
		assert.ElementsMatch(t, []string{resourceserver.NotesURI, resourceserver.BigURI, resourceserver.BlobURI, resourceserver.ReportURI}, uris,
			"every page, across the wire")
		tpls, err := tb.ListResourceTemplates(ctx, "docs")
		require.NoError(t, err)
		require.Len(t, tpls, 1)
		assert.Equal(t, resourceserver.UserTemplate, tpls[0].Template.URITemplate)

		res, err := tb.ReadResource(ctx, "docs", resourceserver.BlobURI)
		require.NoError(t, err)
		require.Len(t, res.Contents, 1)
		assert.Equal(t, resourceserver.Blob, res.Contents[0].Blob, "a blob reads back byte for byte")

		ps, err := tb.ListPrompts(ctx, "docs")
		require.NoError(t, err)
		assert.Len(t, ps, 2)
		got, err := tb.GetPrompt(ctx, "docs", "review", map[string]string{"lang": "Go"})
		require.NoError(t, err)
		msgs := plugin.PromptMessages(got)
		require.Len(t, msgs, 1)
		assert.Equal(t, "Review this Go code.", msgs[0].Blocks[0].(host.Text).Text)

		_, err = tb.ReadResource(ctx, "nowhere", resourceserver.NotesURI)
		require.ErrorIs(t, err, toolbox.ErrUnknownServer)

		// The model's turn: the report tool, whose result links to a
		// resource, and list_mcp_resources.
		defs := map[string]bool{}
		for _, d := range tb.ToolDefinitions() {
			defs[d.Name] = true
		}
		require.True(t, defs[plugin.ListResourcesTool] && defs[plugin.ReadResourceTool], "the resource tools are offered: %v", defs)
		blocks := chunk(t, tb,
			host.ToolCall{ID: "1", Name: "docs__" + resourceserver.ReportTool, Arguments: json.RawMessage(`{}`)},
			host.ToolCall{ID: "2", Name: plugin.ListResourcesTool, Arguments: json.RawMessage(`{"server":"docs"}`)})
		report, list := blocks[0].(host.ToolResult), blocks[1].(host.ToolResult)
		require.False(t, report.IsError, report.Content)
		assert.Contains(t, report.Content, `[resource link: `+resourceserver.ReportURI+` (q3, text/plain); read it with read_mcp_resource, server "docs"]`,
			"the link names the server the toolbox's read tool takes")
		require.False(t, list.IsError, list.Content)
		assert.Contains(t, list.Content, `"uri":"`+resourceserver.NotesURI+`"`)
		assert.Contains(t, list.Content, `"server":"docs"`)

		// The model follows the link as it reads.
		args, err := json.Marshal(map[string]string{"server": "docs", "uri": resourceserver.ReportURI})
		require.NoError(t, err)
		read := chunk(t, tb, host.ToolCall{ID: "3", Name: plugin.ReadResourceTool, Arguments: args})[0].(host.ToolResult)
		require.False(t, read.IsError, read.Content)
		assert.Equal(t, resourceserver.ReportText, read.Content)
		assert.Equal(t, "3", read.ToolCallID)
	}
}

// chunk runs calls through tb's hook, as a client's stream does, and
// returns the blocks that replace them.
func chunk(t *testing.T, tb *toolbox.Toolbox, calls ...host.ToolCall) []host.Block {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c := &host.Chunk{}
	for _, call := range calls {
		c.Blocks = append(c.Blocks, call)
	}
	require.NoError(t, tb.OnStreamChunk(ctx, c))
	require.Len(t, c.Blocks, len(calls))
	return c.Blocks
}
