package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resourceStoryOutput is the demo with -resources: the notes tool's result
// is a link naming its server and the read tool, the model follows it, and
// its reply quotes what it read.
const resourceStoryOutput = "\n\nTurn 1: the model calls the notes tool; its result links to a resource\n" +
	"  notes__latest_note answered:\n" +
	"    The latest note is ready.\n" +
	"    [resource link: note:///sums (sums, text/plain); read it with read_mcp_resource, server \"notes\"]\n" +
	"\n" +
	"Turn 2: the model follows the link with read_mcp_resource\n" +
	"  read_mcp_resource answered:\n" +
	"    21 + 21 = 42, checked with the add tool.\n" +
	"\n" +
	"Turn 3: the model answers from what it read\n" +
	"  reply (scripted): The latest note says: 21 + 21 = 42, checked with the add tool.\n"

// With -resources the scripted model follows the resource link of the
// notes server's tool through the toolbox's read_mcp_resource.
func TestRunScriptedFollowsAResourceLink(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, config{model: scripted, demo: true, resources: true}))
	t.Log("\n" + out.String())
	assert.Contains(t, out.String(), "Discovered from mcp.json (3 servers):\n")
	assert.Contains(t, out.String(), "  notes   http   ready (1 tool)\n    notes__latest_note\n")
	assert.True(t, strings.HasSuffix(out.String(), resourceStoryOutput), out.String())
}
