package toolbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestOneStepQueriesRankAsWithoutSteps checks that splitting never
// changes a query of one step: each one-tool phrasing, and long queries
// of one step, load the same tools in the same order with the step
// machinery (noise reduction, splitting, fusion, the task's servers,
// feedback on steps) on and off.
func TestOneStepQueriesRankAsWithoutSteps(t *testing.T) {
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	heldOut, err := toolcorpus.HeldOutTasks()
	require.NoError(t, err)
	queries := []string{
		// Ten keywords and more, but one step: nothing splits them.
		"why does the landing page of our shop take so long to show its product images on slow phones",
		"find the function that parses the command line flags of the kubernetes scheduler in its codebase",
		"which of our open pull requests on the payments service still wait for a review from the platform team",
	}
	for _, q := range queries {
		require.Len(t, toolbox.SplitSteps(toolbox.ReduceNoise(q)), 1, "%q is one step", q)
	}
	for _, task := range append(tuned, heldOut...) {
		queries = append(queries, task.Task)
	}
	entries, _ := corpusEntries(t)
	withSteps := searchOver(t, entries)
	restore := toolbox.SetStepKnobs(false, false, toolbox.FuseRoundRobin, false, false)
	without := searchOver(t, entries)
	got := map[string][]string{}
	for _, q := range queries {
		got[q] = without(q, 5)
	}
	restore()
	for _, q := range queries {
		want := withSteps(q, 5)
		require.NotEmpty(t, want, "query %q", q)
		assert.Equal(t, want, got[q], "query %q", q)
	}
}
