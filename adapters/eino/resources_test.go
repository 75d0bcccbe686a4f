package einomcp_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
)

// followLink reads what the last tool result's resource link points at,
// with the tool the link names.
func followLink(t *testing.T) step {
	return func(msgs []*schema.Message) *schema.Message {
		tool, args, ok := agenttest.FollowLink(msgs[len(msgs)-1].Content)
		if !ok {
			t.Errorf("the result says how to read its link: %s", msgs[len(msgs)-1].Content)
			return schema.AssistantMessage("no link", nil)
		}
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "read", Type: "function", Function: schema.FunctionCall{Name: tool, Arguments: args}}})
	}
}

func TestTheAgentFollowsAResourceLink(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	ts := tools(t, box)
	infoOf(t, ts, "list_mcp_resources")
	read := infoOf(t, ts, "read_mcp_resource")
	assert.Contains(t, schemaJSON(t, read), `"required":["server","uri"]`)

	m, _ := newModel(callTool("c1", "docs__report", `{}`), followLink(t), answer)
	out, err := run(ctx(t), t, ts, m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: "+resourceserver.ReportText, out.Content)
}
