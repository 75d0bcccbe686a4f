package toolsearch

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
)

// Pseudo-relevance feedback's bounds.
const (
	feedbackDocTerms = 6 // keywords kept of each document
	feedbackDocs     = 3 // best matches read
	feedbackTermsMax = 6 // keywords added
)

// rankOne ranks a query of one step: the documents of the limit best
// matches of query's keywords, best first (ties by document order).
func (idx *Index) rankOne(query string, limit int) []int {
	return idx.rank(query, "", limit, idx.knobs.FeedbackOne)
}

// rank ranks the keywords of query and named (the servers the whole task
// names, for a step of it), with pseudo-relevance feedback at weight
// feedback when it is not 0. Each keyword also matches its synonyms, the
// keywords it begins with or that begin with it (Knobs.Prefix) and, with
// Knobs.Related, its co-occurring keywords, for less; a keyword that names
// a server multiplies by Knobs.ServerBoost the scores of that server's
// tools that match another keyword. The scores are then weighed as final
// says.
func (idx *Index) rank(query, named string, limit int, feedback float64) []int {
	if idx.ndocs == 0 {
		return nil
	}
	q := queryOf(query + named)
	if q.n == 0 {
		return nil
	}
	sc := idx.scratch.Get().(*rankScratch)
	defer idx.scratch.Put(sc)
	defer sc.reset()
	idx.score(sc, query, &q, feedback)
	best := idx.best(sc, limit)
	if idx.twins != nil {
		return idx.withTwins(sc, best, limit)
	}
	out := make([]int, 0, len(best))
	for _, h := range best {
		out = append(out, int(h.doc))
	}
	return out
}

// score scores q, the keywords of query (and of the servers its task
// names), into sc: what final weighs.
func (idx *Index) score(sc *rankScratch, query string, q *query, feedback float64) {
	idx.addDirect(sc, q)
	idx.addExpansions(sc, q)
	if idx.knobs.Steps.Feedback && feedback > 0 {
		// Pseudo-relevance feedback: the telling keywords of the best
		// matches so far, not in the query, count a little more.
		for _, k := range idx.feedbackTerms(sc, q) {
			sc.add(idx.postings[k], float32(feedback), -1)
		}
	}
	sc.asking = idx.changes != nil && asks(query, q)
	if idx.named != nil {
		idx.countNamed(sc, q)
	}
}

// query is a query's distinct keywords and those it is expanded with.
type query struct {
	direct [maxQueryKeywords]string
	n      int
	extra  [2 * maxQueryKeywords]string
	m      int
}

// queryOf reads the first maxQueryKeywords distinct keywords of text.
func queryOf(text string) query {
	var q query
	Keywords(text, func(k string) {
		if q.n < maxQueryKeywords && !slices.Contains(q.direct[:q.n], k) {
			q.direct[q.n] = k
			q.n++
		}
	})
	return q
}

// expand adds k to the query's expansions, unless it is in the query
// already or the expansions are full.
func (q *query) expand(k string) bool {
	if q.m == len(q.extra) || slices.Contains(q.direct[:q.n], k) || slices.Contains(q.extra[:q.m], k) {
		return false
	}
	q.extra[q.m] = k
	q.m++
	return true
}

// addDirect scores the query's own keywords and notes the servers they
// name: naming[s] is the set of the query's keywords that name server s.
func (idx *Index) addDirect(sc *rankScratch, q *query) {
	for src, k := range q.direct[:q.n] {
		sc.add(idx.postings[k], 1, src)
		for _, s := range idx.servers[k] {
			sc.naming[s] |= 1 << src
		}
	}
}

// addExpansions scores the synonyms of the query's keywords and, with
// Knobs.Related, the keywords most of a keyword's tools share, each
// matched as the keyword it expands.
func (idx *Index) addExpansions(sc *rankScratch, q *query) {
	for src, k := range q.direct[:q.n] {
		for _, phrase := range synonyms[k] {
			for _, s := range phrase {
				if q.expand(s) {
					sc.add(idx.postings[s], synonymWeight, src)
				}
			}
		}
	}
	if idx.knobs.Prefix > 0 {
		idx.addPrefixes(sc, q)
	}
	if idx.knobs.Related <= 0 {
		return
	}
	rw := float32(idx.knobs.Related)
	for src, k := range q.direct[:q.n] {
		for _, r := range idx.related[k] {
			if q.expand(r) {
				sc.add(idx.postings[r], rw, src)
			}
		}
	}
}

// addPrefixes scores the keywords that begin with a query's keyword, and
// those a query's keyword begins with, each matched as the keyword.
func (idx *Index) addPrefixes(sc *rankScratch, q *query) {
	pw, least := float32(idx.knobs.Prefix), idx.knobs.PrefixMin
	for src, k := range q.direct[:q.n] {
		if len(k) < least {
			continue
		}
		for i := least; i < len(k); i++ {
			if ps, ok := idx.postings[k[:i]]; ok && q.expand(k[:i]) {
				sc.add(ps, pw, src)
			}
		}
		i, _ := slices.BinarySearch(idx.vocab, k)
		for ; i < len(idx.vocab) && strings.HasPrefix(idx.vocab[i], k); i++ {
			if w := idx.vocab[i]; w != k && q.expand(w) {
				sc.add(idx.postings[w], pw, src)
			}
		}
	}
}

// feedbackTerms returns the keywords most shared by the feedbackDocs best
// matches so far, none of the query's.
func (idx *Index) feedbackTerms(sc *rankScratch, q *query) []string {
	var top [feedbackDocs]int32
	nt := 0
	for _, d := range sc.touched {
		h := scored{d, sc.scores[d]}
		i := min(nt, feedbackDocs-1)
		if nt == feedbackDocs && !h.before(scored{top[i], sc.scores[top[i]]}) {
			continue
		}
		top[i] = d
		for i > 0 && (scored{top[i], sc.scores[top[i]]}).before(scored{top[i-1], sc.scores[top[i-1]]}) {
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
			if slices.Contains(q.direct[:q.n], k) || slices.Contains(q.extra[:q.m], k) {
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

// best returns the limit best documents sc scored, best first, kept in
// order as they come: a full sort of every hit would cost more than the
// ranking itself. A tool that matches more of the query's keywords (or
// their synonyms) beats one that matches one keyword strongly. Naming a
// tool's server narrows the search to it but selects nothing by itself:
// it raises the tools that match something else.
func (idx *Index) best(sc *rankScratch, limit int) []scored {
	best := sc.hits[:0]
	for _, d := range sc.touched {
		h := scored{d, idx.final(sc, d)}
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
	return best
}

// final is document d's score in the ranking: its sum, times the rewards
// for matching more of the query's keywords (Knobs.Coord), for matching
// its server's name besides (Knobs.ServerBoost) and for the query's having
// more of its name (Knobs.NameCover), and times Knobs.Asking for a tool
// that changes something when the query only asks.
func (idx *Index) final(sc *rankScratch, d int32) float32 {
	s := sc.scores[d]
	own := sc.naming[idx.serverOf[d]]
	if other := bits.OnesCount32(sc.matched[d] &^ own); other > 0 {
		s *= idx.coord[other]
		if own != 0 {
			s *= float32(idx.knobs.ServerBoost)
		}
	}
	if n := sc.named[d]; n > 0 {
		s *= 1 + float32(idx.knobs.NameCover)*float32(n)/float32(idx.nameLen[d])
	}
	if sc.asking && idx.changes[d] {
		s *= float32(idx.knobs.Asking)
	}
	return s
}

// countNamed counts, in sc.named, the keywords of each document's name
// (Index.named) that q has or is expanded with. Such a document has a
// posting of the keyword, so it is among those sc touched and reset
// clears.
func (idx *Index) countNamed(sc *rankScratch, q *query) {
	for _, ks := range [][]string{q.direct[:q.n], q.extra[:q.m]} {
		for _, k := range ks {
			for _, d := range idx.named[k] {
				sc.named[d]++
			}
		}
	}
}

// changeVerbs are the keywords of a tool's name that say it changes
// something.
var changeVerbs = func() map[string]bool {
	m := map[string]bool{}
	Keywords(`create add delete remove update edit write set send post put patch move rename close merge push commit
		insert upsert drop archive reset revert apply scale restart kill stop start cancel approve publish upload
		assign invite mute unmute enable disable install uninstall deploy modify replace clear`, func(k string) { m[k] = true })
	return m
}()

// askWords begin a query that asks rather than tells.
var askWords = []string{"what", "which", "who", "whom", "whose", "where", "when", "why", "how", "is", "are", "was", "were",
	"does", "do", "did", "has", "have", "any", "show", "list", "tell", "give"}

// asks reports whether text asks rather than tells: it begins with a word
// of askWords or ends with a question mark, and none of its keywords (q's)
// is a verb of change.
func asks(text string, q *query) bool {
	for _, k := range q.direct[:q.n] {
		if changeVerbs[k] {
			return false
		}
	}
	t := strings.TrimSpace(text)
	if strings.HasSuffix(t, "?") {
		return true
	}
	first, _, _ := strings.Cut(t, " ")
	first = strings.ToLower(first)
	first = strings.TrimSuffix(strings.TrimSuffix(first, "'s"), "’s") // "what's"
	return slices.Contains(askWords, first)
}

// withTwins returns the documents of best, each followed by its twins
// (Index.twins) that score at least Knobs.Twins of it, each once, at most
// limit of them.
func (idx *Index) withTwins(sc *rankScratch, best []scored, limit int) []int {
	out := make([]int, 0, len(best))
	for _, h := range best {
		if len(out) == limit {
			break
		}
		if !slices.Contains(out, int(h.doc)) {
			out = append(out, int(h.doc))
		}
		for _, t := range idx.twins[h.doc] {
			if len(out) < limit && !slices.Contains(out, int(t)) && sc.scores[t] > 0 && idx.final(sc, t) >= float32(idx.knobs.Twins)*h.s {
				out = append(out, int(t))
			}
		}
	}
	return out
}

// scored is a document and its score.
type scored struct {
	doc int32
	s   float32
}

// before orders by score, then by document order.
func (a scored) before(b scored) bool { return a.s > b.s || a.s == b.s && a.doc < b.doc }

// rankScratch is what one ranking writes, by document and by server,
// kept from one ranking to the next: only the documents a ranking touched
// are read and cleared.
type rankScratch struct {
	scores  []float32
	matched []uint32 // which of the query's keywords each tool matched
	named   []uint8  // how many of its name's keywords the query has (countNamed)
	naming  []uint32
	touched []int32 // the documents with a score, each once
	hits    []scored
	asking  bool // the query asks (Knobs.Asking)
}

func (idx *Index) newScratch() any {
	return &rankScratch{scores: make([]float32, idx.ndocs), matched: make([]uint32, idx.ndocs), named: make([]uint8, idx.ndocs),
		naming: make([]uint32, idx.nservers)}
}

// add adds w times each posting's weight to its document's score, and
// marks the document as matching the query's keyword src (none when src
// is negative).
func (sc *rankScratch) add(ps []posting, w float32, src int) {
	for _, p := range ps {
		if sc.scores[p.doc] == 0 {
			sc.touched = append(sc.touched, p.doc)
		}
		sc.scores[p.doc] += w * p.w
		if src >= 0 {
			sc.matched[p.doc] |= 1 << src
		}
	}
}

func (sc *rankScratch) reset() {
	for _, d := range sc.touched {
		sc.scores[d], sc.matched[d], sc.named[d] = 0, 0, 0
	}
	clear(sc.naming)
	sc.touched = sc.touched[:0]
	sc.asking = false
}
