package anthropicmcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	anthropicmcp "github.com/cuca-go/mcpconnector/adapters/anthropic"
	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
)

// A toolbox whose one server speaks only revisions before 2026-07-28
// (a go-sdk server serving only those, over loopback Streamable HTTP),
// opened with plugin.WithLegacyFallback among its plugin options: the
// SDK's loops see its tools and get its results, as from any other server.
func TestAnOlderRevisionsServerAnswersTheModel(t *testing.T) {
	box := legacyserver.OpenToolbox(t)

	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			m := newModel(t, call("old__echo", `{"text":"hi"}`), answerFromResult("answer: "))
			got, err := l.run(testCtx(t), t, client(m), anthropicmcp.Tools(box), l.streamed, "go")
			require.NoError(t, err)
			assert.Equal(t, "answer: [ok] echo: hi", got)
			reqs := m.requests()
			require.Len(t, reqs, 2)
			assert.ElementsMatch(t, []string{"old__add", "old__echo"}, toolNames(reqs[0]))
		})
	}
}
