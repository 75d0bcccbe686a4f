package toolsearch

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// Doc is one tool to search: its keywords ([Words]) and its server's.
type Doc struct {
	// Server is the server's name: a query's keyword of it names the
	// server ([Knobs.ServerBoost]).
	Server string
	// Prefix is what the server's exposed tool names start with; its
	// keywords count a little in each of its tools ([Knobs.Server]).
	Prefix string
	// Instructions are the server's; read only when [Knobs.Instructions]
	// is above zero.
	Instructions string
	Words        []Word
}

// Index ranks tools against a query's keywords with BM25 over weighted
// fields: a term in a tool's name counts more than one in its
// description. Every posting's share of a score is computed when the index
// is built, so a query costs a map lookup per keyword and an addition per
// posting. An Index is safe for concurrent searches.
type Index struct {
	knobs    Knobs
	ndocs    int
	postings map[string][]posting
	serverOf []int32            // each document's server, numbered
	servers  map[string][]int32 // the servers a keyword names
	nservers int
	// terms holds each document's most telling keywords, heaviest first,
	// for pseudo-relevance feedback (feedbackTerms).
	terms [][]string
	// related holds, for each keyword, the telling keywords of the tools
	// it is in that most of them share (co-occurrence expansion).
	related map[string][]string
	// changes holds whether each document's tool's name changes
	// something (Knobs.Asking).
	changes []bool
	// named holds, for each keyword, the documents whose name has it,
	// but not as one most of its server's tools share; nameLen the number
	// of such keywords of each document's name (Knobs.NameCover).
	named   map[string][]int32
	nameLen []uint8
	// vocab is every keyword, sorted, for prefix matches (Knobs.Prefix).
	vocab []string
	// twins holds, for each document, the documents of other servers
	// whose tool has the same name (Knobs.Twins).
	twins map[int32][]int32
	// coord is what a score is multiplied by for the number of the
	// query's keywords the tool matches (Knobs.Coord).
	coord [maxQueryKeywords + 1]float32
	// scratch pools rankScratch values sized for this index.
	scratch sync.Pool
}

// posting is one document's weight for a term: its BM25 share.
type posting struct {
	doc int32
	w   float32
}

// maxQueryKeywords bounds the keywords a query (or a step) is ranked by.
const maxQueryKeywords = 32

// NewIndex indexes docs with knobs k; [Index.Search] returns indexes into
// docs.
func NewIndex(docs []Doc, k Knobs) *Index {
	idx := &Index{knobs: k, ndocs: len(docs), postings: map[string][]posting{}}
	servers := idx.numberServers(docs)
	common := commonNameWords(docs, idx.serverOf, idx.nservers)
	tfs, lengths := idx.termFrequencies(docs, servers, common)
	for i := range idx.coord {
		idx.coord[i] = float32(math.Pow(float64(i), k.Coord))
	}
	if k.Domain {
		idx.addDomainWords(tfs)
	}
	idx.scratch.New = idx.newScratch
	idx.weigh(tfs, lengths)
	if k.Twins > 0 {
		idx.twins = twinsOf(docs, idx.serverOf)
	}
	idx.indexNames(docs, common)
	if k.Prefix > 0 {
		idx.vocab = slices.Sorted(maps.Keys(idx.postings))
	}
	if k.Related > 0 {
		idx.related = relatedTerms(idx.postings, idx.terms, k.RelatedTerms)
	}
	return idx
}

// serverWords are the keywords of one server that count in each of its
// tools: its prefix's, and its instructions' (each once).
type serverWords struct {
	prefix, instructions []string
}

// numberServers numbers the servers of docs in the order they come,
// records which keywords name each (those of its name), and returns the
// keywords of each that count in its tools.
func (idx *Index) numberServers(docs []Doc) []serverWords {
	idx.serverOf = make([]int32, len(docs))
	idx.servers = map[string][]int32{}
	num := map[string]int32{}
	var out []serverWords
	for d, doc := range docs {
		n, ok := num[doc.Server]
		if !ok {
			n = int32(len(num))
			num[doc.Server] = n
			Keywords(doc.Server, func(k string) { idx.servers[k] = append(idx.servers[k], n) })
			var sw serverWords
			Keywords(doc.Prefix, func(k string) { sw.prefix = append(sw.prefix, k) })
			if idx.knobs.Instructions > 0 {
				Keywords(doc.Instructions, func(k string) {
					if !slices.Contains(sw.instructions, k) {
						sw.instructions = append(sw.instructions, k)
					}
				})
			}
			out = append(out, sw)
		}
		idx.serverOf[d] = n
	}
	idx.nservers = len(num)
	return out
}

// fieldLengths returns each document's field groups' lengths and their
// averages over docs, which BM25F normalises by.
func fieldLengths(docs []Doc) (flen [][4]float64, favg [4]float64) {
	flen = make([][4]float64, len(docs))
	for d, doc := range docs {
		for _, w := range doc.Words {
			flen[d][fieldGroup(w.Field)]++
		}
		for g := range favg {
			favg[g] += flen[d][g]
		}
	}
	for g := range favg {
		favg[g] = max(favg[g]/max(float64(len(docs)), 1), 1)
	}
	return flen, favg
}

// termFrequencies returns each document's weighted term frequencies, by
// field weight and, with BM25F, normalised by each field's length, and
// each document's length (the sum of its weights).
// common are the keywords most of each server's tools have in their names
// (commonNameWords).
func (idx *Index) termFrequencies(docs []Doc, servers []serverWords, common []map[string]bool) ([]map[string]float64, []float64) {
	k := &idx.knobs
	var flen [][4]float64
	var favg [4]float64
	if k.BM25F {
		flen, favg = fieldLengths(docs)
	}
	tfs := make([]map[string]float64, len(docs))
	lengths := make([]float64, len(docs))
	for d, doc := range docs {
		tf := make(map[string]float64, len(doc.Words))
		add := func(key string, w float64) {
			tf[key] += w
			lengths[d] += w
		}
		s := idx.serverOf[d]
		for _, fw := range doc.Words {
			w := k.weight(fw.Field)
			if fw.Field == FieldName && common[s][fw.Key] {
				// Shared by most of the server's tools, like a prefix: it
				// tells them apart from no other.
				w = weightPrefix
			}
			if flen != nil {
				g := fieldGroup(fw.Field)
				b := k.BF[g]
				w /= 1 - b + b*flen[d][g]/favg[g]
			}
			add(fw.Key, w)
		}
		// The prefix, shared by all of the server's tools, counts only a
		// little: a query naming the server favours its tools through the
		// boost in rank instead.
		for _, key := range servers[s].prefix {
			add(key, k.Server)
		}
		for _, key := range servers[s].instructions {
			add(key, k.Instructions)
		}
		tfs[d] = tf
	}
	return tfs, lengths
}

// weigh turns the term frequencies into BM25 postings and keeps each
// document's feedbackDocTerms heaviest keywords.
func (idx *Index) weigh(tfs []map[string]float64, lengths []float64) {
	n := float64(len(tfs))
	total := 0.0
	for _, l := range lengths {
		total += l
	}
	avg := total / max(n, 1)
	df := map[string]int{}
	for _, tf := range tfs {
		for key := range tf {
			df[key]++
		}
	}
	b := idx.knobs.B
	if idx.knobs.BM25F {
		b = 0 // each field's length is normalised on its own
	}
	idx.terms = make([][]string, len(tfs))
	var ws []weighted
	for d, tf := range tfs {
		norm := bm25K1 * (1 - b + b*lengths[d]/max(avg, 1))
		ws = ws[:0]
		for key, f := range tf {
			idf := math.Log(1 + (n-float64(df[key])+0.5)/(float64(df[key])+0.5))
			w := idf * f * (bm25K1 + 1) / (f + norm)
			idx.postings[key] = append(idx.postings[key], posting{int32(d), float32(w)})
			ws = append(ws, weighted{key, w})
		}
		idx.terms[d] = heaviest(ws, feedbackDocTerms)
	}
}

// weighted is a keyword and its weight in one document.
type weighted struct {
	k string
	w float64
}

// heaviest returns the keys of the n heaviest of ws, heaviest first (ties
// by key); it sorts ws.
func heaviest(ws []weighted, n int) []string {
	slices.SortFunc(ws, func(a, b weighted) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return strings.Compare(a.k, b.k)
	})
	out := make([]string, 0, min(len(ws), n))
	for _, x := range ws[:min(len(ws), n)] {
		out = append(out, x.k)
	}
	return out
}

// indexNames records what the ranking reads of each tool's name: whether
// it changes something (Knobs.Asking), and which of its keywords tell it
// apart from its server's other tools (Knobs.NameCover); common are the
// keywords most of each server's tools have in their names.
func (idx *Index) indexNames(docs []Doc, common []map[string]bool) {
	if idx.knobs.Asking > 0 {
		idx.changes = make([]bool, len(docs))
	}
	if idx.knobs.NameCover > 0 {
		idx.named, idx.nameLen = map[string][]int32{}, make([]uint8, len(docs))
	}
	if idx.changes == nil && idx.named == nil {
		return
	}
	for d, doc := range docs {
		for _, w := range doc.Words {
			if w.Field != FieldName {
				continue
			}
			if idx.changes != nil && changeVerbs[w.Key] {
				idx.changes[d] = true
			}
			if idx.named == nil || common[idx.serverOf[d]][w.Key] || idx.nameLen[d] == math.MaxUint8 {
				continue
			}
			if ds := idx.named[w.Key]; len(ds) == 0 || ds[len(ds)-1] != int32(d) {
				idx.named[w.Key] = append(ds, int32(d))
				idx.nameLen[d]++
			}
		}
	}
}

// commonNameWords returns, by server, the keywords found in the names of
// most of its tools ("git" in git_add, git_commit, ...): like a prefix, they
// tell the server's tools apart from no other, and count as little.
func commonNameWords(docs []Doc, serverOf []int32, nservers int) []map[string]bool {
	counts := make([]map[string]int, nservers)
	tools := make([]int, nservers)
	var seen []string
	for d, doc := range docs {
		s := serverOf[d]
		if counts[s] == nil {
			counts[s] = map[string]int{}
		}
		tools[s]++
		seen = seen[:0]
		for _, w := range doc.Words {
			if w.Field == FieldName && !slices.Contains(seen, w.Key) {
				seen = append(seen, w.Key)
				counts[s][w.Key]++
			}
		}
	}
	out := make([]map[string]bool, nservers)
	for s, ks := range counts {
		out[s] = map[string]bool{}
		for k, c := range ks {
			if tools[s] >= 4 && 5*c >= 4*tools[s] {
				out[s][k] = true
			}
		}
	}
	return out
}

// addDomainWords makes the keywords of each server's domain name it in
// idx.servers: a keyword in at least half of its tools (two at least) and
// of whose tools at least two in three are the server's.
func (idx *Index) addDomainWords(tfs []map[string]float64) {
	tools := make([]int, idx.nservers)
	for _, s := range idx.serverOf {
		tools[s]++
	}
	in := map[string][]int{} // tools of each server a keyword is in
	for d, tf := range tfs {
		for k := range tf {
			if in[k] == nil {
				in[k] = make([]int, idx.nservers)
			}
			in[k][idx.serverOf[d]]++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		counts := in[k]
		total := 0
		for _, c := range counts {
			total += c
		}
		for s, c := range counts {
			if c >= 2 && 2*c >= tools[s] && 3*c >= 2*total && !slices.Contains(idx.servers[k], int32(s)) {
				idx.servers[k] = append(idx.servers[k], int32(s))
			}
		}
	}
}

// relatedTerms returns, for each keyword in at least two tools, up to most
// of the telling keywords (terms) that most of its tools share: a keyword
// in more than half of them, and in two at least.
func relatedTerms(postings map[string][]posting, terms [][]string, most int) map[string][]string {
	out := map[string][]string{}
	count := map[string]int{}
	var order []weighted
	for k, ps := range postings {
		if len(ps) < 2 {
			continue
		}
		clear(count)
		for _, p := range ps {
			for _, t := range terms[p.doc] {
				if t != k {
					count[t]++
				}
			}
		}
		order = order[:0]
		for t, n := range count {
			if n >= 2 && 2*n > len(ps) {
				order = append(order, weighted{t, float64(n)})
			}
		}
		if len(order) > 0 {
			out[k] = heaviest(order, most)
		}
	}
	return out
}

// twinsOf returns, for each document, the documents of other servers
// whose tool's name has the same keywords.
func twinsOf(docs []Doc, serverOf []int32) map[int32][]int32 {
	byName := map[string][]int32{}
	var b strings.Builder
	for d, doc := range docs {
		b.Reset()
		for _, w := range doc.Words {
			if w.Field == FieldName {
				b.WriteString(w.Key)
				b.WriteByte(' ')
			}
		}
		byName[b.String()] = append(byName[b.String()], int32(d))
	}
	out := map[int32][]int32{}
	for _, ds := range byName {
		for _, d := range ds {
			for _, e := range ds {
				if serverOf[e] != serverOf[d] {
					out[d] = append(out[d], e)
				}
			}
		}
	}
	return out
}
