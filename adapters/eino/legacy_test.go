package einomcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
)

// A toolbox whose one server speaks only revisions before 2026-07-28
// (a go-sdk server serving only those, over loopback Streamable HTTP),
// opened with plugin.WithLegacyFallback among its plugin options: the
// ReAct agent's model is given its tools, and the agent runs one of them.
func TestAnOlderRevisionsServerAnswersTheAgent(t *testing.T) {
	box := legacyserver.OpenToolbox(t)

	m, s := newModel(callTool("c1", "old__echo", `{"text":"hi"}`), answer)
	out, err := run(ctx(t), t, tools(t, box), m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: echo: hi", out.Content)
	require.Len(t, s.tools, 2)
	var names []string
	for _, info := range s.tools[0] {
		names = append(names, info.Name)
	}
	assert.ElementsMatch(t, []string{"old__add", "old__echo"}, names)
}
