package benchmarks_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/toolcorpus"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestToolSearchFigures measures tool search once, briefly, prints the
// figures side by side and checks the ones that are not timings.
func TestToolSearchFigures(t *testing.T) {
	f, err := benchmarks.MeasureToolSearch(context.Background(), 2, 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + ToolSearchTable(f))
	if f.Tools < 150 || f.Servers < 8 {
		t.Errorf("corpus of %d tools over %d servers, want at least 150 over 8", f.Tools, f.Servers)
	}
	if f.DeferredBytes*100 > f.EagerBytes*15 {
		t.Errorf("deferred %d bytes against %d eager: less than 85%% fewer", f.DeferredBytes, f.EagerBytes)
	}
	if f.DeferredTokens >= f.EagerTokens || f.DeferredTokens == 0 {
		t.Errorf("tokens: %d deferred, %d eager", f.DeferredTokens, f.EagerTokens)
	}
	if f.SearchTools < 1000 {
		t.Errorf("the search toolbox has %d tools, want at least 1,000", f.SearchTools)
	}
	if r := f.Recall(); r < 0.9 {
		t.Errorf("recall %.3f", r)
	}
}

// ToolSearchTable renders f as rows: scenario, subject, figure.
func ToolSearchTable(f benchmarks.ToolSearchFigures) string {
	var b strings.Builder
	pct := 100 * (1 - float64(f.DeferredBytes)/float64(f.EagerBytes))
	fmt.Fprintf(&b, "%s (%d tools, %d servers)\n", benchmarks.ScenarioToolSearchRequest, f.Tools, f.Servers)
	fmt.Fprintf(&b, "  %-36s %8d bytes %7d tokens\n", benchmarks.SubjectEager, f.EagerBytes, f.EagerTokens)
	fmt.Fprintf(&b, "  %-36s %8d bytes %7d tokens  (%.1f%% fewer bytes, %.1f%% fewer tokens)\n", benchmarks.SubjectDeferred,
		f.DeferredBytes, f.DeferredTokens, pct, 100*(1-float64(f.DeferredTokens)/float64(f.EagerTokens)))
	fmt.Fprintf(&b, "%s over %d tools (first OnRequest, which builds the index: %s)\n", benchmarks.ScenarioToolSearch, f.SearchTools, benchmarks.Dur(f.FirstRequest))
	row := func(r benchmarks.Result) {
		fmt.Fprintf(&b, "  %-36s p50 %-9s p99 %-9s %6.0f allocs %8.0f B/op\n", r.Subject, benchmarks.Dur(r.Latency.P50), benchmarks.Dur(r.Latency.P99), r.AllocsPerOp, r.BytesPerOp)
	}
	row(f.Search)
	fmt.Fprintf(&b, "%s\n", benchmarks.ScenarioToolSearchHook)
	row(f.OnRequest)
	row(f.Eager)
	var servers []string
	for s := range f.Asked {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	fmt.Fprintf(&b, "recall at Results %d\n", toolbox.DefaultToolSearchResults)
	for _, s := range servers {
		fmt.Fprintf(&b, "  %-12s %2d/%-2d %.2f\n", s, f.Found[s], f.Asked[s], float64(f.Found[s])/float64(f.Asked[s]))
	}
	fmt.Fprintf(&b, "  %-12s %.3f\n", "overall", f.Recall())
	fmt.Fprintf(&b, "  %-12s %d/%d %.3f (phrasings written after tuning)\n", "held-out", f.HeldOutFound, f.HeldOutAsked,
		float64(f.HeldOutFound)/float64(max(f.HeldOutAsked, 1)))
	return b.String()
}

func BenchmarkToolSearch(b *testing.B) {
	ctx := context.Background()
	tb, _, stop, err := benchmarks.CorpusToolbox(ctx, benchmarks.SearchCopies, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	tasks, err := toolcorpus.Tasks()
	if err != nil {
		b.Fatal(err)
	}
	conv := benchmarks.Conversation(tb, tasks, benchmarks.ConversationMessages)
	b.Run(fmt.Sprintf("search/%d_tools", len(tb.Tools())), func(b *testing.B) { latency(b, benchmarks.SearchSubject(tb, tasks)) })
	b.Run("onrequest/200_messages", func(b *testing.B) { latency(b, benchmarks.OnRequestSubject(tb, conv)) })
	b.Run("onrequest/eager_host", func(b *testing.B) { latency(b, benchmarks.EagerHostSubject(tb, conv)) })
	// With tool search on, a chunk with no call of a known tool still
	// passes through without an allocation.
	b.Run("pass_through", func(b *testing.B) {
		chunk := &plugin.Chunk{Blocks: []plugin.Block{plugin.Text{Text: "calling"}, plugin.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}}}
		b.ReportAllocs()
		for b.Loop() {
			_ = tb.OnStreamChunk(ctx, chunk)
		}
	})
}
