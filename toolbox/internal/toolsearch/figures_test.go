package toolsearch

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
)

// TestFiguresOnTaskSets scores the search on every set of tasks over the
// corpus: recall at 3, 5 and 10 (a task is found when a tool it needs is
// loaded) and the share of steps covered at 5, each held to a floor just
// under what it measures, so that a change that makes one worse fails
// (go test -run TestFiguresOnTaskSets -v ./toolbox/internal/toolsearch/).
// toolbox's TestSearchFiguresOnTaskSets measures the same through a
// toolbox, and must read the same.
func TestFiguresOnTaskSets(t *testing.T) {
	search := loadCorpus(t, loadAll(t), 1).search(Defaults)
	s := loadSets(t)
	for _, set := range []struct {
		name          string
		tasks         []toolcorpus.StepTask
		recall, steps float64 // floors of recall at 5 and steps covered at 5
	}{
		// Issue 32's rounds: 102 of 116 (was 100), 26 of 32 (as it
		// was), 88 of 93 (was 87) with 178 of 260 steps (was 177); then,
		// with prefixes, asking and names covered, 105, 28, 89 and 181.
		{"phrasings", s.tuned, 105.0 / 116, 105.0 / 116},
		{"held-out phrasings", s.heldOut, 28.0 / 32, 28.0 / 32},
		{"several-step", s.steps, 89.0 / 93, 181.0 / 260},
		// Written after the tuning ended: reported, with no floor fitted
		// to it.
		{"several-step, written after tuning", s.late, 0, 0},
	} {
		t.Run(set.name, func(t *testing.T) {
			f := toolcorpus.Measure(set.tasks, search)
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

// TestPartsOnTheirOwn measures what each part of step search buys on its
// own, each against the search without it, on every set: run it with -v
// to read the figures. It checks that none of the parts a search uses
// makes the several-step tasks worse than the plain ranking (RRF, which
// is not used, does).
func TestPartsOnTheirOwn(t *testing.T) {
	c := loadCorpus(t, loadAll(t), 1)
	s := loadSets(t)
	parts := []struct {
		name  string
		steps StepKnobs
		all   bool // feedback for one-step queries too
	}{
		{"plain ranking", StepKnobs{}, false},
		{"noise only", StepKnobs{Noise: true, Code: true}, false},
		{"steps only, round robin", StepKnobs{Split: true}, false},
		{"steps only, RRF", StepKnobs{Split: true, Fusion: FuseRRF}, false},
		{"steps only, round robin, servers named", StepKnobs{Split: true, Context: true}, false},
		{"steps only, round robin, feedback", StepKnobs{Split: true, Feedback: true}, false},
		{"noise + steps, RRF, servers named", StepKnobs{Noise: true, Code: true, Split: true, Fusion: FuseRRF, Context: true}, false},
		{"noise + steps, round robin, servers named", StepKnobs{Noise: true, Code: true, Split: true, Context: true}, false},
		{"all of it, feedback for every query too", Defaults.Steps, true},
		{"all of it (the default)", Defaults.Steps, false},
	}
	var plain toolcorpus.Figures
	for _, p := range parts {
		k := Defaults
		k.Steps = p.steps
		if p.all {
			k.FeedbackOne = k.Feedback
		}
		search := c.search(k)
		for _, set := range []struct {
			name  string
			tasks []toolcorpus.StepTask
		}{{"phrasings", s.tuned}, {"held-out phrasings", s.heldOut}, {"several-step", s.steps}, {"several-step, late", s.late}} {
			f := toolcorpus.Measure(set.tasks, search)
			t.Logf("%-42s %-20s %s", p.name, set.name, f)
			if set.name != "several-step" {
				continue
			}
			switch {
			case p.name == "plain ranking":
				plain = f
			case p.steps.Fusion == FuseRRF:
			default:
				require.GreaterOrEqual(t, f.Covered, plain.Covered, "%s covers fewer steps than the plain ranking", p.name)
			}
		}
	}
}

// TestRankingTuning scores rankings with other knobs on the sets the
// search is tuned with: the tuned phrasings and the several-step tasks
// written before tuning. TOOLSEARCH_GRID holds a JSON list of Knobs to
// score, each over Defaults (TOOLSEARCH_GRID='[{"ServerBoost":2}]' go test
// -run TestRankingTuning -v ./toolbox/internal/toolsearch/); without it the
// test is skipped. The held-out sets are not read here.
func TestRankingTuning(t *testing.T) {
	grid := os.Getenv("TOOLSEARCH_GRID")
	if grid == "" {
		t.Skip("TOOLSEARCH_GRID is not set")
	}
	var raw []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(grid), &raw))
	c := loadCorpus(t, loadAll(t), 1)
	s := loadSets(t)
	for _, r := range raw {
		k := Defaults
		require.NoError(t, json.Unmarshal(r, &k))
		search := c.search(k)
		one := toolcorpus.Measure(s.tuned, search)
		several := toolcorpus.Measure(s.steps, search)
		t.Logf("%s\n  tuned: %s\n  steps: %s", r, one, several)
		if os.Getenv("TOOLSEARCH_MISSES") != "" {
			for _, m := range append(one.Misses, several.Misses...) {
				t.Log("miss:", m)
			}
		}
	}
}

// TestRankingPartsOnTheirOwn measures what each part of the ranking buys
// on its own, each against the ranking before it (the first line), and
// together, on every set over the 582 tools and on the held-out
// phrasings over the 189 tools of the first corpus too: run it with -v to
// read the figures (TOOLSEARCH_PARTS=1 go test -run
// TestRankingPartsOnTheirOwn -v ./toolbox/internal/toolsearch/; it reads the
// held-out sets, so it is not run by default, and TestFiguresOnTaskSets
// holds the default's figures to floors). It checks that the default, all
// of them together, finds more of the tuned phrasings than the ranking
// before and keeps the several-step tasks at their targets.
func TestRankingPartsOnTheirOwn(t *testing.T) {
	if os.Getenv("TOOLSEARCH_PARTS") == "" {
		t.Skip("TOOLSEARCH_PARTS is not set")
	}
	servers := loadAll(t)
	all, first := loadCorpus(t, servers, 1), loadCorpus(t, toolcorpus.First(servers), 1)
	s := loadSets(t)
	before := Defaults
	before.DescFirst, before.DescRest, before.Server, before.Instructions = 1, 1, 0.5, 0
	before.ServerBoost, before.FeedbackOne, before.Related, before.Domain = 1.5, 0, 0, false
	before.Coord, before.B, before.BM25F = 1, 0.75, false
	before.Prefix, before.Asking, before.NameCover = 0, 0, 0
	with := func(base Knobs, change func(*Knobs)) Knobs {
		change(&base)
		return base
	}
	parts := []struct {
		name  string
		knobs Knobs
	}{
		{"before", before},
		{"BM25F: fields' lengths apart", with(before, func(k *Knobs) { k.BM25F = true })},
		{"first sentence 1, rest 0.5", with(before, func(k *Knobs) { k.DescRest = 0.5 })},
		{"server's name 0.3 (was 0.5)", with(before, func(k *Knobs) { k.Server = 0.3 })},
		{"instructions 0.3", with(before, func(k *Knobs) { k.Instructions = 0.3 })},
		{"server named: x3 (was x1.5)", with(before, func(k *Knobs) { k.ServerBoost = 3 })},
		{"server's domain words name it", with(before, func(k *Knobs) { k.Domain = true })},
		{"keywords matched: sqrt (was n)", with(before, func(k *Knobs) { k.Coord = 0.5 })},
		{"co-occurrence 0.2", with(before, func(k *Knobs) { k.Related = 0.2 })},
		{"feedback on one step 0.1", with(before, func(k *Knobs) { k.FeedbackOne = 0.1 })},
		{"prefixes 0.2", with(before, func(k *Knobs) { k.Prefix = 0.2 })},
		{"asking: changing tools x0.6", with(before, func(k *Knobs) { k.Asking = 0.6 })},
		{"name covered: x(1 + 0.15 share)", with(before, func(k *Knobs) { k.NameCover = 0.15 })},
		{"round 2 without prefixes", with(Defaults, func(k *Knobs) { k.Prefix = 0 })},
		{"round 2 without asking", with(Defaults, func(k *Knobs) { k.Asking = 0 })},
		{"round 2 without name covered", with(Defaults, func(k *Knobs) { k.NameCover = 0 })},
		{"round 2 without all three", with(Defaults, func(k *Knobs) { k.Prefix, k.Asking, k.NameCover = 0, 0, 0 })},
		{"together (the default)", Defaults},
	}
	figures := map[string]toolcorpus.Figures{}
	for _, p := range parts {
		onAll, onFirst := all.search(p.knobs), first.search(p.knobs)
		for _, set := range []struct {
			name   string
			tasks  []toolcorpus.StepTask
			search func(string, int) []string
		}{
			{"tuned", s.tuned, onAll},
			{"held-out", s.heldOut, onAll},
			{"held-out, 189 tools", s.heldOut, onFirst},
			{"several-step", s.steps, onAll},
			{"several-step, late", s.late, onAll},
		} {
			f := toolcorpus.Measure(set.tasks, set.search)
			figures[p.name+"/"+set.name] = f
			t.Logf("%-38s %-20s %s", p.name, set.name, f)
		}
	}
	assert.Greater(t, figures["together (the default)/tuned"].Recall(1), figures["before/tuned"].Recall(1))
	assert.GreaterOrEqual(t, figures["together (the default)/several-step"].Recall(1), 0.80)
	assert.GreaterOrEqual(t, figures["together (the default)/several-step"].StepsCovered(), 0.65)
}

// TestOneStepQueriesRankAsWithoutSteps checks that splitting never
// changes a query of one step: each one-tool phrasing, and long queries
// of one step, load the same tools in the same order with the step
// machinery (noise reduction, splitting, fusion, the task's servers,
// feedback on steps) on and off.
func TestOneStepQueriesRankAsWithoutSteps(t *testing.T) {
	queries := []string{
		// Ten keywords and more, but one step: nothing splits them.
		"why does the landing page of our shop take so long to show its product images on slow phones",
		"find the function that parses the command line flags of the kubernetes scheduler in its codebase",
		"which of our open pull requests on the payments service still wait for a review from the platform team",
	}
	for _, q := range queries {
		require.Len(t, splitSteps(reduceNoise(q, true)), 1, "%q is one step", q)
	}
	s := loadSets(t)
	for _, task := range append(s.tuned, s.heldOut...) {
		queries = append(queries, task.Task)
	}
	c := loadCorpus(t, loadAll(t), 1)
	withSteps := c.search(Defaults)
	plain := Defaults
	plain.Steps = StepKnobs{}
	without := c.search(plain)
	for _, q := range queries {
		want := withSteps(q, 5)
		require.NotEmpty(t, want, "query %q", q)
		assert.Equal(t, want, without(q, 5), "query %q", q)
	}
}

// TestSearchOfAPastedBlob searches a task with 20 KB pasted in the middle:
// the steps written around it are found.
func TestSearchOfAPastedBlob(t *testing.T) {
	search := loadCorpus(t, loadAll(t), 1).search(Defaults)
	loaded := search(blobTask(), 5)
	assert.Contains(t, loaded, "github__search_issues")
	assert.Contains(t, loaded, "github__add_issue_comment")
}

// blobTask is a task of two steps with 20 KB of an image and a log pasted
// between them.
func blobTask() string {
	var b strings.Builder
	b.WriteString("the upload fails with the screenshot below. Search the github issues for 'upload fails on safari'\n\ndata:image/png;base64,")
	for b.Len() < 10<<10 {
		b.WriteString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk")
	}
	b.WriteString("\n\n")
	for i := 0; b.Len() < 20<<10; i++ {
		fmt.Fprintf(&b, "2026-12-02T14:%02d:%02dZ req=%016x status=500 bytes=%d\n", i/60%60, i%60, i*7919, i*31)
	}
	b.WriteString("\nthen add a comment to the issue with this log")
	return b.String()
}
