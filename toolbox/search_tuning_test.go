package toolbox_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// searchOver returns what a search loads at 3, 5 and 10 over entries,
// with toolboxes opened now (their index built with the knobs as they
// are).
func searchOver(t *testing.T, entries map[string]entry) func(query string, k int) []string {
	t.Helper()
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

// TestRankingTuning scores rankings with other weights on the sets the
// search is tuned with: the tuned phrasings and the several-step tasks
// written before tuning. TOOLSEARCH_GRID holds a JSON list of
// toolbox.RankKnobs to score (go test -run TestRankingTuning -v
// ./toolbox/); without it the test is skipped. The held-out sets are not
// read here.
func TestRankingTuning(t *testing.T) {
	grid := os.Getenv("TOOLSEARCH_GRID")
	if grid == "" {
		t.Skip("TOOLSEARCH_GRID is not set")
	}
	var knobs []toolbox.RankKnobs
	require.NoError(t, json.Unmarshal([]byte(grid), &knobs))
	entries, _ := corpusEntries(t)
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	steps, err := toolcorpus.StepTasks()
	require.NoError(t, err)
	for _, k := range knobs {
		restore := toolbox.SetRankKnobs(k)
		search := searchOver(t, entries)
		one := toolcorpus.Measure(toolcorpus.AsSteps(tuned), search)
		several := toolcorpus.Measure(steps, search)
		restore()
		t.Logf("%+v\n  tuned: %s\n  steps: %s", k, one, several)
		if os.Getenv("TOOLSEARCH_MISSES") != "" {
			for _, m := range one.Misses {
				t.Log("miss:", m)
			}
		}
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

// TestRankingPartsOnTheirOwn measures what each part of the ranking buys
// on its own, each against the ranking before it (the first line), and
// together, on every set over the 582 tools and on the held-out
// phrasings over the 189 tools of the first corpus too: run it with -v to
// read the figures (TOOLSEARCH_PARTS=1 go test -run
// TestRankingPartsOnTheirOwn -v ./toolbox/; it takes a minute, so it is
// skipped without TOOLSEARCH_PARTS, and TestSearchFiguresOnTaskSets holds
// the default's figures to floors). It checks that the default, all of
// them together, finds more of the tuned phrasings than the ranking
// before and keeps the several-step tasks at their targets.
func TestRankingPartsOnTheirOwn(t *testing.T) {
	if os.Getenv("TOOLSEARCH_PARTS") == "" {
		t.Skip("TOOLSEARCH_PARTS is not set")
	}
	entries, _ := corpusEntries(t)
	first := firstEntries(entries)
	require.Len(t, first, len(toolcorpus.FirstServers))
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	heldOut, err := toolcorpus.HeldOutTasks()
	require.NoError(t, err)
	steps, err := toolcorpus.StepTasks()
	require.NoError(t, err)
	late, err := toolcorpus.LateStepTasks()
	require.NoError(t, err)
	def := toolbox.GetRankKnobs()
	// before is the ranking as it was before these parts.
	before := def
	before.DescFirst, before.DescRest, before.Server, before.Instructions = 1, 1, 0.5, 0
	before.ServerBoost, before.FeedbackOne, before.Related, before.Domain = 1.5, 0, 0, false
	before.Coord, before.B, before.BM25F = 1, 0.75, false
	with := func(base toolbox.RankKnobs, change func(*toolbox.RankKnobs)) toolbox.RankKnobs {
		change(&base)
		return base
	}
	parts := []struct {
		name  string
		knobs toolbox.RankKnobs
	}{
		{"before", before},
		{"BM25F: fields' lengths apart", with(before, func(k *toolbox.RankKnobs) { k.BM25F = true })},
		{"first sentence 1, rest 0.5", with(before, func(k *toolbox.RankKnobs) { k.DescRest = 0.5 })},
		{"server's name 0.3 (was 0.5)", with(before, func(k *toolbox.RankKnobs) { k.Server = 0.3 })},
		{"instructions 0.3", with(before, func(k *toolbox.RankKnobs) { k.Instructions = 0.3 })},
		{"server named: x3 (was x1.5)", with(before, func(k *toolbox.RankKnobs) { k.ServerBoost = 3 })},
		{"server's domain words name it", with(before, func(k *toolbox.RankKnobs) { k.Domain = true })},
		{"keywords matched: sqrt (was n)", with(before, func(k *toolbox.RankKnobs) { k.Coord = 0.5 })},
		{"co-occurrence 0.2", with(before, func(k *toolbox.RankKnobs) { k.Related = 0.2 })},
		{"feedback on one step 0.1", with(before, func(k *toolbox.RankKnobs) { k.FeedbackOne = 0.1 })},
		{"together (the default)", def},
		{"together + first sentence 1, rest 0.5", with(def, func(k *toolbox.RankKnobs) { k.DescRest = 0.5 })},
		{"together + instructions 0.3", with(def, func(k *toolbox.RankKnobs) { k.Instructions = 0.3 })},
		{"together + domain words", with(def, func(k *toolbox.RankKnobs) { k.Domain = true })},
		{"together + co-occurrence 0.2", with(def, func(k *toolbox.RankKnobs) { k.Related = 0.2 })},
		{"together + feedback on one step 0.1", with(def, func(k *toolbox.RankKnobs) { k.FeedbackOne = 0.1 })},
	}
	figures := map[string]toolcorpus.Figures{}
	for _, p := range parts {
		restore := toolbox.SetRankKnobs(p.knobs)
		all, old := searchOver(t, entries), searchOver(t, first)
		for _, set := range []struct {
			name   string
			tasks  []toolcorpus.StepTask
			search func(string, int) []string
		}{
			{"tuned", toolcorpus.AsSteps(tuned), all},
			{"held-out", toolcorpus.AsSteps(heldOut), all},
			{"held-out, 189 tools", toolcorpus.AsSteps(heldOut), old},
			{"several-step", steps, all},
			{"several-step, late", late, all},
		} {
			f := toolcorpus.Measure(set.tasks, set.search)
			figures[p.name+"/"+set.name] = f
			t.Logf("%-38s %-20s %s", p.name, set.name, f)
		}
		restore()
	}
	assert.Greater(t, figures["together (the default)/tuned"].Recall(1), figures["before/tuned"].Recall(1))
	assert.GreaterOrEqual(t, figures["together (the default)/several-step"].Recall(1), 0.80)
	assert.GreaterOrEqual(t, figures["together (the default)/several-step"].StepsCovered(), 0.65)
}
