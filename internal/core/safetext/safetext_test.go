package safetext

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscapeShowsEveryControlCharacter(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain text is kept", "add two numbers: 1 + 2 = 3", "add two numbers: 1 + 2 = 3"},
		{"unicode letters are kept", "résumé 日本語 🙂", "résumé 日本語 🙂"},
		{"hidden text (SGR 8)", "--ok\x1b[8mhidden", `--ok\x1b[8mhidden`},
		{"carriage return and erase line", "sh #\r\x1b[2K  printf '{}'", `sh #\r\x1b[2K  printf '{}'`},
		{"OSC 52 clipboard write", "\x1b]52;c;ZWNobyBwd25lZA==\x07", `\x1b]52;c;ZWNobyBwd25lZA==\a`},
		{"OSC title with ST", "\x1b]0;title\x1b\\done", `\x1b]0;title\x1b\\done`},
		{"C1 CSI", "a\u009b31mred", `a\u009b31mred`},
		{"C1 NEL", "line\u0085next", `line\u0085next`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"backspace overwriting", "safe\b\b\b\bevil", `safe\b\b\b\bevil`},
		{"bidi override (Trojan Source)", "ab\u202ecd\u202c", `ab\u202ecd\u202c`},
		{"bidi isolates", "x\u2066y\u2069", `x\u2066y\u2069`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid UTF-8", "a\xffb\xc0", `a\xffb\xc0`},
		{"a backslash is doubled, so an escape cannot be forged", `a\x1b`, `a\\x1b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Escape(tc.in))
		})
	}
}

func TestEscapeAllocatesNothingForCleanText(t *testing.T) {
	s := "a clean error message from a server"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Escape(s) }))
}

func TestCleanKeepsBackslashes(t *testing.T) {
	assert.Equal(t, `C:\tmp\x1b[31m`, Clean("C:\\tmp\x1b[31m"))
	assert.Equal(t, `no such file: C:\tmp`, Clean(`no such file: C:\tmp`))
}
