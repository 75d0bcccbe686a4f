package toolsearch

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cuca-go/mcpconnector/host"
)

// instructionsHeader opens the system message of the servers'
// instructions; a request that has a system message starting with it is
// not given another.
const instructionsHeader = "Instructions from the MCP servers whose tools you can use:"

// cutMarker ends instructions that were cut.
const cutMarker = "\n[instructions cut]"

// Instructions makes the system message of the servers' instructions and
// keeps it with the instructions it was made from: it is made again only
// when one of them changes. The zero value is ready; it is safe for
// concurrent use.
type Instructions struct {
	last atomic.Pointer[instructionsText]
}

// instructionsText is a system message and what it was made from.
type instructionsText struct {
	from []string // each server's instructions, in order
	max  int      // the bound they were cut to
	text string
}

// AddTo adds the instructions of servers (in that order; of returns one
// server's, "" for none) to req as one system message, after its leading
// system messages, each server's cut with a marker to at most maxBytes;
// unless none has any or req has the message already.
func (in *Instructions) AddTo(req *host.Request, maxBytes int, servers []string, of func(server string) string) {
	lead := 0
	for i, m := range req.Messages {
		if m.Role != host.RoleSystem {
			break
		}
		lead = i + 1
	}
	for _, m := range req.Messages {
		if m.Role == host.RoleSystem && len(m.Blocks) > 0 {
			if txt, ok := m.Blocks[0].(host.Text); ok && strings.HasPrefix(txt.Text, instructionsHeader) {
				return
			}
		}
	}
	text := in.text(maxBytes, servers, of)
	if text == "" {
		return
	}
	// A new slice: the host's conversation may share req.Messages' array.
	msgs := make([]host.Message, 0, len(req.Messages)+1)
	msgs = append(msgs, req.Messages[:lead]...)
	msgs = append(msgs, host.Message{Role: host.RoleSystem, Blocks: []host.Block{host.Text{Text: text}}})
	req.Messages = append(msgs, req.Messages[lead:]...)
}

// text returns the system message of the servers' instructions, "" when
// none has any.
func (in *Instructions) text(maxBytes int, servers []string, of func(string) string) string {
	var buf [16]string
	from := buf[:0]
	for _, name := range servers {
		from = append(from, of(name))
	}
	if c := in.last.Load(); c != nil && c.max == maxBytes && slices.Equal(c.from, from) {
		return c.text
	}
	var b strings.Builder
	for i, name := range servers {
		text := strings.TrimSpace(from[i])
		if text == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(instructionsHeader)
		}
		fmt.Fprintf(&b, "\n\n## %s\n%s", name, cutInstructions(text, maxBytes))
	}
	in.last.Store(&instructionsText{from: slices.Clone(from), max: maxBytes, text: b.String()})
	return b.String()
}

// cutInstructions cuts text to maxBytes, marker included, at a character
// boundary.
func cutInstructions(text string, maxBytes int) string {
	if len(text) <= maxBytes {
		return text
	}
	return cutAtRune(text, maxBytes-len(cutMarker)) + cutMarker
}
