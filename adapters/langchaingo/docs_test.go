package langchainmcp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/agenttools/agenttest"
)

// askSource is the ask function of example_test.go, as docs/adapters.md
// must show it.
func askSource(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	s := string(src)
	start := strings.Index(s, "func ask(")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(s[start:], "\n}\n")
	require.Greater(t, end, 0)
	return s[start : start+end+2]
}

func TestTheDocsExampleRuns(t *testing.T) {
	fn := askSource(t)
	doc, err := os.ReadFile("../../docs/adapters.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), fn, "docs/adapters.md shows ask as it is")
	assert.LessOrEqual(t, strings.Count(fn, "\n"), 20, "at most 20 lines")

	box := agenttest.Open(t, agenttest.Options{})
	m := newModel(callTool("c1", "alpha__add", `{"a":20,"b":22}`), answer)
	got, err := ask(ctx(t), box.Toolbox, m, "What is 20 + 22?")
	require.NoError(t, err)
	assert.Equal(t, "the tool said: 42", got)
}
