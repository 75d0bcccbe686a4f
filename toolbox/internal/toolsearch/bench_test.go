package toolsearch

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchCopies is how many copies of the corpus the benchmarks index, as
// the benchmark report's search scenario does: 2 × 582 = 1,164 tools.
const benchCopies = 2

// longTask is a 2 KB message of several tasks: the several-step tasks
// without pasted content, one after the other, cut at 2 KB (as the
// benchmark report's LongTask).
func longTask(tb testing.TB) string {
	var b strings.Builder
	for _, t := range loadSets(tb).steps {
		if b.Len() >= 2<<10 {
			break
		}
		if len(t.Task) < 400 && !strings.Contains(t.Task, "\n\n") {
			b.WriteString(t.Task)
			b.WriteString("\n")
		}
	}
	return b.String()[:2<<10]
}

// BenchmarkSearch ranks over 1,164 tools: a short phrasing, a 2 KB task
// of several steps and a 20 KB paste (go test -run '^$' -bench
// BenchmarkSearch ./toolbox/internal/toolsearch/).
func BenchmarkSearch(b *testing.B) {
	idx := NewIndex(loadCorpus(b, loadAll(b), benchCopies).docs, Defaults)
	for _, c := range []struct{ name, query string }{
		{"short", "take a screenshot of the page"},
		{"task 2KB", longTask(b)},
		{"paste 20KB", blobTask()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(idx.Search(c.query, 5+moreMatches)) == 0 {
					b.Fatal("nothing found")
				}
			}
		})
	}
}

// BenchmarkNewIndex indexes 1,164 tools whose keywords are read
// (go test -run '^$' -bench BenchmarkNewIndex ./toolbox/internal/toolsearch/).
func BenchmarkNewIndex(b *testing.B) {
	docs := loadCorpus(b, loadAll(b), benchCopies).docs
	b.ReportAllocs()
	for b.Loop() {
		NewIndex(docs, Defaults)
	}
}

// BenchmarkWords reads the keywords of the corpus's 582 tools (go test
// -run '^$' -bench BenchmarkWords ./toolbox/internal/toolsearch/).
func BenchmarkWords(b *testing.B) {
	var tools []Tool
	for _, s := range loadAll(b) {
		for _, tl := range s.Tools {
			schema, err := json.Marshal(tl.InputSchema)
			if err != nil {
				b.Fatal(err)
			}
			tools = append(tools, Tool{Name: tl.Name, Title: tl.Title, Description: tl.Description, InputSchema: schema})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, tl := range tools {
			Words(tl)
		}
	}
}
