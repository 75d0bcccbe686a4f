package einomcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

func TestTheDocsExampleRuns(t *testing.T) {
	agenttest.DocsExample(t)

	box := agenttest.Open(t, agenttest.Options{})
	m, _ := newModel(callTool("c1", "alpha__add", `{"a":20,"b":22}`), answer)
	got, err := ask(ctx(t), box.Toolbox, m, "What is 20 + 22?")
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 42", got)
}
