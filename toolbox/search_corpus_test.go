package toolbox_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// corpusEntries serves every real server's tool list over loopback HTTP,
// one go-sdk server each, and returns their mcp.json entries.
func corpusEntries(t *testing.T) (map[string]entry, []toolcorpus.Server) {
	t.Helper()
	servers, err := toolcorpus.Load()
	require.NoError(t, err)
	entries := map[string]entry{}
	for _, s := range servers {
		srv := testserver.NewHTTPServer(toolcorpus.NewServer(s))
		t.Cleanup(srv.Close)
		entries[s.Name] = entry{"type": "http", "url": srv.URL}
	}
	return entries, servers
}

func TestCorpusIsLargeEnough(t *testing.T) {
	servers, err := toolcorpus.Load()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(servers), 8)
	assert.GreaterOrEqual(t, toolcorpus.Count(servers), 150)
	tasks, err := toolcorpus.Tasks()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(tasks), 60)
}

// TestSearchRecallOnRealToolLists searches each task phrasing as the query
// and checks that the tool the task needs is among those loaded: on the
// phrasings the search was tuned with, and on ones written after.
func TestSearchRecallOnRealToolLists(t *testing.T) {
	entries, _ := corpusEntries(t)
	all := open(t, config(t, entries), toolbox.WithToolSearch(toolbox.ToolSearch{}))
	first := open(t, config(t, firstEntries(entries)), toolbox.WithToolSearch(toolbox.ToolSearch{}))
	for _, set := range []struct {
		name  string
		tb    *toolbox.Toolbox
		load  func() ([]toolcorpus.Task, error)
		floor float64
	}{
		// Over the 189 tools of 11 servers the phrasings were written
		// for, 105 of the 116 the search was tuned with were found (0.905)
		// and 26 of the 32 written after (0.81); over the 582 tools of 43
		// servers, 95 (0.819) and 25 (0.781) before the ranking's fields
		// and weights were measured again, 100 (0.862) and 26 (0.812)
		// after, and 27 of the 32 (0.844) over the first 189 tools; with
		// the wider stems, synonyms and twins, 102 (0.879), 26 and 27; with
		// prefixes, asking and names covered, 105 (0.905), 28 (0.875) and
		// 29 (0.906). The floors are those figures: a ranking that finds
		// fewer fails.
		{"tuned", all, toolcorpus.Tasks, 105.0 / 116},
		{"held-out", all, toolcorpus.HeldOutTasks, 28.0 / 32},
		{"held-out, 189 tools", first, toolcorpus.HeldOutTasks, 29.0 / 32},
	} {
		t.Run(set.name, func(t *testing.T) {
			tasks, err := set.load()
			require.NoError(t, err)
			recall := measureRecall(t, set.tb, tasks)
			assert.GreaterOrEqual(t, recall, set.floor)
		})
	}
}

// measureRecall logs and returns the share of tasks whose tool a search
// for the task loads.
func measureRecall(t *testing.T, tb *toolbox.Toolbox, tasks []toolcorpus.Task) float64 {
	t.Helper()
	found, total := map[string]int{}, map[string]int{}
	var misses []string
	for _, task := range tasks {
		require.True(t, tb.HasTool(task.Tool), "task names a tool of the corpus: %s", task.Tool)
		server, _, _ := strings.Cut(task.Tool, "__")
		total[server]++
		loaded := tb.Search(task.Task)
		require.LessOrEqual(t, len(loaded), 5, "the default ToolSearch.Results")
		if slices.ContainsFunc(loaded, func(tl toolbox.Tool) bool { return tl.Name == task.Tool }) {
			found[server]++
			continue
		}
		var names []string
		for _, tl := range loaded {
			names = append(names, tl.Name)
		}
		misses = append(misses, fmt.Sprintf("%q wants %s, got %v", task.Task, task.Tool, names))
	}
	var servers []string
	hits := 0
	for s := range total {
		servers = append(servers, s)
		hits += found[s]
	}
	sort.Strings(servers)
	for _, s := range servers {
		t.Logf("recall@5 %-12s %d/%d = %.2f", s, found[s], total[s], float64(found[s])/float64(total[s]))
	}
	recall := float64(hits) / float64(len(tasks))
	t.Logf("recall@5 overall %d/%d = %.3f", hits, len(tasks), recall)
	for _, m := range misses {
		t.Log("miss:", m)
	}
	return recall
}

// corpusSearch opens toolboxes over the corpus loading 3, 5 and 10 tools a
// search and returns what a search loads at each of those depths.
func corpusSearch(t *testing.T) func(query string, k int) []string {
	t.Helper()
	entries, _ := corpusEntries(t)
	cfg := config(t, entries)
	tbs := map[int]*toolbox.Toolbox{}
	for _, k := range toolcorpus.Depths {
		tbs[k] = open(t, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Results: k}))
	}
	return func(query string, k int) []string {
		var names []string
		for _, tl := range tbs[k].Search(query) {
			names = append(names, tl.Name)
		}
		return names
	}
}

// TestSearchFiguresOnTaskSets scores the search on every set of tasks:
// recall at 3, 5 and 10 (a task is found when a tool it needs is loaded)
// and the share of steps covered at 5, each held to a floor just under
// what it measures, so that a change that makes one worse fails. The
// engine's own TestFiguresOnTaskSets (toolbox/internal/toolsearch) reads the
// same figures without servers; the tests that measure its parts and
// weights are there.
func TestSearchFiguresOnTaskSets(t *testing.T) {
	search := corpusSearch(t)
	one := func(load func() ([]toolcorpus.Task, error)) func() ([]toolcorpus.StepTask, error) {
		return func() ([]toolcorpus.StepTask, error) {
			tasks, err := load()
			return toolcorpus.AsSteps(tasks), err
		}
	}
	for _, set := range []struct {
		name          string
		load          func() ([]toolcorpus.StepTask, error)
		recall, steps float64 // floors of recall at 5 and steps covered at 5
	}{
		// 95 of 116 (0.819) and 25 of 32 (0.781) over the 582 tools
		// before step search and before the ranking's fields and
		// weights were measured again; 100 (0.862) and 26 (0.812) after.
		// 102 (0.879) and 26 with the wider stems, synonyms and twins;
		// 105 (0.905) and 28 (0.875) with prefixes, asking and names
		// covered.
		{"phrasings", one(toolcorpus.Tasks), 105.0 / 116, 105.0 / 116},
		{"held-out phrasings", one(toolcorpus.HeldOutTasks), 28.0 / 32, 28.0 / 32},
		// 0.796 and 0.488 before step search; 0.914 and 0.669 after;
		// 0.935 (87 of 93) and 0.681 (177 of 260) with the ranking's
		// new weights; 0.946 (88) and 0.685 (178) with the wider stems,
		// synonyms and twins; 0.957 (89) and 0.696 (181) with prefixes,
		// asking and names covered.
		{"several-step", toolcorpus.StepTasks, 89.0 / 93, 181.0 / 260},
		// Written after the tuning ended: reported, with no floor fitted
		// to it.
		{"several-step, written after tuning", toolcorpus.LateStepTasks, 0, 0},
	} {
		t.Run(set.name, func(t *testing.T) {
			tasks, err := set.load()
			require.NoError(t, err)
			f := toolcorpus.Measure(tasks, search)
			t.Log(f)
			for _, m := range f.Misses {
				t.Log("miss:", m)
			}
			assert.GreaterOrEqual(t, f.Recall(1), set.recall, "recall at 5")
			assert.GreaterOrEqual(t, f.StepsCovered(), set.steps, "steps covered at 5")
			assert.LessOrEqual(t, f.Recall(0), f.Recall(1))
			assert.LessOrEqual(t, f.Recall(1), f.Recall(2))
		})
	}
}

// firstEntries keeps of entries the servers of the first corpus.
func firstEntries(entries map[string]entry) map[string]entry {
	out := map[string]entry{}
	for name, e := range entries {
		if slices.Contains(toolcorpus.FirstServers, name) {
			out[name] = e
		}
	}
	return out
}
