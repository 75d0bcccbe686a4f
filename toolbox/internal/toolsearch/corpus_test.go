package toolsearch

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
)

// corpus is the published servers' tools as a toolbox's table holds them:
// by exposed name ("<server>__<tool>"), each with its document.
type corpus struct {
	names []string
	docs  []Doc
}

// loadCorpus reads the tool lists of servers, copies times over, each copy
// under its own server names ("<server><k>") when there are several.
func loadCorpus(t testing.TB, servers []toolcorpus.Server, copies int) corpus {
	t.Helper()
	type entry struct {
		name string
		doc  Doc
	}
	var all []entry
	for k := range copies {
		for _, s := range servers {
			server := s.Name
			if copies > 1 {
				server = fmt.Sprintf("%s%d", s.Name, k)
			}
			for _, tl := range s.Tools {
				schema, err := json.Marshal(tl.InputSchema)
				require.NoError(t, err)
				title := tl.Title
				if title == "" && tl.Annotations != nil {
					title = tl.Annotations.Title
				}
				words := Words(Tool{Name: tl.Name, Title: title, Description: tl.Description, InputSchema: schema})
				all = append(all, entry{exposed(server + "__" + tl.Name), Doc{Server: server, Prefix: server + "__", Instructions: s.Instructions, Words: words}})
			}
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var c corpus
	for _, e := range all {
		c.names = append(c.names, e.name)
		c.docs = append(c.docs, e.doc)
	}
	return c
}

// exposed is name as a toolbox exposes it: each byte outside
// [A-Za-z0-9_-] an underscore (the corpus has no name long enough to be
// cut).
func exposed(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, name)
}

// search returns what a search with k loads over c, as a toolbox
// loading k tools a search does.
func (c corpus) search(k Knobs) func(query string, n int) []string {
	idx := NewIndex(c.docs, k)
	return func(query string, n int) []string {
		found := idx.Search(query, n+moreMatches)
		names := make([]string, 0, n)
		for _, d := range found[:min(n, len(found))] {
			names = append(names, c.names[d])
		}
		return names
	}
}

// sets are the task sets, by name.
type sets struct {
	tuned, heldOut, steps, late []toolcorpus.StepTask
}

func loadSets(t testing.TB) sets {
	t.Helper()
	tuned, err := toolcorpus.Tasks()
	require.NoError(t, err)
	heldOut, err := toolcorpus.HeldOutTasks()
	require.NoError(t, err)
	steps, err := toolcorpus.StepTasks()
	require.NoError(t, err)
	late, err := toolcorpus.LateStepTasks()
	require.NoError(t, err)
	return sets{toolcorpus.AsSteps(tuned), toolcorpus.AsSteps(heldOut), steps, late}
}

func loadAll(t testing.TB) []toolcorpus.Server {
	t.Helper()
	servers, err := toolcorpus.Load()
	require.NoError(t, err)
	return servers
}
