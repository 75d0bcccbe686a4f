package benchmarks

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/cuca-go/mcpconnector/toolbox"
)

// AddToolSearch puts f into the report: its timed results become rows of
// [ScenarioToolSearch] and [ScenarioToolSearchHook], and [Report.Markdown]
// writes its sizes and recall as a section of their own.
func (r *Report) AddToolSearch(f ToolSearchFigures) {
	r.ToolSearch = &f
	r.Rows = append(r.Rows,
		Row{Scenario: ScenarioToolSearch, Result: f.Search},
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
	return []Target{
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
			Goal: fmt.Sprintf("recall of the needed tool at Results %d: at least 0.9", toolbox.DefaultToolSearchResults),
			Got:  fmt.Sprintf("%.3f over %d phrasings", f.Recall(), f.asked()),
			Met:  f.Recall() >= 0.9,
		},
		{
			Goal:     "recall on phrasings written after the search was last tuned",
			Got:      fmt.Sprintf("%.3f (%d of %d)", heldOut, f.HeldOutFound, f.HeldOutAsked),
			Reported: true,
		},
	}
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
	fmt.Fprintf(w, "| recall at Results %d | found | asked | recall |\n|---|--:|--:|--:|\n", toolbox.DefaultToolSearchResults)
	for _, s := range servers {
		fmt.Fprintf(w, "| %s | %d | %d | %.2f |\n", s, f.Found[s], f.Asked[s], float64(f.Found[s])/float64(f.Asked[s]))
	}
	fmt.Fprintf(w, "| overall | %d | %d | %.3f |\n", f.asked()-f.missed(), f.asked(), f.Recall())
	fmt.Fprintf(w, "| held out (written after tuning) | %d | %d | %.3f |\n", f.HeldOutFound, f.HeldOutAsked,
		float64(f.HeldOutFound)/float64(max(f.HeldOutAsked, 1)))
}

// missed counts the phrasings whose tool was not loaded.
func (f ToolSearchFigures) missed() int {
	n := 0
	for s, k := range f.Asked {
		n += k - f.Found[s]
	}
	return n
}
