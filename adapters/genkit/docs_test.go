package genkitmcp_test

import (
	"testing"

	"github.com/firebase/genkit/go/genkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

func TestTheDocsExampleRuns(t *testing.T) {
	agenttest.DocsExample(t)

	box := agenttest.Open(t, agenttest.Options{})
	g, _ := newGenkit(t, callTool("r1", "alpha__add", `{"a":20,"b":22}`), answer)
	got, err := ask(ctx(t), g, box.Toolbox, genkit.LookupModel(g, "test/scripted"), "What is 20 + 22?")
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 42", got)
}
