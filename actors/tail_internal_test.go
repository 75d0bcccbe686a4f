package actors

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// dbhubTail is what the transport keeps of dbhub's stderr when it starts
// without a database (the ERROR line, kept beside a ring of the last
// lines), then the sample configuration's last lines.
var dbhubTail = []string{
	"ERROR: Database connection configuration is required.",
	"  - sqlite: sqlite:///path/to/database.db",
	"",
	"Example TOML config (dbhub.toml):",
	"  [[sources]]",
	`  id = "my_db"`,
	`  dsn = "postgres://user:pass@localhost:5432/dbname"`,
	"",
	"See documentation for more details on configuring database connections.",
}

func TestShortTailKeepsTheFirstErrorLineAndTheLastLines(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, ""},
		{"last three", []string{"a", "b", "c", "d"}, "b | c | d"},
		{"blank lines skipped", []string{"a", "b", "", "  ", "c"}, "a | b | c"},
		{"colours and titles removed", []string{"\x1b[31merror\x1b[0m: bad", "\x1b]0;title\x07done\ttab"}, "error: bad | done tab"},
		{"dbhub without --dsn", dbhubTail,
			`ERROR: Database connection configuration is required. | … | id = "my_db" | dsn = "postgres://user:pass@localhost:5432/dbname" | See documentation for more details on configuring database connections.`},
		{"error line right before the last three", []string{"x", "fatal: no config", "a", "b", "c"}, "fatal: no config | a | b | c"},
		{"error line among the last three", []string{"x", "y", "panic: boom", "a", "b"}, "panic: boom | a | b"},
		{"only the first error line", []string{"Error: first", "Error: second", "m", "a", "b", "c"}, "Error: first | … | a | b | c"},
		{"not found, any case", []string{"module NOT FOUND: x", "1", "2", "3"}, "module NOT FOUND: x | 1 | 2 | 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, shortTail(tc.lines)) })
	}

	long := shortTail([]string{strings.Repeat("x", 4000), strings.Repeat("é", 2000)})
	assert.LessOrEqual(t, len(long), tailBytes)
	assert.True(t, strings.HasPrefix(long, "…"))
	assert.True(t, strings.HasSuffix(long, "é"))

	// A long error line and long last lines share the 512 bytes: the error
	// line's start and the last line's end are kept.
	both := shortTail([]string{"ERROR " + strings.Repeat("e", 1000), "m", "n", "o", strings.Repeat("z", 1000) + " the end"})
	assert.LessOrEqual(t, len(both), tailBytes)
	assert.True(t, strings.HasPrefix(both, "ERROR eee"), both)
	assert.True(t, strings.HasSuffix(both, "z the end"), both)
	assert.Contains(t, both, "… | …")
}
