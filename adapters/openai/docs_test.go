package openaimcp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/agenttools/agenttest"
)

func TestTheDocsExampleRuns(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	doc, err := os.ReadFile("../../docs/adapters.md")
	require.NoError(t, err)
	fn := string(src[strings.Index(string(src), "func ask("):])
	assert.Contains(t, string(doc), fn, "docs/adapters.md shows ask as it is")
	assert.LessOrEqual(t, strings.Count(fn, "\n"), 20, "at most 20 lines")

	box := agenttest.Open(t, agenttest.Options{})
	m := newModel(t, call("alpha__add", `{"a":20,"b":22}`), answerFromResult("The sum is "))
	t.Setenv("OPENAI_BASE_URL", m.srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	got, err := ask(testCtx(t), box.Toolbox, "What is 20 + 22?")
	require.NoError(t, err)
	assert.Equal(t, "The sum is 42", got)
}
