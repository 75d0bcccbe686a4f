// Package safetext makes a string that a server, a network or a config
// file supplied safe to show: in an error, a tool result's text, a log
// line or an approval prompt, no control character of it reaches a
// terminal.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every control character (C0 including \t, \r and
// \n, DEL, C1), every bidirectional formatting character (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069), the line and paragraph separators
// and every byte that is not UTF-8 written as a Go escape (\x1b, \r,
// \u0085, \u202e, \xff), and every backslash doubled, so that what is shown
// is what is there: a terminal can neither be driven (colours, hidden text,
// a cursor moved or a line erased, a clipboard written through OSC 52) nor
// made to show the text in another order. Printable text, spaces included,
// is kept as it is, and s is returned as is when nothing needs escaping.
func Escape(s string) string { return escape(s, true) }

// Clean is [Escape] that keeps backslashes as they are: for the text of an
// error or a tool result, where a path such as C:\tmp reads better as it
// is and no one takes an escape for the character it names.
func Clean(s string) string { return escape(s, false) }

func escape(s string, backslash bool) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) || (backslash && r == '\\') {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case backslash && r == '\\':
			b.WriteString(`\\`)
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case needsEscape(r, n):
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\r', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether the rune r, n bytes long, is escaped.
func needsEscape(r rune, n int) bool {
	if r == utf8.RuneError && n == 1 {
		return true
	}
	if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
		return true
	}
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return unicode.IsControl(r)
}
