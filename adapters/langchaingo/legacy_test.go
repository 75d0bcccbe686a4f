package langchainmcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/legacyserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A toolbox whose one server speaks only revisions before 2026-07-28
// (a go-sdk server serving only those, over loopback Streamable HTTP),
// opened with plugin.WithLegacyFallback among its plugin options: the
// agent offers its tools to the model and the executor runs one of them.
func TestAnOlderRevisionsServerAnswersTheAgent(t *testing.T) {
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"old": {Name: "old", Type: mcpconfig.TypeHTTP, URL: legacyserver.StartHTTP(t)},
	}}
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	box, err := toolbox.Open(c, cfg, toolbox.WithStrict(), toolbox.WithPluginOptions(plugin.WithLegacyFallback()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = box.Close() })
	require.Equal(t, actors.LegacyRevisions()[0], box.ProtocolVersion("old"))

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
