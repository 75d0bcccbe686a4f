package actors

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShortTailKeepsTheLastLinesWithoutControlSequences(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, ""},
		{"last three", []string{"a", "b", "c", "d"}, "b | c | d"},
		{"blank lines skipped", []string{"a", "b", "", "  ", "c"}, "a | b | c"},
		{"colours and titles removed", []string{"\x1b[31merror\x1b[0m: bad", "\x1b]0;title\x07done\ttab"}, "error: bad | done tab"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, shortTail(tc.lines)) })
	}
	long := shortTail([]string{strings.Repeat("x", 4000), strings.Repeat("é", 2000)})
	assert.LessOrEqual(t, len(long), tailBytes)
	assert.True(t, strings.HasPrefix(long, "…"))
	assert.True(t, strings.HasSuffix(long, "é"))
}
