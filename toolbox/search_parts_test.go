package toolbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestSearchPartsOnTheirOwn measures what each part of step search buys
// on its own, each against the search without it, on every set: run it
// with -v to read the figures (go test -run TestSearchPartsOnTheirOwn -v
// ./toolbox/). It checks that none of the parts a search uses makes the
// several-step tasks worse than the plain ranking (RRF, which is not
// used, does: 0.527 of the steps covered against 0.577).
func TestSearchPartsOnTheirOwn(t *testing.T) {
	search := corpusSearch(t)
	sets := map[string][]toolcorpus.StepTask{}
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	heldOut, err := toolcorpus.HeldOutTasks()
	require.NoError(t, err)
	steps, err := toolcorpus.StepTasks()
	require.NoError(t, err)
	late, err := toolcorpus.LateStepTasks()
	require.NoError(t, err)
	sets["phrasings"], sets["held-out phrasings"], sets["several-step"] = toolcorpus.AsSteps(tuned), toolcorpus.AsSteps(heldOut), steps
	sets["several-step, late"] = late
	parts := []struct {
		name         string
		noise, split bool
		fusion       int
		context, prf bool
		all          bool // feedback for one-step queries too
	}{
		{"plain ranking", false, false, toolbox.FuseRoundRobin, false, false, false},
		{"noise only", true, false, toolbox.FuseRoundRobin, false, false, false},
		{"steps only, round robin", false, true, toolbox.FuseRoundRobin, false, false, false},
		{"steps only, RRF", false, true, toolbox.FuseRRF, false, false, false},
		{"steps only, round robin, servers named", false, true, toolbox.FuseRoundRobin, true, false, false},
		{"steps only, round robin, feedback", false, true, toolbox.FuseRoundRobin, false, true, false},
		{"noise + steps, RRF, servers named", true, true, toolbox.FuseRRF, true, false, false},
		{"noise + steps, round robin, servers named", true, true, toolbox.FuseRoundRobin, true, false, false},
		{"all of it, feedback for every query too", true, true, toolbox.FuseRoundRobin, true, true, true},
		{"all of it (the default)", true, true, toolbox.FuseRoundRobin, true, true, false},
	}
	var plain toolcorpus.Figures
	for _, p := range parts {
		restore := toolbox.SetStepKnobs(p.noise, p.split, p.fusion, p.context, p.prf)
		restoreAll := func() {}
		if p.all {
			k := toolbox.GetRankKnobs()
			k.FeedbackOne = k.Feedback
			restoreAll = toolbox.SetRankKnobs(k)
		}
		for _, name := range []string{"phrasings", "held-out phrasings", "several-step", "several-step, late"} {
			f := toolcorpus.Measure(sets[name], search)
			t.Logf("%-42s %-20s %s", p.name, name, f)
			if name == "several-step" {
				switch {
				case p.name == "plain ranking":
					plain = f
				case p.fusion == toolbox.FuseRRF:
				default:
					require.GreaterOrEqual(t, f.Covered, plain.Covered, "%s covers fewer steps than the plain ranking", p.name)
				}
			}
		}
		restoreAll()
		restore()
	}
}
