package toolbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// instructedEntry serves one tool over loopback HTTP with instructions.
func instructedEntry(t *testing.T, instructions string) entry {
	s := mcp.NewServer(&mcp.Implementation{Name: "i", Version: "1"}, &mcp.ServerOptions{Instructions: instructions})
	s.AddTool(&mcp.Tool{Name: "op", Description: "An operation", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	return entry{"type": "http", "url": srv.URL}
}

func TestServersInstructionsJoinTheRequestOnce(t *testing.T) {
	long := strings.Repeat("é", 1500) // 3000 bytes
	cfg := config(t, map[string]entry{
		"long":  instructedEntry(t, long),
		"none":  instructedEntry(t, ""),
		"short": instructedEntry(t, "Call op twice."),
	})
	tb := open(t, cfg, searchOn)
	assert.Equal(t, long, tb.Plugin("long").Instructions())

	req := host.NewRequest("m").
		AddMessage(host.RoleSystem, host.Text{Text: "You are helpful."}).
		AddMessage(host.RoleUser, host.Text{Text: "go"})
	require.NoError(t, tb.OnRequest(context.Background(), req))
	require.Len(t, req.Messages, 3)
	assert.Equal(t, host.Text{Text: "You are helpful."}, req.Messages[0].Blocks[0], "the host's system message stays first")
	assert.Equal(t, host.RoleUser, req.Messages[2].Role)
	sys := req.Messages[1]
	assert.Equal(t, host.RoleSystem, sys.Role)
	text := sys.Blocks[0].(host.Text).Text
	head, rest, _ := strings.Cut(text, "\n\n## long\n")
	assert.Equal(t, "Instructions from the MCP servers whose tools you can use:", head)
	longPart, shortPart, found := strings.Cut(rest, "\n\n## short\n")
	require.True(t, found, text)
	assert.Equal(t, "Call op twice.", shortPart)
	assert.NotContains(t, text, "## none")
	assert.LessOrEqual(t, len(longPart), 2048, "a server's instructions are cut at 2 KiB")
	assert.True(t, strings.HasSuffix(longPart, "\n[instructions cut]"), longPart[len(longPart)-40:])
	assert.True(t, strings.HasPrefix(long, strings.TrimSuffix(longPart, "\n[instructions cut]")), "cut at a character")

	// Once per request: a request that has it gets no second copy.
	require.NoError(t, tb.OnRequest(context.Background(), req))
	assert.Len(t, req.Messages, 3)

	off := open(t, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{NoInstructions: true}))
	req = host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "go"})
	require.NoError(t, off.OnRequest(context.Background(), req))
	assert.Len(t, req.Messages, 1)
	assert.Equal(t, "tool_search", req.Tools[0].Name)

	plain := open(t, cfg)
	req = host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "go"})
	require.NoError(t, plain.OnRequest(context.Background(), req))
	assert.Len(t, req.Messages, 1, "without tool search nothing changes")
	assert.Empty(t, req.Tools)
}
