// Package toolsearch is the toolbox's tool search engine and its search
// tool: pure functions over tool definitions, no servers, no actors.
//
// The search tool: [NewTable] takes the toolbox's exposed tools as plain
// [Entry] values (a definition, the server's tool, its server) and decides
// which are deferred; [Table.Answer] answers a model's call of the search
// tool (its query read, the matches loaded and rendered), [Table.Find] is
// the same without the rendering, [Table.Publish] adds the tools a
// conversation has loaded to a request ([Table.Loads] reads them back from
// its messages), and [Instructions] adds the servers' instructions.
// [WordCache] keeps the tools' keywords from one table to the next. The
// toolbox keeps the public names (toolbox.WithToolSearch, Toolbox.Search,
// Toolbox.OnRequest) and the route table the entries come from.
//
// The ranking: [Words] reads a tool's keywords field by field, [NewIndex]
// weighs them with BM25F (name, title, the description's first sentence
// and the rest, the parameters, the server's prefix), and [Index.Search]
// ranks a query: its noise cut (URLs to their host words, paths to their
// names, blobs and code dropped), split into steps when it reads as
// several, each step ranked with synonyms, the servers it names and
// pseudo-relevance feedback (a tool of the same name on another server
// following the one ranked), and the steps' rankings fused round robin.
// [Knobs] holds the measured weights; [Defaults] are the knobs a search
// uses. The package's tests measure it on the task sets of
// toolbox/testdata (TestFiguresOnTaskSets, TestPartsOnTheirOwn,
// TestRankingTuning).
package toolsearch
