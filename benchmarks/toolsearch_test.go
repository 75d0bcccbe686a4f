package benchmarks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// TestToolSearchFigures measures tool search once, briefly, prints the
// figures side by side and checks the ones that are not timings.
func TestToolSearchFigures(t *testing.T) {
	f, err := benchmarks.MeasureToolSearch(context.Background(), 2, 20)
	if err != nil {
		t.Fatal(err)
	}
	rep := &benchmarks.Report{}
	rep.AddToolSearch(f)
	var md strings.Builder
	rep.Markdown(&md)
	t.Log("\n" + md.String())
	for _, want := range []string{benchmarks.SubjectSearch, benchmarks.SubjectOnReq, benchmarks.SubjectEagerHost,
		"| " + benchmarks.SubjectDeferred + " | " + fmt.Sprint(f.DeferredBytes) + " |", "at least 85% fewer bytes than eager"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
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
	if r := f.Recall(); r < 0.86 {
		t.Errorf("recall %.3f", r)
	}
	// Over the first corpus the tuned phrasings found 105 of 116 (0.905)
	// before the several-step work; they must not fall below it.
	if f.TunedFirstFound < 105 {
		t.Errorf("tuned phrasings over the first corpus: %d of 116", f.TunedFirstFound)
	}
	if f.FirstTools != 189 || f.HeldOutFirstFound < 27 {
		t.Errorf("held out over the first corpus: %d of %d over %d tools", f.HeldOutFirstFound, f.HeldOutAsked, f.FirstTools)
	}
	if len(f.Sets) != len(benchmarks.TaskSets) {
		t.Fatalf("%d sets scored, want %d", len(f.Sets), len(benchmarks.TaskSets))
	}
	if s := f.Sets[2]; s.Tasks < 80 || s.Recall(1) < 0.8 || s.StepsCovered() < 0.65 {
		t.Errorf("several-step tasks: %s", s)
	}
	for _, want := range []string{benchmarks.SubjectSearchLong, benchmarks.SubjectSearchBlob, "steps covered at 5", benchmarks.TaskSets[3], "held out, over the 189 tools of the first 11 servers"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
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
	steps, err := toolcorpus.StepTasks()
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("search/%d_tools", len(tb.Tools())), func(b *testing.B) { latency(b, benchmarks.SearchSubject(tb, tasks)) })
	b.Run("search/2KB_task", func(b *testing.B) {
		latency(b, benchmarks.QuerySubject(tb, "2 KB task", []string{benchmarks.LongTask(steps)}))
	})
	b.Run("search/20KB_blob", func(b *testing.B) {
		latency(b, benchmarks.QuerySubject(tb, "20 KB blob", []string{benchmarks.BlobTask()}))
	})
	// The same searches through Toolbox.Search: the ranking without the
	// decoding of the call's JSON and the rendering of its result.
	for name, q := range map[string]string{"2KB_task": benchmarks.LongTask(steps), "20KB_blob": benchmarks.BlobTask()} {
		b.Run("search_direct/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(tb.Search(q)) == 0 {
					b.Fatal("nothing found")
				}
			}
		})
	}
	b.Run("onrequest/200_messages", func(b *testing.B) { latency(b, benchmarks.OnRequestSubject(tb, conv)) })
	b.Run("onrequest/eager_host", func(b *testing.B) { latency(b, benchmarks.EagerHostSubject(tb, conv)) })
	// With tool search on, a chunk with no call of a known tool still
	// passes through without an allocation.
	b.Run("pass_through", func(b *testing.B) {
		chunk := &host.Chunk{Blocks: []host.Block{host.Text{Text: "calling"}, host.ToolCall{ID: "c1", Name: "not_a_tool", Arguments: []byte(`{}`)}}}
		b.ReportAllocs()
		for b.Loop() {
			_ = tb.OnStreamChunk(ctx, chunk)
		}
	})
}
