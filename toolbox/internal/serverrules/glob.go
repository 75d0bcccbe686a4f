package serverrules

// MatchGlob reports whether name matches pattern, the glob language of
// mcpconfig.Server's IncludeTools and ExcludeTools (and of toolbox's
// ServerMatch.URL): '*' matches any run of bytes, none included, and every
// other byte only itself. path.Match is not used: its '?', '[' and '\\'
// would turn ordinary tool names into patterns, and its '*' stops at '/'.
func MatchGlob(pattern, name string) bool {
	p, n := 0, 0
	// star is the pattern index just after the last '*' seen, and resume
	// the name index that '*' will swallow up to on the next backtrack.
	star, resume := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			p++
			star, resume = p, n
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			// Let the last '*' swallow one more byte and retry from there;
			// trying only the last star is enough, as earlier ones could
			// only give a match this one can also find.
			resume++
			p, n = star, resume
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
