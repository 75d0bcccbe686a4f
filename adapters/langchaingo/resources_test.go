package langchainmcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
)

// followLink reads what the last tool response's resource link points at,
// with the tool the link names.
func followLink(t *testing.T) step {
	return func(msgs []llms.MessageContent) *llms.ContentChoice {
		tool, args, ok := agenttest.FollowLink(lastResponse(msgs))
		if !ok {
			t.Errorf("the result says how to read its link: %s", lastResponse(msgs))
			return &llms.ContentChoice{Content: "no link"}
		}
		return callTool("read", tool, args)(msgs)
	}
}

func TestTheAgentFollowsAResourceLink(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	ts := lcTools(t, box)
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	assert.Contains(t, names, "list_mcp_resources")
	assert.Contains(t, names, "read_mcp_resource")

	m := newModel(callTool("c1", "docs__report", `{}`), followLink(t), answer)
	out, err := run(ctx(t), ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: "+resourceserver.ReportText, out)
}
