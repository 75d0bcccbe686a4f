package toolbox_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/toolcorpus"
)

var updateGolden = flag.Bool("update-golden", false, "write testdata/search_golden.json from the search as it is")

// goldenFile holds what a search loaded, at 5, for each one-tool phrasing
// of tasks.json and tasks_heldout.json over the whole corpus, as the
// search ranked them before it searched several-step queries step by
// step.
var goldenFile = filepath.Join("testdata", "search_golden.json")

// TestOneStepQueriesRankAsBefore checks that a query of one step loads
// what it loaded before step search: the same tools in the same order.
func TestOneStepQueriesRankAsBefore(t *testing.T) {
	search := corpusSearch(t)
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	heldOut, err := toolcorpus.HeldOutTasks()
	require.NoError(t, err)
	got := map[string][]string{}
	for _, task := range append(tuned, heldOut...) {
		got[task.Task] = search(task.Task, 5)
	}
	if *updateGolden {
		b, err := json.MarshalIndent(got, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(goldenFile, append(b, '\n'), 0o644))
		return
	}
	b, err := os.ReadFile(goldenFile)
	require.NoError(t, err)
	var want map[string][]string
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, len(got))
	for q, names := range want {
		assert.Equal(t, names, got[q], "query %q", q)
	}
}
