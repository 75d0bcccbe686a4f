package toolbox

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// maxNameLength is the longest tool name OpenAI-compatible APIs accept
// (their pattern is ^[a-zA-Z0-9_-]{1,64}$).
const maxNameLength = 64

// hashSuffixLength is '_' and 8 hex digits, what a cut name ends with.
const hashSuffixLength = 9

// exposedName returns the name under which the model sees a server's tool:
// prefix+tool with every character outside [A-Za-z0-9_-] replaced by '_'
// (one '_' per character, however many bytes it takes; one per byte of
// invalid UTF-8). A result longer than 64 bytes (the longest tool name
// OpenAI-compatible APIs accept) is cut to 55 bytes followed by '_' and
// the 8 lowercase hex digits of the FNV-1a 32-bit hash of the unsanitised
// prefix+tool: names that differ only past the cut, or only in replaced characters, still differ, and the
// same input gives the same name in every process. An empty prefix+tool
// gives "_".
//
// Sanitising can make two short names equal ("a.b" and "a_b"); callers that
// expose several tools must check for that.
func exposedName(prefix, tool string) string {
	full := prefix + tool
	if full == "" {
		return "_"
	}
	var b strings.Builder
	b.Grow(len(full))
	for _, r := range full {
		if r < 0x80 && isNameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= maxNameLength {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(full)) // never fails
	return fmt.Sprintf("%s_%08x", name[:maxNameLength-hashSuffixLength], h.Sum32())
}

// isNameByte reports whether c may appear in an exposed tool name.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
