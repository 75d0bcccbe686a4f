package genkitmcp_test

import (
	"encoding/json"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
)

// followLink reads what the last tool response's resource link points at,
// with the tool the link names.
func followLink(t *testing.T) step {
	return func(req *ai.ModelRequest) *ai.Message {
		out := lastOutput(req)
		tool, args, ok := agenttest.FollowLink(out)
		if !ok {
			t.Errorf("the result says how to read its link: %s", out)
			return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewTextPart("no link")}}
		}
		var in any
		require.NoError(t, json.Unmarshal([]byte(args), &in))
		return &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{ai.NewToolRequestPart(&ai.ToolRequest{Name: tool, Ref: "read", Input: in})}}
	}
}

func TestGenerateFollowsAResourceLink(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	g, s := newGenkit(t, callTool("r1", "docs__report", `{}`), followLink(t), answer)
	resp, err := generate(ctx(t), t, g, box)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: "+resourceserver.ReportText, resp.Text())
	require.Len(t, s.reqs, 3)
	names := toolNames(s.reqs[0])
	assert.Contains(t, names, "list_mcp_resources")
	assert.Contains(t, names, "read_mcp_resource")
}
