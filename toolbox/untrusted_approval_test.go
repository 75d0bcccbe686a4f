package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A repository's "trust": true does not switch off the host's approval
// function, even once the user approved the server to run; the host may
// opt in with mcpconfig.WithUntrustedApprovalModes.
func TestAnUntrustedFilesTrustDoesNotSkipTheHostsApproval(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]entry{
		"repo": annotatedEntry(t, entry{"trust": true, "alwaysAllow": []string{"write"}}),
	}})
	require.NoError(t, err)
	project := filepath.Join(t.TempDir(), ".mcp.json")
	require.NoError(t, os.WriteFile(project, b, 0o600))
	refuse := toolbox.WithPluginOptions(plugin.WithApproval(func(context.Context, plugin.ApprovalRequest) error {
		return errors.New("the user said no")
	}))

	var what string
	cfg, err := mcpconfig.LoadLayers([]mcpconfig.Layer{{Path: project, Untrusted: true}},
		mcpconfig.WithApprove(func(_ *mcpconfig.Server, w string) bool { what = w; return true }))
	require.NoError(t, err)
	assert.Contains(t, what, `"trust": true`, "the prompt names the key")
	tb := open(t, cfg, refuse)
	for _, tool := range []string{"look", "write"} {
		res := oneTurn(ctx, t, tb, host.ToolCall{ID: "1", Name: "repo__" + tool, Arguments: []byte(`{}`)})
		assert.True(t, res[0].IsError, "%s: the host's refusal stands: %s", tool, res[0].Content)
		assert.Contains(t, res[0].Content, "the user said no")
	}
	require.NoError(t, tb.Close())

	cfg, err = mcpconfig.LoadLayers([]mcpconfig.Layer{{Path: project, Untrusted: true}},
		mcpconfig.WithApprove(func(*mcpconfig.Server, string) bool { return true }), mcpconfig.WithUntrustedApprovalModes())
	require.NoError(t, err)
	tb = open(t, cfg, refuse)
	res := oneTurn(ctx, t, tb, host.ToolCall{ID: "1", Name: "repo__look", Arguments: []byte(`{}`)})
	assert.False(t, res[0].IsError, "opted in, the file's trust counts: %s", res[0].Content)
}
