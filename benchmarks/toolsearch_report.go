package benchmarks

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
)

// AddToolSearch puts f into the report: its timed results become rows of
// [ScenarioToolSearch] and [ScenarioToolSearchHook], and [Report.Markdown]
// writes its sizes and recall as a section of their own.
func (r *Report) AddToolSearch(f ToolSearchFigures) {
	r.ToolSearch = &f
	r.Rows = append(r.Rows,
		Row{Scenario: ScenarioToolSearch, Result: f.Search},
		Row{Scenario: ScenarioToolSearch, Result: f.SearchLong},
		Row{Scenario: ScenarioToolSearch, Result: f.SearchBlob},
		Row{Scenario: ScenarioToolSearchHook, Result: f.OnRequest},
		Row{Scenario: ScenarioToolSearchHook, Result: f.Eager})
}

// toolSearchTargets are the goals of tool search: the first request shrinks
// by at least 85%, a search over 1,000 tools and OnRequest on a long
// conversation stay small, and the needed tool is among those loaded.
func (r *Report) toolSearchTargets() []Target {
	f := r.ToolSearch
	if f == nil {
		return nil
	}
	saved := 1 - float64(f.DeferredBytes)/float64(max(f.EagerBytes, 1))
	heldOut := float64(f.HeldOutFound) / float64(max(f.HeldOutAsked, 1))
	heldOutFirst := float64(f.HeldOutFirstFound) / float64(max(f.HeldOutAsked, 1))
	out := []Target{
		{
			Goal: fmt.Sprintf("first request's tool definitions (%d tools, %d servers), deferred: at least 85%% fewer bytes than eager", f.Tools, f.Servers),
			Got: fmt.Sprintf("%.1f%% fewer (%s vs %s; %d vs %d o200k_base tokens)", 100*saved,
				bytesStr(float64(f.DeferredBytes)), bytesStr(float64(f.EagerBytes)), f.DeferredTokens, f.EagerTokens),
			Met: saved >= 0.85,
		},
		{
			Goal: fmt.Sprintf("one search over %d tools: p50 under 200 µs", f.SearchTools),
			Got:  fmt.Sprintf("%s, %s allocs", Dur(f.Search.Latency.P50), num(f.Search.AllocsPerOp)),
			Met:  f.Search.Latency.P50 < 200*time.Microsecond,
		},
		{
			Goal: fmt.Sprintf("OnRequest with tool search on a conversation of %d messages: under 50 µs", ConversationMessages),
			Got:  fmt.Sprintf("p50 %s, %s allocs", Dur(f.OnRequest.Latency.P50), num(f.OnRequest.AllocsPerOp)),
			Met:  f.OnRequest.Latency.P50 < 50*time.Microsecond,
		},
		{
			Goal: fmt.Sprintf("recall of the needed tool at Results %d: at least 0.9", searchResults),
			Got:  fmt.Sprintf("%.3f over %d phrasings", f.Recall(), f.asked()),
			Met:  f.Recall() >= 0.9,
		},
		{
			Goal: fmt.Sprintf("the same over the %d tools of the first %d servers, on which the target was set: at least 0.9", f.FirstTools, len(toolcorpus.FirstServers)),
			Got:  fmt.Sprintf("%.3f (%d of %d)", float64(f.TunedFirstFound)/float64(max(f.asked(), 1)), f.TunedFirstFound, f.asked()),
			Met:  float64(f.TunedFirstFound)/float64(max(f.asked(), 1)) >= 0.9,
		},
		{
			Goal: "recall at 5 on the phrasings held out before tuning: at least 0.9",
			Got:  fmt.Sprintf("%.3f (%d of %d)", heldOut, f.HeldOutFound, f.HeldOutAsked),
			Met:  heldOut >= 0.9,
		},
		{
			Goal: fmt.Sprintf("the same over the %d tools of the first %d servers, on which the target was set: at least 0.9", f.FirstTools, len(toolcorpus.FirstServers)),
			Got:  fmt.Sprintf("%.3f (%d of %d)", heldOutFirst, f.HeldOutFirstFound, f.HeldOutAsked),
			Met:  heldOutFirst >= 0.9,
		},
	}
	if len(f.Sets) == len(TaskSets) {
		steps, late := f.Sets[2], f.Sets[3]
		out = append(out,
			Target{
				Goal: fmt.Sprintf("several-step tasks (%d, written before tuning): recall at 5 at least 0.8", steps.Tasks),
				Got:  fmt.Sprintf("%.3f", steps.Recall(1)),
				Met:  steps.Recall(1) >= 0.8,
			},
			Target{
				Goal: fmt.Sprintf("several-step tasks: steps covered at 5 at least 0.65 (%d steps)", steps.Steps),
				Got:  fmt.Sprintf("%.3f", steps.StepsCovered()),
				Met:  steps.StepsCovered() >= 0.65,
			},
			Target{
				Goal:     fmt.Sprintf("several-step tasks written after tuning (%d, %d steps)", late.Tasks, late.Steps),
				Got:      fmt.Sprintf("recall at 5 %.3f, steps covered at 5 %.3f", late.Recall(1), late.StepsCovered()),
				Reported: true,
			})
	}
	return append(out,
		Target{
			Goal: fmt.Sprintf("a search for a %d KB task of several steps over %d tools: p50 under 1 ms", LongTaskBytes>>10, f.SearchTools),
			Got:  fmt.Sprintf("%s, %s allocs", Dur(f.SearchLong.Latency.P50), num(f.SearchLong.AllocsPerOp)),
			Met:  f.SearchLong.Latency.P50 < time.Millisecond,
		},
		Target{
			Goal: fmt.Sprintf("a search for a %d KB paste over %d tools: p50 under 1 ms", BlobTaskBytes>>10, f.SearchTools),
			Got:  fmt.Sprintf("%s, %s allocs", Dur(f.SearchBlob.Latency.P50), num(f.SearchBlob.AllocsPerOp)),
			Met:  f.SearchBlob.Latency.P50 < time.Millisecond,
		})
}

// asked counts the task phrasings of f's recall.
func (f ToolSearchFigures) asked() int {
	n := 0
	for _, k := range f.Asked {
		n += k
	}
	return n
}

// Markdown writes f's sizes and recall by server as two tables.
func (f ToolSearchFigures) Markdown(w io.Writer) {
	fmt.Fprintf(w, "Tool search on real tool lists (%d tools over %d servers, `toolbox/testdata/tools`): the first request's definitions, "+
		"and the first OnRequest of a toolbox of %d tools (which builds the search index) took %s.\n\n",
		f.Tools, f.Servers, f.SearchTools, Dur(f.FirstRequest))
	fmt.Fprintf(w, "| first request | bytes | o200k_base tokens |\n|---|--:|--:|\n")
	fmt.Fprintf(w, "| %s | %d | %d |\n", SubjectEager, f.EagerBytes, f.EagerTokens)
	fmt.Fprintf(w, "| %s | %d | %d |\n\n", SubjectDeferred, f.DeferredBytes, f.DeferredTokens)
	servers := make([]string, 0, len(f.Asked))
	for s := range f.Asked {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	fmt.Fprintf(w, "| recall at Results %d | found | asked | recall |\n|---|--:|--:|--:|\n", searchResults)
	for _, s := range servers {
		fmt.Fprintf(w, "| %s | %d | %d | %.2f |\n", s, f.Found[s], f.Asked[s], float64(f.Found[s])/float64(f.Asked[s]))
	}
	fmt.Fprintf(w, "| overall | %d | %d | %.3f |\n", f.asked()-f.missed(), f.asked(), f.Recall())
	fmt.Fprintf(w, "| held out (written after tuning) | %d | %d | %.3f |\n", f.HeldOutFound, f.HeldOutAsked,
		float64(f.HeldOutFound)/float64(max(f.HeldOutAsked, 1)))
	fmt.Fprintf(w, "| held out, over the %d tools of the first %d servers | %d | %d | %.3f |\n", f.FirstTools, len(toolcorpus.FirstServers),
		f.HeldOutFirstFound, f.HeldOutAsked, float64(f.HeldOutFirstFound)/float64(max(f.HeldOutAsked, 1)))
	if len(f.Sets) == 0 {
		return
	}
	fmt.Fprintf(w, "\nBy set of tasks (a task is found at k when one of the tools it needs is among the k loaded; a step is covered when one of its tools is among the 5 loaded):\n\n")
	fmt.Fprintf(w, "| set | tasks | steps | recall at 3 | at 5 | at 10 | steps covered at 5 |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for i, s := range f.Sets {
		fmt.Fprintf(w, "| %s | %d | %d | %.3f | %.3f | %.3f | %.3f |\n", TaskSets[i], s.Tasks, s.Steps, s.Recall(0), s.Recall(1), s.Recall(2), s.StepsCovered())
	}
}

// missed counts the phrasings whose tool was not loaded.
func (f ToolSearchFigures) missed() int {
	n := 0
	for s, k := range f.Asked {
		n += k - f.Found[s]
	}
	return n
}
