package toolsearch

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Several-step queries. A task as people write it ("find the papers on X,
// read their abstracts, and put a table in ./reports/x.md") is several
// searches in one: ranked as one bag of words, the tools that match many
// of its generic words win and the step that names one specific tool is
// drowned. So a query is first stripped of what carries no meaning for
// choosing a tool (reduceNoise), then split into its steps (splitSteps);
// a query of one step is ranked as it always was, and the rankings of
// several steps are fused (fuseSteps) so that the tools loaded cover the
// steps before they fill up with one step's runners-up.

// Bounds of a query's steps.
const (
	// maxQueryBytes bounds what is kept of a query after its noise is
	// reduced: its first maxQueryHead bytes and its last
	// maxQueryBytes-maxQueryHead, where people write what they want
	// before and after what they paste.
	maxQueryBytes = 4096
	maxQueryHead  = 3072
	// maxSteps bounds how many steps a query is searched as; the steps
	// past it are not searched.
	maxSteps = 8
	// minStepKeywords is how many keywords a fragment needs to be a step
	// of its own; a shorter one joins its neighbour.
	minStepKeywords = 2
	// maxTokenBytes is the longest run without a space kept of a query:
	// a longer one is a pasted blob (base64, a minified line, a hash).
	maxTokenBytes = 48
	// minSplitKeywords is how many keywords a query needs to be read as
	// several steps: a shorter one is one request, however it is phrased
	// ("is there a memory leak? dump the JS heap").
	minSplitKeywords = 10
)

const rrfK = 60

// Search returns the documents of the limit best matches of query, best
// first. A query that reads as several steps (fewer than
// minSplitKeywords distinct keywords is one request, ranked as it is) is
// first cut of its noise (reduceNoise), then searched step by step, each
// step with the servers the whole task names, and the steps' rankings
// fused (fuseSteps) so that the tools loaded cover the steps before they
// fill up with one step's runners-up.
func (idx *Index) Search(query string, limit int) []int {
	sk := idx.knobs.Steps
	if len(query) <= maxQueryBytes && distinctKeywords(query, minSplitKeywords) < minSplitKeywords {
		return idx.rankOne(query, limit)
	}
	if sk.Noise {
		query = reduceNoise(query, sk.Code)
	}
	if !sk.Split {
		return idx.rankOne(query, limit)
	}
	steps := splitSteps(query)
	if len(steps) <= 1 {
		return idx.rankOne(query, limit)
	}
	// The servers the task names anywhere ("in Datadog") are what its
	// other steps ("mute the host") mean too.
	named := ""
	if sk.Context {
		named = idx.serverWords(query)
	}
	lists := make([][]int, len(steps))
	for i, s := range steps {
		lists[i] = idx.rank(s, named, limit, idx.knobs.Feedback)
	}
	return fuseSteps(lists, limit, sk.Fusion)
}

// serverWords returns the keywords of q that name a server, each once, as
// a string to append to a step: " datadog slack".
func (idx *Index) serverWords(q string) string {
	var b strings.Builder
	var seen []string
	Keywords(q, func(k string) {
		if _, ok := idx.servers[k]; ok && !slices.Contains(seen, k) {
			seen = append(seen, k)
			b.WriteByte(' ')
			b.WriteString(k)
		}
	})
	return b.String()
}

// distinctKeywords counts q's distinct keywords, up to enough.
func distinctKeywords(q string, enough int) int {
	var buf [maxQueryKeywords]string
	n := 0
	Keywords(q, func(k string) {
		if n < min(enough, len(buf)) && !slices.Contains(buf[:n], k) {
			buf[n] = k
			n++
		}
	})
	return n
}

// fuseSteps fuses the rankings of a query's steps into one of at most
// limit tools.
func fuseSteps(lists [][]int, limit int, fusion Fusion) []int {
	out := make([]int, 0, limit)
	if fusion == FuseRRF {
		score := map[int]float64{}
		var order []int
		for _, l := range lists {
			for r, d := range l {
				if _, ok := score[d]; !ok {
					order = append(order, d)
				}
				score[d] += 1 / float64(rrfK+r+1)
			}
		}
		sortStable(order, func(a, b int) bool { return score[a] > score[b] })
		return append(out, order[:min(limit, len(order))]...)
	}
	seen := map[int]bool{}
	for r := 0; len(out) < limit; r++ {
		more := false
		for _, l := range lists {
			if r < len(l) {
				more = true
				if d := l[r]; !seen[d] && len(out) < limit {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}

func sortStable(s []int, less func(a, b int) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// reduceNoise returns query without what carries no meaning for choosing
// a tool, before anything is tokenised: a URL becomes the words of its
// host ("https://github.com/acme/web/pull/88" is "github"), a file path
// the names of its last two parts ("./src/db/example.ts" is "db
// example.ts"), a name with dots or underscores its words, and runs of
// base64 or hex, numbers, any run without a space longer than
// maxTokenBytes and, when code is true, pasted code (fenced blocks,
// indented lines) go. What is left is cut to maxQueryBytes, its head and
// tail kept.
func reduceNoise(query string, code bool) string {
	if !needsReduce(query) {
		return query
	}
	if len(query) > 2*maxQueryBytes {
		// Cut a long paste before reading it: of its middle, what
		// survives the reduction would be cut anyway.
		query = cutAt(query, 2*maxQueryBytes-(maxQueryBytes-maxQueryHead), maxQueryBytes-maxQueryHead)
	}
	var b strings.Builder
	b.Grow(min(len(query), maxQueryBytes+maxTokenBytes))
	rest := query
	for rest != "" {
		// Copy the spaces, then handle one run without a space.
		i := 0
		for i < len(rest) && isSpaceByte(rest[i]) {
			i++
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		j := 0
		for j < len(rest) && !isSpaceByte(rest[j]) {
			j++
		}
		tok := rest[:j]
		rest = rest[j:]
		reduceToken(&b, tok)
	}
	out := b.String()
	if code {
		out = dropCode(out)
	}
	return cutQuery(out)
}

// dropCode drops what is pasted as code: fenced blocks (between lines
// starting with three backticks) and indented lines (stack frames, logs).
func dropCode(q string) string {
	if !strings.Contains(q, "```") && !strings.Contains(q, "\n  ") && !strings.Contains(q, "\n\t") {
		return q
	}
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(q) {
		t := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(t, "```"):
			fenced = !fenced
			b.WriteString("\n")
		case fenced, (strings.HasPrefix(line, "\t") || len(line)-len(t) >= 2) && t != "" && t != "\n":
			b.WriteString("\n")
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

// needsReduce is false for a query that reduceNoise would leave as it is:
// short, without a slash, a digit, a long run or pasted code.
func needsReduce(q string) bool {
	if len(q) > maxQueryBytes || strings.Contains(q, "```") || strings.Contains(q, "\n  ") || strings.Contains(q, "\n\t") {
		return true
	}
	run := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '/' || c == '\\' || c >= '0' && c <= '9' {
			return true
		}
		if isSpaceByte(c) {
			run = 0
		} else if run++; run > maxTokenBytes {
			return true
		}
	}
	return false
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// reduceToken writes what is kept of tok, a run without a space.
func reduceToken(b *strings.Builder, tok string) {
	if tok == "" {
		return
	}
	if len(tok) > maxTokenBytes && !strings.Contains(tok, "://") {
		return
	}
	// Keep the punctuation around the token that splits steps.
	core := strings.TrimRight(tok, ".,;:!?)]}\"'`")
	tail := tok[len(core):]
	lead := len(core) - len(strings.TrimLeft(core, "([{\"'`"))
	b.WriteString(core[:lead])
	core = core[lead:]
	switch {
	case isWebURL(core):
		writeHostWords(b, core)
	case strings.Contains(core, "://"):
		// Another scheme's reference ("op://vault/item/field"): its words.
		b.WriteString(strings.NewReplacer("://", " ", "/", " ").Replace(core))
	case strings.ContainsAny(core, "/\\") && !strings.HasPrefix(core, "#"):
		writePathWords(b, core)
	case strings.ContainsAny(core, "._-") && len(core) <= maxTokenBytes/2:
		// "report_2024.txt": the parts that are not numbers.
		for i, p := range strings.FieldsFunc(core, func(r rune) bool { return r == '.' || r == '_' || r == '-' }) {
			if !isNumberOrCode(p) {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(p)
			}
		}
	case isNumberOrCode(core):
		// nothing
	default:
		b.WriteString(core)
	}
	b.WriteString(tail)
}

// isWebURL reports whether tok is a URL of the web, whose host names its
// site; another scheme's ("op://vault/item") is read as a path.
func isWebURL(tok string) bool {
	scheme, _, ok := strings.Cut(tok, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "ws", "wss", "ftp":
		return true
	}
	return false
}

// writeHostWords writes the words of a URL's host that name something:
// not "www", not the top-level domain.
func writeHostWords(b *strings.Builder, url string) {
	_, host, _ := strings.Cut(url, "://")
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	labels := strings.Split(host, ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1] // the top-level domain
	}
	for _, l := range labels {
		if l == "www" || l == "" || isNumberOrCode(l) {
			continue
		}
		b.WriteString(l)
		b.WriteByte(' ')
	}
}

// writePathWords writes the names of a path's last two parts and its
// extension ("./src/db/example.ts" is "db example ts"; "feature/login" and
// "octocat/hello-world" stay as they are).
func writePathWords(b *strings.Builder, path string) {
	path = strings.TrimRight(path, "/\\")
	if i := strings.LastIndexByte(path, ':'); i > 0 && !strings.ContainsAny(path[i:], "/\\") {
		path = path[:i] // "File.tsx:42:23"
		if i := strings.LastIndexByte(path, ':'); i > 0 && !strings.ContainsAny(path[i:], "/\\") {
			path = path[:i]
		}
	}
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	for i, p := range parts {
		if isNumberOrCode(p) || p == "." || p == ".." || p == "~" {
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
}

// isNumberOrCode reports whether tok is a number, a time, a date or a
// version (digits and no letter), or a hash, an ID or a run of base64 (8
// characters or more with 2 digits or more, a quarter of them digits or
// all of them hex).
func isNumberOrCode(tok string) bool {
	digits, letters, hex := 0, 0, 0
	for _, r := range tok {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case unicode.IsLetter(r):
			letters++
			if r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' {
				hex++
			}
		}
	}
	switch {
	case digits == 0:
		return false
	case letters == 0:
		return true
	}
	n := utf8.RuneCountInString(tok)
	return n >= 8 && digits >= 2 && (4*digits >= n || hex == letters)
}

// cutQuery keeps q's head and tail when it is over maxQueryBytes, cut at
// spaces.
func cutQuery(q string) string {
	if len(q) <= maxQueryBytes {
		return q
	}
	return cutAt(q, maxQueryHead, maxQueryBytes-maxQueryHead)
}

// cutAt keeps the first head and last tail bytes of q, cut at spaces.
func cutAt(q string, head, tail int) string {
	h := q[:head]
	if i := strings.LastIndexAny(h, " \n"); i > 0 {
		h = h[:i]
	}
	t := q[len(q)-tail:]
	if i := strings.IndexAny(t, " \n"); i >= 0 {
		t = t[i+1:]
	}
	return h + "\n\n" + t
}

// splitSteps splits query into its steps: list items and lines, sentences,
// and clauses joined by "then", "and", "after that" or a comma. A fragment
// of fewer than minStepKeywords keywords joins the step before it (the
// first joins the next), so that "name and email" stays one step.
func splitSteps(query string) []string {
	var frags []string
	cut := func(s string) {
		if strings.TrimSpace(s) != "" {
			frags = append(frags, s)
		}
	}
	for _, line := range strings.Split(query, "\n") {
		for _, sentence := range splitSentences(trimListMarker(line)) {
			splitClauses(sentence, cut)
		}
	}
	var steps []string
	pending := ""
	for _, f := range frags {
		if pending != "" {
			f = pending + " " + f
			pending = ""
		}
		n := 0
		Keywords(f, func(string) { n++ })
		switch {
		case n >= minStepKeywords:
			steps = append(steps, f)
		case len(steps) > 0:
			steps[len(steps)-1] += " " + f
		default:
			pending = f
		}
	}
	if pending != "" {
		if len(steps) > 0 {
			steps[len(steps)-1] += " " + pending
		} else {
			steps = append(steps, pending)
		}
	}
	if len(steps) > maxSteps {
		// Each step's best is loaded before any step's second: of the
		// steps past maxSteps none would be reached.
		steps = steps[:maxSteps]
	}
	return steps
}

// trimListMarker returns line without the marker of a list item it starts
// with: "1.", "2)", "-", "*" or "•".
func trimListMarker(line string) string {
	t := strings.TrimLeft(line, " \t")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	switch {
	case i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')'):
		return t[i+1:]
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
		return t[2:]
	case strings.HasPrefix(t, "• "):
		return t[len("• "):]
	}
	return line
}

// splitSentences splits line at '.', '?', '!', ';' and ':' followed by a
// space or the end.
func splitSentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '.', '?', '!', ';', ':':
			if i+1 == len(line) || line[i+1] == ' ' {
				out = append(out, line[start:i])
				start = i + 1
			}
		}
	}
	return append(out, line[start:])
}

// splitClauses calls cut with each clause of sentence: split at commas and
// at the words "then", "and", "after that", "afterwards" and "also".
func splitClauses(sentence string, cut func(string)) {
	start := 0
	i := 0
	for i < len(sentence) {
		c := sentence[i]
		if c == ',' {
			cut(sentence[start:i])
			start = i + 1
			i++
			continue
		}
		if c == ' ' {
			w := i + 1
			j := w
			for j < len(sentence) && sentence[j] != ' ' && sentence[j] != ',' {
				j++
			}
			switch strings.ToLower(sentence[w:j]) {
			case "then", "and", "afterwards", "also":
				cut(sentence[start:i])
				start = j
				i = j
				continue
			}
		}
		i++
	}
	cut(sentence[start:])
}
