package toolbox

import (
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/plugin"
)

// searchIndex ranks deferred tools against a query's keywords with BM25
// over weighted fields: a term in a tool's name counts more than one in its
// description. Every posting's share of a score is computed when the index
// is built, so a query costs a map lookup per keyword and an addition per
// posting.
type searchIndex struct {
	docs     []int // table index of each document
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
	// coord is what a score is multiplied by for the number of the
	// query's keywords the tool matches (rankKnobs.coord).
	coord [maxQueryKeywords + 1]float32
	// scratch pools rankScratch values sized for this index.
	scratch sync.Pool
}

// posting is one document's weight for a term: its BM25 share.
type posting struct {
	doc int32
	w   float32
}

// Field weights: how much one occurrence of a term counts, by where it is.
const (
	weightName       = 3
	weightPrefix     = 0.5
	weightTitle      = 2
	weightParamName  = 1.5
	weightDesc       = 1
	weightParamDesc  = 0.5
	bm25K1, bm25B    = 1.2, 0.75 // bm25B: rankKnobs.b
	maxQueryKeywords = 32
)

// rankKnobs are the weights of the ranking that were measured against
// one another (docs/toolbox.md, "Tool search"); the defaults are what a
// search does, the tests set others to measure what each buys.
var rankKnobs = struct {
	// descFirst and descRest weigh a keyword of the description's first
	// sentence and of the rest of it.
	descFirst, descRest float64
	// server weighs a keyword of the server's name in each of its tools;
	// instructions one of the server's instructions (each keyword once).
	server, instructions float64
	// serverBoost multiplies the score of a tool whose server the query
	// names.
	serverBoost float64
	// feedback is what a keyword of pseudo-relevance feedback counts in a
	// step of a several-step query; feedbackOne in a query of one step
	// (0: none).
	feedback, feedbackOne float64
	// related is what a keyword related by co-occurrence counts (0:
	// none); relatedTerms how many are added of each query keyword.
	related      float64
	relatedTerms int
	// domain makes the keywords of a server's domain name it too: those
	// in most of its tools and in few of any other server's.
	domain bool
	// coord is the power of the number of the query's keywords a tool
	// matches that its score is multiplied by; b is BM25's length
	// normalisation.
	coord, b float64
	// bm25f normalises each field group's length on its own (BM25F),
	// with its own b: name and title, the description's first sentence,
	// the rest of it, the parameters.
	bm25f bool
	bf    [4]float64
}{
	descFirst: weightDesc, descRest: weightDesc,
	server: 0.3, instructions: 0,
	serverBoost: 3,
	feedback:    0.5, feedbackOne: 0,
	related: 0, relatedTerms: 2,
	coord: 0.5, b: bm25B,
	bm25f: true, bf: [4]float64{0.5, 0.5, 0.75, 0.75},
}

func newSearchIndex(rt *routeTable, deferred []int, cache *wordCache) *searchIndex {
	idx := &searchIndex{docs: deferred, postings: map[string][]posting{}, serverOf: make([]int32, len(deferred)), servers: map[string][]int32{}}
	tws := cache.wordsOf(rt, deferred)
	common := commonNameWords(rt, deferred, tws)
	serverNum := map[string]int32{}
	var prefixes [][]string     // each server's prefix keywords, by number
	var instructions [][]string // each server's instructions' keywords, once each
	tfs := make([]map[string]float64, len(deferred))
	lengths := make([]float64, len(deferred))
	total := 0.0
	var flen [][4]float64 // each document's field groups' lengths (BM25F)
	var favg [4]float64
	if rankKnobs.bm25f {
		flen = make([][4]float64, len(deferred))
		for d := range deferred {
			for _, fw := range tws[d] {
				flen[d][fieldGroup(fw.field)]++
			}
			for g := range favg {
				favg[g] += flen[d][g]
			}
		}
		for g := range favg {
			favg[g] = max(favg[g]/max(float64(len(deferred)), 1), 1)
		}
	}
	for d, i := range deferred {
		tl := rt.tools[i]
		num, ok := serverNum[tl.Server]
		if !ok {
			num = int32(len(serverNum))
			serverNum[tl.Server] = num
			keywords(tl.Server, func(k string) { idx.servers[k] = append(idx.servers[k], num) })
			var pre []string
			keywords(rt.byName[tl.Name].server.cfg.ToolPrefix(), func(k string) { pre = append(pre, k) })
			prefixes = append(prefixes, pre)
			var ins []string
			if rankKnobs.instructions > 0 {
				keywords(serverInstructions(rt.byName[tl.Name].server), func(k string) {
					if !slices.Contains(ins, k) {
						ins = append(ins, k)
					}
				})
			}
			instructions = append(instructions, ins)
		}
		idx.serverOf[d] = num
		tf := make(map[string]float64, len(tws[d]))
		add := func(k string, w float64) {
			tf[k] += w
			lengths[d] += w
		}
		for _, fw := range tws[d] {
			w := fieldWeight(fw.field)
			if fw.field == fieldName && common[tl.Server][fw.k] {
				// Shared by most of the server's tools, like a prefix: it
				// tells them apart from no other.
				w = weightPrefix
			}
			if flen != nil {
				g := fieldGroup(fw.field)
				b := rankKnobs.bf[g]
				w /= 1 - b + b*flen[d][g]/favg[g]
			}
			add(fw.k, w)
		}
		// The prefix, shared by all of the server's tools, counts only a
		// little: a query naming the server favours its tools through the
		// boost in rank instead.
		for _, k := range prefixes[num] {
			add(k, rankKnobs.server)
		}
		if rankKnobs.instructions > 0 {
			for _, k := range instructions[num] {
				add(k, rankKnobs.instructions)
			}
		}
		tfs[d] = tf
		total += lengths[d]
	}
	idx.nservers = len(serverNum)
	for i := range idx.coord {
		idx.coord[i] = float32(math.Pow(float64(i), rankKnobs.coord))
	}
	if rankKnobs.domain {
		idx.addDomainWords(tfs)
	}
	idx.scratch.New = idx.newScratch
	n := float64(len(deferred))
	avg := total / max(n, 1)
	df := map[string]int{}
	for _, tf := range tfs {
		for k := range tf {
			df[k]++
		}
	}
	idx.terms = make([][]string, len(tfs))
	type kw struct {
		k string
		w float64
	}
	for d, tf := range tfs {
		b := rankKnobs.b
		if flen != nil {
			b = 0 // each field's length is normalised on its own
		}
		norm := bm25K1 * (1 - b + b*lengths[d]/max(avg, 1))
		var ws []kw
		for k, f := range tf {
			idf := math.Log(1 + (n-float64(df[k])+0.5)/(float64(df[k])+0.5))
			w := idf * f * (bm25K1 + 1) / (f + norm)
			idx.postings[k] = append(idx.postings[k], posting{int32(d), float32(w)})
			ws = append(ws, kw{k, w})
		}
		slices.SortFunc(ws, func(a, b kw) int {
			if c := cmp.Compare(b.w, a.w); c != 0 {
				return c
			}
			return strings.Compare(a.k, b.k)
		})
		for _, x := range ws[:min(len(ws), feedbackDocTerms)] {
			idx.terms[d] = append(idx.terms[d], x.k)
		}
	}
	if rankKnobs.related > 0 {
		idx.related = relatedTerms(idx.postings, idx.terms, rankKnobs.relatedTerms)
	}
	return idx
}

// addDomainWords makes the keywords of each server's domain name it in
// idx.servers: a keyword in at least half of its tools (two at least) and
// of whose tools at least two in three are the server's.
func (idx *searchIndex) addDomainWords(tfs []map[string]float64) {
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

// relatedTerms returns, for each keyword in at least two tools, up to max
// of the telling keywords (terms) that most of its tools share: a keyword
// in more than half of them, and in two at least.
func relatedTerms(postings map[string][]posting, terms [][]string, most int) map[string][]string {
	out := map[string][]string{}
	count := map[string]int{}
	type counted struct {
		k string
		n int
	}
	var order []counted
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
				order = append(order, counted{t, n})
			}
		}
		if len(order) == 0 {
			continue
		}
		slices.SortFunc(order, func(a, b counted) int {
			if c := cmp.Compare(b.n, a.n); c != 0 {
				return c
			}
			return strings.Compare(a.k, b.k)
		})
		for _, c := range order[:min(len(order), most)] {
			out[k] = append(out[k], c.k)
		}
	}
	return out
}

// The fields of a tool that a search reads, and what a keyword in each
// weighs.
const (
	fieldName = iota
	fieldTitle
	fieldDesc // the description's first sentence
	fieldDescRest
	fieldParamName
	fieldParamDesc
)

// fieldGroup is the group of fields whose length BM25F normalises
// together.
func fieldGroup(field uint8) int {
	switch field {
	case fieldName, fieldTitle:
		return 0
	case fieldDesc:
		return 1
	case fieldDescRest:
		return 2
	}
	return 3
}

func fieldWeight(field uint8) float64 {
	switch field {
	case fieldName:
		return weightName
	case fieldTitle:
		return weightTitle
	case fieldDesc:
		return rankKnobs.descFirst
	case fieldDescRest:
		return rankKnobs.descRest
	case fieldParamName:
		return weightParamName
	}
	return weightParamDesc
}

// fieldWord is one keyword of a tool and the field it is in.
type fieldWord struct {
	k     string
	field uint8
}

// toolWords lists the keywords of a tool, field by field: its name (the
// server's own), title, description, and its parameters' names and
// descriptions.
func toolWords(tool *mcp.Tool, def plugin.ToolDefinition) []fieldWord {
	var out []fieldWord
	add := func(text string, field uint8) {
		keywords(text, func(k string) { out = append(out, fieldWord{k, field}) })
	}
	add(tool.Name, fieldName)
	title := tool.Title
	if title == "" && tool.Annotations != nil {
		title = tool.Annotations.Title
	}
	add(title, fieldTitle)
	first, rest := firstSentence(def.Description)
	add(first, fieldDesc)
	add(rest, fieldDescRest)
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(def.InputSchema, &schema) == nil {
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			add(name, fieldParamName)
			add(schema.Properties[name].Description, fieldParamDesc)
		}
	}
	return out
}

// firstSentence splits a description after its first sentence: at the
// first full stop, question or exclamation mark followed by a space, or
// the first line break.
func firstSentence(desc string) (first, rest string) {
	for i := 0; i < len(desc); i++ {
		switch desc[i] {
		case '\n':
			return desc[:i], desc[i+1:]
		case '.', '?', '!':
			if i+1 == len(desc) || desc[i+1] == ' ' || desc[i+1] == '\n' {
				return desc[:i], desc[i+1:]
			}
		}
	}
	return desc, ""
}

// wordCache keeps each tool's keywords from one index to the next: a
// server's tools, shared read-only by its plugin's list, keep their
// pointers until that list changes, so an index rebuilt because another
// server came or went reads only what is new.
type wordCache struct {
	mu    sync.Mutex
	words map[*mcp.Tool][]fieldWord
}

// wordsOf returns the keywords of each deferred tool, reading those it has
// not seen, and forgets the tools no longer in rt.
func (c *wordCache) wordsOf(rt *routeTable, deferred []int) [][]fieldWord {
	out := make([][]fieldWord, len(deferred))
	if c == nil {
		for d, i := range deferred {
			out[d] = toolWords(rt.tools[i].Tool, rt.defs[i])
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := make(map[*mcp.Tool][]fieldWord, len(deferred))
	for d, i := range deferred {
		tool := rt.tools[i].Tool
		ws, ok := c.words[tool]
		if !ok {
			ws = toolWords(tool, rt.defs[i])
		}
		kept[tool] = ws
		out[d] = ws
	}
	c.words = kept
	return out
}

// commonNameWords returns, by server, the keywords found in the names of
// most of its tools ("git" in git_add, git_commit, ...): like a prefix, they
// tell the server's tools apart from no other, and count as little.
func commonNameWords(rt *routeTable, deferred []int, tws [][]fieldWord) map[string]map[string]bool {
	counts := map[string]map[string]int{}
	tools := map[string]int{}
	for d, i := range deferred {
		server := rt.tools[i].Server
		if counts[server] == nil {
			counts[server] = map[string]int{}
		}
		tools[server]++
		var seen []string
		for _, fw := range tws[d] {
			if fw.field == fieldName && !slices.Contains(seen, fw.k) {
				seen = append(seen, fw.k)
				counts[server][fw.k]++
			}
		}
	}
	out := map[string]map[string]bool{}
	for server, ks := range counts {
		out[server] = map[string]bool{}
		for k, c := range ks {
			if tools[server] >= 4 && 5*c >= 4*tools[server] {
				out[server][k] = true
			}
		}
	}
	return out
}

// rankOne ranks a query of one step: the table indexes of the limit best
// matches of query's keywords, best first (ties by table order, which is
// by exposed name). Each keyword also matches its synonyms, for less; a
// keyword that names a server multiplies by rankKnobs.serverBoost the
// scores of that server's tools that match another keyword.
func (idx *searchIndex) rankOne(query string, limit int) []int {
	return idx.rankFeedback(query, limit, rankKnobs.feedbackOne)
}

// Pseudo-relevance feedback's bounds.
const (
	feedbackDocTerms = 6 // keywords kept of each document
	feedbackDocs     = 3 // best matches read
	feedbackTermsMax = 6 // keywords added
)

// feedbackTerms returns the keywords most shared by the feedbackDocs best
// matches so far, none of the query's.
func (idx *searchIndex) feedbackTerms(sc *rankScratch, direct, extra []string) []string {
	scores := sc.scores
	var top [feedbackDocs]int32
	nt := 0
	for _, d := range sc.touched {
		s := scores[d]
		i := min(nt, feedbackDocs-1)
		if nt == feedbackDocs && (s < scores[top[i]] || s == scores[top[i]] && d > top[i]) {
			continue
		}
		top[i] = d
		for i > 0 && (scores[top[i]] > scores[top[i-1]] || scores[top[i]] == scores[top[i-1]] && top[i] < top[i-1]) {
			top[i], top[i-1] = top[i-1], top[i]
			i--
		}
		nt = min(nt+1, feedbackDocs)
	}
	type counted struct {
		k string
		n int
	}
	var buf [feedbackDocs * feedbackDocTerms]counted
	order := buf[:0]
	for _, d := range top[:nt] {
		for _, k := range idx.terms[d] {
			if slices.Contains(direct, k) || slices.Contains(extra, k) {
				continue
			}
			if i := slices.IndexFunc(order, func(c counted) bool { return c.k == k }); i >= 0 {
				order[i].n++
			} else {
				order = append(order, counted{k, 1})
			}
		}
	}
	slices.SortStableFunc(order, func(a, b counted) int { return cmp.Compare(b.n, a.n) })
	out := make([]string, 0, min(len(order), feedbackTermsMax))
	for _, c := range order[:min(len(order), feedbackTermsMax)] {
		out = append(out, c.k)
	}
	return out
}

// rankFeedback is rank, with pseudo-relevance feedback at weight
// feedback when it is not 0.
func (idx *searchIndex) rankFeedback(query string, limit int, feedback float64) []int {
	if len(idx.docs) == 0 {
		return nil
	}
	var direct [maxQueryKeywords]string
	n := 0
	keywords(query, func(k string) {
		if n < maxQueryKeywords && !slices.Contains(direct[:n], k) {
			direct[n] = k
			n++
		}
	})
	if n == 0 {
		return nil
	}
	sc := idx.scratch.Get().(*rankScratch)
	defer idx.scratch.Put(sc)
	defer sc.reset()
	scores, matched, naming := sc.scores, sc.matched, sc.naming
	add := func(k string, w float32, src int) {
		for _, p := range idx.postings[k] {
			if scores[p.doc] == 0 {
				sc.touched = append(sc.touched, p.doc)
			}
			scores[p.doc] += w * p.w
			matched[p.doc] |= 1 << src
		}
	}
	// naming[s] is the set of the query's keywords that name server s.
	for src, k := range direct[:n] {
		add(k, 1, src)
		for _, s := range idx.servers[k] {
			naming[s] |= 1 << src
		}
	}
	var extra [2 * maxQueryKeywords]string
	m := 0
	for src, k := range direct[:n] {
		for _, phrase := range synonyms[k] {
			for _, s := range phrase {
				if m < len(extra) && !slices.Contains(direct[:n], s) && !slices.Contains(extra[:m], s) {
					extra[m] = s
					m++
					add(s, synonymWeight, src)
				}
			}
		}
	}
	if rankKnobs.related > 0 {
		// Co-occurrence: the keywords most of a keyword's tools share
		// count a little, matched as the keyword.
		rw := float32(rankKnobs.related)
		for src, k := range direct[:n] {
			for _, r := range idx.related[k] {
				if m < len(extra) && !slices.Contains(direct[:n], r) && !slices.Contains(extra[:m], r) {
					extra[m] = r
					m++
					add(r, rw, src)
				}
			}
		}
	}
	if stepKnobs.prf && feedback > 0 {
		// Pseudo-relevance feedback: the telling keywords of the best
		// matches so far, not in the query, count a little more.
		for _, k := range idx.feedbackTerms(sc, direct[:n], extra[:m]) {
			for _, p := range idx.postings[k] {
				if scores[p.doc] == 0 {
					sc.touched = append(sc.touched, p.doc)
				}
				scores[p.doc] += float32(feedback) * p.w
			}
		}
	}
	// The limit best, kept in order as they come: a full sort of every
	// hit would cost more than the ranking itself.
	best := sc.hits[:0]
	for _, d := range sc.touched {
		s := scores[d]
		// A tool that matches more of the query's keywords (or their
		// synonyms) beats one that matches one keyword strongly. Naming
		// a tool's server narrows the search to it but selects nothing
		// by itself: it raises the tools that match something else.
		own := naming[idx.serverOf[d]]
		if other := bits.OnesCount32(matched[d] &^ own); other > 0 {
			s *= idx.coord[other]
			if own != 0 {
				s *= float32(rankKnobs.serverBoost)
			}
		}
		h := scored{d, s}
		if len(best) == limit && !h.before(best[limit-1]) {
			continue
		}
		if len(best) < limit {
			best = append(best, h)
		} else {
			best[limit-1] = h
		}
		for i := len(best) - 1; i > 0 && best[i].before(best[i-1]); i-- {
			best[i], best[i-1] = best[i-1], best[i]
		}
	}
	sc.hits = best
	out := make([]int, 0, len(best))
	for _, h := range best {
		out = append(out, idx.docs[h.doc])
	}
	return out
}

// scored is a document and its score.
type scored struct {
	doc int32
	s   float32
}

// before orders by score, then by table order.
func (a scored) before(b scored) bool { return a.s > b.s || a.s == b.s && a.doc < b.doc }

// rankScratch is what one ranking writes, by document and by server,
// kept from one ranking to the next: only the documents a ranking touched
// are read and cleared.
type rankScratch struct {
	scores  []float32
	matched []uint32 // which of the query's keywords each tool matched
	naming  []uint32
	touched []int32 // the documents with a score, each once
	hits    []scored
}

func (idx *searchIndex) newScratch() any {
	return &rankScratch{scores: make([]float32, len(idx.docs)), matched: make([]uint32, len(idx.docs)), naming: make([]uint32, idx.nservers)}
}

func (sc *rankScratch) reset() {
	for _, d := range sc.touched {
		sc.scores[d], sc.matched[d] = 0, 0
	}
	clear(sc.naming)
	sc.touched = sc.touched[:0]
}

// keywords calls yield with each keyword of text: its words split at
// anything but letters and digits and at camelCase humps, lower-cased,
// stop words dropped, each reduced to a crude stem so that "pages", "page"
// and "paging" meet.
func keywords(text string, yield func(string)) {
	var buf [64]byte
	words(text, func(w string) {
		if len(w) > len(buf) {
			return
		}
		lower := buf[:0]
		for _, r := range w {
			lower = utf8.AppendRune(lower, unicode.ToLower(r))
		}
		if len(lower) < 2 || stopWords[string(lower)] {
			return
		}
		yield(stem(string(lower)))
	})
}

// words splits text at every rune that is not a letter or a digit and
// before an upper-case letter that follows a lower-case one or starts a
// word after an acronym ("getHTTPResponse" is get, HTTP, Response).
func words(text string, yield func(string)) {
	start := -1
	var prev, prev2 rune
	for i, r := range text {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			if start >= 0 {
				yield(text[start:i])
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			yield(text[start:i])
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2) && i-start > 1:
			// "HTTPResponse": the word began at the last capital.
			j := i - utf8.RuneLen(prev)
			yield(text[start:j])
			start = j
		}
		prev2, prev = prev, r
	}
	if start >= 0 {
		yield(text[start:])
	}
}

// stem strips common English endings, the same way for queries and tools;
// it need not make words, only make related ones meet.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"able", "ible", "ize", "ise", "ing", "ion", "ed", "er", "y"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			w = w[:len(w)-len(suf)]
			if n := len(w); w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
				w = w[:n-1] // "running" → "run"
			}
			break
		}
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// stopWords carry no meaning for choosing a tool.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on for with by from at as is are was were be been being
		this that these those it its into onto using use used via your you my me mine i we our us can could would should
		will shall may might must please want need needs some any all do does did how what which who whom when why have has had
		there here if then than so just about also only very much many more most such not no nor out up down over under
		again each few own same too let lets tool tools i'd i'm it's don't something anything thing things one`) {
		m[w] = true
	}
	return m
}()
