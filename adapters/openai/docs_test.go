package openaimcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

func TestTheDocsExampleRuns(t *testing.T) {
	agenttest.DocsExample(t)

	box := agenttest.Open(t, agenttest.Options{})
	m := newModel(t, call("alpha__add", `{"a":20,"b":22}`), answerFromResult("The sum is "))
	t.Setenv("OPENAI_BASE_URL", m.srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	got, err := ask(testCtx(t), box.Toolbox, "What is 20 + 22?")
	require.NoError(t, err)
	assert.Equal(t, "The sum is 42", got)
}
