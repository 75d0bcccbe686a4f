// Package toolsearch is the toolbox's tool search engine: pure functions
// over tool definitions, no servers, no actors. [Words] reads a tool's
// keywords field by field, [NewIndex] weighs them with BM25F (name, title,
// the description's first sentence and the rest, the parameters, the
// server's prefix), and [Index.Search] ranks a query: its noise cut
// (URLs to their host words, paths to their names, blobs and code
// dropped), split into steps when it reads as several, each step ranked
// with synonyms, the servers it names and pseudo-relevance feedback (a
// tool of the same name on another server following the one ranked), and
// the steps' rankings fused round robin. [Knobs] holds the measured
// weights; [Defaults] is what the toolbox searches with. The package's
// tests measure it on the task sets of toolbox/testdata
// (TestFiguresOnTaskSets, TestPartsOnTheirOwn, TestRankingTuning).
package toolsearch
