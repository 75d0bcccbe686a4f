package serverrules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"search", "search", true},
		{"search", "searches", false},
		{"search", "Search", false},
		{"search_*", "search_web", true},
		{"search_*", "search_", true},
		{"search_*", "search", false},
		{"*_files", "list_files", true},
		{"*_files", "list_files_x", false},
		{"*", "", true},
		{"*", "anything at all", true},
		{"", "", true},
		{"", "x", false},
		{"**", "x", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
		{"a*ab", "aab", true},
		{"*ab", "aaab", true},
		{"a*a*a", "aaaa", true},
		{"a*a*a", "aa", false},
		{"x/*", "x/y/z", true},
		{"a?c", "abc", false},
		{"a?c", "a?c", true},
		{"[ab]", "a", false},
		{"[ab]", "[ab]", true},
		{`a\*`, `a\x`, true},
		{"é*", "équipe", true},
	}
	for _, c := range cases {
		t.Run(c.pattern+" "+c.name, func(t *testing.T) {
			assert.Equal(t, c.want, MatchGlob(c.pattern, c.name))
		})
	}
}
