package langchainmcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
)

// A toolbox whose one server speaks only revisions before 2026-07-28
// (a go-sdk server serving only those, over loopback Streamable HTTP),
// opened with plugin.WithLegacyFallback among its plugin options: the
// agent offers its tools to the model and the executor runs one of them.
func TestAnOlderRevisionsServerAnswersTheAgent(t *testing.T) {
	box := legacyserver.OpenToolbox(t)

	m := newModel(callTool("c1", "old__echo", `{"text":"hi"}`), answer)
	out, err := run(ctx(t), lcTools(t, box), m)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: echo: hi", out)
	require.Len(t, m.opts, 2)
	var fns []string
	for _, f := range m.opts[0].Functions {
		fns = append(fns, f.Name)
	}
	assert.ElementsMatch(t, []string{"old__add", "old__echo"}, fns)
}
