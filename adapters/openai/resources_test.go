package openaimcp_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	openaimcp "github.com/cuca-go/mcpconnector/adapters/openai"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
)

// followLink is the model's turn after a tool result with a resource
// link: it reads what the link points at, with the tool the link names.
func followLink(t *testing.T, req request) ([]toolUse, string) {
	require.Len(t, req.Results, 1, "the model expected one tool result")
	tool, args, ok := agenttest.FollowLink(req.Results[0].Text)
	require.True(t, ok, "the result says how to read its link: %s", req.Results[0].Text)
	return []toolUse{{tool, args}}, ""
}

func TestTheModelFollowsAResourceLink(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			m := newModel(t, call("docs__report", `{}`), followLink, answerFromResult("answer: "))
			got, err := l.run(testCtx(t), t, client(m), openaimcp.Tools(box), l.streamed, "what did Q3 look like?")
			require.NoError(t, err)
			assert.Equal(t, "answer: "+resourceserver.ReportText, got)
			reqs := m.requests()
			require.Len(t, reqs, 3)
			names := toolNames(reqs[0])
			assert.True(t, slices.Contains(names, "list_mcp_resources") && slices.Contains(names, "read_mcp_resource"), "offered: %v", names)
			assert.Contains(t, reqs[1].Results[0].Text, `read it with read_mcp_resource, server "docs"`)
		})
	}
}

func TestTheModelListsThenReadsAResource(t *testing.T) {
	box := agenttest.Open(t, agenttest.Options{Resources: true})
	m := newModel(t, call("list_mcp_resources", `{"server":"docs"}`),
		func(t *testing.T, req request) ([]toolUse, string) {
			require.Contains(t, req.Results[0].Text, `"uri":"`+resourceserver.NotesURI+`"`)
			return []toolUse{{"read_mcp_resource", `{"server":"docs","uri":"` + resourceserver.NotesURI + `"}`}}, ""
		},
		answerFromResult(""))
	got, err := runChat(testCtx(t), t, client(m), openaimcp.Tools(box), true, "notes?")
	require.NoError(t, err)
	assert.Equal(t, resourceserver.NotesText, got)
}
