package toolsearch

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cuca-go/mcpconnector/host"
)

// maxLineBytes bounds the one-line description of a loaded tool.
const maxLineBytes = 200

// Answer runs the search call tc and returns its result block, under
// tc's ID and name: the tools [Table.Find] loads, each with the first
// line of its description, and the further matches by name; or, when the
// arguments are not {"query": "..."}, an error the model can act on.
func (t *Table) Answer(tc host.ToolCall) host.ToolResult {
	out := host.ToolResult{ToolCallID: tc.ID, Name: tc.Name}
	query, problem := searchQuery(tc.Arguments)
	if problem != "" {
		out.IsError = true
		out.Content = fmt.Sprintf("%s needs {\"query\": \"...\"}: %s. Give keywords of the task, or exact tool names separated by commas.", t.cfg.Name, problem)
		return out
	}
	loaded, more := t.Find(query)
	out.Content = t.render(query, loaded, more)
	return out
}

// searchQuery reads the query of a search call's arguments; problem says
// what is wrong with them, for the model.
func searchQuery(args json.RawMessage) (query, problem string) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(args, &in); err != nil || in == nil {
		return "", "the arguments are not a JSON object"
	}
	raw, ok := in["query"]
	if !ok || string(raw) == "null" {
		return "", "\"query\" is missing"
	}
	if err := json.Unmarshal(raw, &query); err != nil {
		return "", "\"query\" is not a string"
	}
	if strings.TrimSpace(query) == "" {
		return "", "\"query\" is empty"
	}
	return query, ""
}

// loadedHeader starts every search result that loaded tools; the lines
// after it, up to the first empty one, are "- <exposed name>: <line>".
// [Table.Loads] reads loads back from it.
const loadedHeader = "Loaded "

// render is the text the model reads of a search.
func (t *Table) render(query string, loaded, more []int) string {
	if len(loaded) == 0 {
		return fmt.Sprintf("No tool matches %q. Try fewer or broader words (the thing to act on, or the action), or names from this tool's list.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d %s; call %s by name from the next step on:\n", loadedHeader, len(loaded), plural(len(loaded), "tool", "tools"), plural(len(loaded), "it", "them"))
	for _, i := range loaded {
		fmt.Fprintf(&b, "- %s: %s\n", t.entries[i].Def.Name, oneLine(t.entries[i].Def.Description))
	}
	if len(more) > 0 {
		b.WriteString("\nAlso matching, not loaded (search for their names to load them): ")
		for k, i := range more {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.entries[i].Def.Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine is the first line of a description, cut to maxLineBytes at a
// character boundary.
func oneLine(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexByte(desc, '\n'); i >= 0 {
		desc = strings.TrimSpace(desc[:i])
	}
	if len(desc) <= maxLineBytes {
		return desc
	}
	return cutAtRune(desc, maxLineBytes) + "…"
}

// cutAtRune cuts s to at most n bytes at a character boundary.
func cutAtRune(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// loadedFrom calls yield with each exposed name a search result of this
// package lists as loaded.
func loadedFrom(content string, yield func(string)) {
	if !strings.HasPrefix(content, loadedHeader) {
		return
	}
	_, rest, _ := strings.Cut(content, "\n")
	for line := range strings.Lines(rest) {
		name, ok := strings.CutPrefix(line, "- ")
		if !ok {
			return
		}
		name, _, _ = strings.Cut(name, ":")
		yield(name)
	}
}
