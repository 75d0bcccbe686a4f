package interop

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// @takescake/1password-mcp 4.0.2, a published server on the TypeScript SDK
// v2 that speaks 2026-07-28 and declares tools, prompts and resources (all
// three with listChanged). Its lists and prompts are its own text: with a
// made-up service account token it serves them without reaching
// 1Password, so the test runs offline. Reading one of its resources is
// refused by the server itself (-32602 "Resource URI 1password://config is
// invalid": a scheme that starts with a digit is no URL scheme), which the
// test keeps as it is: the refusal arrives as the server's JSON-RPC error.
func TestOnePasswordServerListsPromptsAndResources(t *testing.T) {
	node, server, why := pinnedOnePassword()
	needs(t, "@takescake/1password-mcp", why)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a cold node start under load
	defer cancel()
	changes := 0
	var mu sync.Mutex
	p, err := plugin.Connect(ctx, transport.Stdio{Command: node, Args: []string{server}, Dir: t.TempDir(),
		Env: []string{"OP_SERVICE_ACCOUNT_TOKEN=ops_interop_offline_not_a_token"}},
		plugin.WithListChangeHandler(func(plugin.ListChange) { mu.Lock(); changes++; mu.Unlock() }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	require.NotEmpty(t, p.Tools())

	res, err := p.ListResources(ctx, "")
	require.NoError(t, err)
	uris := map[string]string{}
	for _, r := range res.Resources {
		uris[r.URI] = r.MIMEType
	}
	assert.Equal(t, "application/json", uris["1password://config"], "resources: %v", uris)
	assert.Contains(t, uris, "1password://vaults")
	tpl, err := p.ListResourceTemplates(ctx, "")
	require.NoError(t, err)
	assert.NotNil(t, tpl.ResourceTemplates)

	prompts, err := p.ListPrompts(ctx, "")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, pr := range prompts.Prompts {
		names[pr.Name] = true
	}
	require.True(t, names["generate-secure-password"], "prompts: %v", names)
	got, err := p.GetPrompt(ctx, "generate-secure-password", map[string]string{"purpose": "database"})
	require.NoError(t, err)
	msgs := plugin.PromptMessages(got)
	require.NotEmpty(t, msgs)
	assert.Contains(t, msgs[0].Blocks[0].(host.Text).Text, "database", "the argument is filled in")

	_, err = p.ReadResource(ctx, "1password://config")
	require.Error(t, err)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "the server's own refusal")
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)
	mu.Lock()
	defer mu.Unlock()
	assert.Zero(t, changes, "nothing changed its lists")
}

var (
	onePasswordOnce sync.Once
	onePasswordPath string
)

// pinnedOnePassword is the pinned node and the 1password server's entry
// point in .cache.
func pinnedOnePassword() (node, server, why string) {
	if node, why = pinnedNode(); why != "" {
		return "", "", why
	}
	onePasswordOnce.Do(func() {
		p, err := filepath.Abs(filepath.Join(".cache", "node_modules", "@takescake", "1password-mcp", "bin", "1password-mcp.js"))
		if err == nil {
			_, err = os.Stat(p)
		}
		if err == nil {
			onePasswordPath = p
		}
	})
	if onePasswordPath == "" {
		return "", "", "@takescake/1password-mcp is not in interop/.cache (setup.sh installs it)"
	}
	return node, onePasswordPath, ""
}
