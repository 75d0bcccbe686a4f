package genkitmcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
)

// A toolbox whose one server speaks only revisions before 2026-07-28
// (a go-sdk server serving only those, over loopback Streamable HTTP),
// opened with plugin.WithLegacyFallback among its plugin options:
// genkit.Generate offers its tools to the model and runs one of them.
func TestGenerateCallsAnOlderRevisionsServer(t *testing.T) {
	box := legacyserver.OpenToolbox(t)

	g, s := newGenkit(t, callTool("r1", "old__echo", `{"text":"hi"}`), answer)
	resp, err := generate(ctx(t), t, g, box)
	require.NoError(t, err)
	assert.Equal(t, "the tool said: echo: hi", resp.Text())
	require.Len(t, s.reqs, 2)
	assert.ElementsMatch(t, []string{"old__add", "old__echo"}, toolNames(s.reqs[0]))
}
