package toolsearch

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
)

// Entry is one exposed tool as the search tool sees it.
type Entry struct {
	// Def is the tool's definition under its exposed name (Def.Name).
	Def host.ToolDefinition
	// Tool is the server's tool, under its own name; read-only. Its
	// pointer keys what a [WordCache] keeps.
	Tool *mcp.Tool
	// Server is the server's name; Prefix what its exposed tool names
	// start with.
	Server, Prefix string
	// AlwaysLoad: the server's tools are never deferred.
	AlwaysLoad bool
}

// Config is the search tool's settings, defaults applied.
type Config struct {
	// Name is the search tool's name.
	Name string
	// Results is how many tools one search loads.
	Results int
	// Threshold, in bytes, defers tools only when every entry's
	// [DefinitionBytes] add up to more; zero always defers.
	Threshold int
	// Instructions returns the instructions of an entry's server, which
	// the index reads only when [Defaults] weigh them; nil means none.
	Instructions func(entry int) string
}

// Table is what tool search needs of one list of entries, built once:
// which tools are deferred, the search tool and the index over the
// deferred ones. Indexes are into the entries. It is read-only, safe for
// concurrent use.
type Table struct {
	cfg     Config
	entries []Entry
	// deferred is false when every definition fits under the threshold:
	// then every tool is published and the search tool is not.
	deferred bool
	def      host.ToolDefinition // the search tool
	always   []int               // entries never deferred
	pos      map[string]int      // entry by exposed name
	docs     []int               // the entry of each document of index
	index    *Index              // over the deferred entries
}

// moreMatches is how many further matches a search result names.
const moreMatches = 10

// NewTable builds the table of entries with cfg, their keywords read
// through cache (which may be nil).
func NewTable(entries []Entry, cfg Config, cache *WordCache) *Table {
	t := &Table{cfg: cfg, entries: entries, pos: make(map[string]int, len(entries))}
	var deferred []int
	bytes := 0
	for i, e := range entries {
		t.pos[e.Def.Name] = i
		if cfg.Threshold > 0 {
			bytes += DefinitionBytes(e.Def)
		}
		if e.AlwaysLoad {
			t.always = append(t.always, i)
		} else {
			deferred = append(deferred, i)
		}
	}
	t.deferred = cfg.Threshold == 0 || bytes > cfg.Threshold
	t.indexDeferred(deferred, cache)
	t.cfg.Instructions = nil // read
	t.def = t.definition(deferred)
	return t
}

// indexDeferred indexes the deferred entries, their keywords read through
// cache.
func (t *Table) indexDeferred(deferred []int, cache *WordCache) {
	words := cache.wordsOf(t.entries, deferred)
	docs := make([]Doc, len(deferred))
	for d, i := range deferred {
		e := &t.entries[i]
		docs[d] = Doc{Server: e.Server, Prefix: e.Prefix, Words: words[d]}
		if Defaults.Instructions > 0 && t.cfg.Instructions != nil {
			docs[d].Instructions = t.cfg.Instructions(i)
		}
	}
	t.docs, t.index = deferred, NewIndex(docs, Defaults)
}

// DefinitionBytes is the size of def as JSON with the keys "name",
// "description" and "input_schema": what [Config.Threshold] counts.
func DefinitionBytes(def host.ToolDefinition) int {
	name, _ := json.Marshal(def.Name)
	desc, _ := json.Marshal(def.Description)
	schema := len(def.InputSchema)
	if schema == 0 {
		schema = len("null")
	}
	return len(`{"name":,"description":,"input_schema":}`) + len(name) + len(desc) + schema
}

// searchSchema is the search tool's input.
const searchSchema = `{"type":"object","properties":{"query":{"type":"string",` +
	`"description":"Keywords of what the task needs done, or exact tool names separated by commas"}},"required":["query"]}`

// definition describes the search tool: what it does, then the deferred
// tools' names by server.
func (t *Table) definition(deferred []int) host.ToolDefinition {
	var b strings.Builder
	fmt.Fprintf(&b, "Finds tools of the connected MCP servers and loads them: a loaded tool can be called from the next step on. "+
		"Query with keywords of the task (what to act on and what to do, e.g. \"open pull request\", \"screenshot of the page\") "+
		"to load the %d best matches, or with exact tool names from the list below, separated by commas, to load exactly those. "+
		"Search before saying a tool is missing.\n\nTools to load (%d), by server:", t.cfg.Results, len(deferred))
	server := ""
	for _, i := range t.groupByServer(deferred) {
		e := &t.entries[i]
		if e.Server != server {
			server = e.Server
			n := 0
			for _, j := range deferred {
				if t.entries[j].Server == server {
					n++
				}
			}
			fmt.Fprintf(&b, "\n%s (%d): ", server, n)
		} else {
			b.WriteString(", ")
		}
		b.WriteString(e.Def.Name)
	}
	return host.ToolDefinition{Name: t.cfg.Name, Description: b.String(), InputSchema: json.RawMessage(searchSchema)}
}

// groupByServer orders entries by server, then by their order in the
// table (the toolbox's: by exposed name).
func (t *Table) groupByServer(idx []int) []int {
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int { return strings.Compare(t.entries[a].Server, t.entries[b].Server) })
	return out
}

// Find answers a query: the entries it loads, best first, and up to ten
// further matches. A query of nothing but exposed names separated by
// commas or spaces loads those; else its keywords are searched among the
// deferred entries ([Index.Search]) and the [Config.Results] best load.
func (t *Table) Find(query string) (loaded, more []int) {
	if named := t.named(query); named != nil {
		return named, nil
	}
	ranked := t.index.Search(query, t.cfg.Results+moreMatches)
	for k, d := range ranked {
		ranked[k] = t.docs[d]
	}
	if len(ranked) > t.cfg.Results {
		return ranked[:t.cfg.Results], ranked[t.cfg.Results:]
	}
	return ranked, nil
}

// named returns the entries query names when it is nothing but exposed
// names separated by commas or spaces, each once; else nil.
func (t *Table) named(query string) []int {
	var out []int
	for f := range strings.FieldsFuncSeq(query, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		i, ok := t.pos[f]
		if !ok {
			return nil
		}
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// Publish adds to req the tools of its conversation: the search tool, the
// entries marked AlwaysLoad and those req.Messages have loaded ([Table.Loads]),
// in the order they were loaded; or, when nothing is deferred, every
// entry and no search tool. Each goes in once, and none req.Tools has
// already.
func (t *Table) Publish(req *host.Request) {
	pub := publisher{t: t, req: req, seen: make([]bool, len(t.entries))}
	if len(req.Tools) > 0 {
		pub.preset = make(map[string]struct{}, len(req.Tools))
		for _, d := range req.Tools {
			pub.preset[d.Name] = struct{}{}
		}
	}
	if !t.deferred {
		for i := range t.entries {
			pub.add(i)
		}
		return
	}
	if !pub.has(t.def.Name) {
		req.Tools = append(req.Tools, t.def)
	}
	for _, i := range t.always {
		pub.add(i)
	}
	t.Loads(req.Messages, pub.add)
}

// publisher adds a table's definitions to a request, each once, none the
// request had already.
type publisher struct {
	t      *Table
	req    *host.Request
	seen   []bool              // by entry
	preset map[string]struct{} // the names the host put in; nil if none
}

// has reports whether the host put name in req.Tools itself.
func (p *publisher) has(name string) bool {
	_, ok := p.preset[name]
	return ok
}

func (p *publisher) add(i int) {
	if p.seen[i] {
		return
	}
	p.seen[i] = true
	if def := p.t.entries[i].Def; !p.has(def.Name) {
		p.req.Tools = append(p.req.Tools, def)
	}
}

// Loads calls yield with each entry msgs has loaded, in the order they
// were first loaded; tools that have since gone are skipped. A tool call
// of an entry loads it, as does a search result ([Table.Answer]) whose
// block names the search tool or answers a call of it, and is not an
// error.
func (t *Table) Loads(msgs []host.Message, yield func(int)) {
	search := t.cfg.Name
	var searchCalls []string // IDs of the search's calls, for results that lost their name
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b := b.(type) {
			case host.ToolCall:
				if b.Name == search {
					searchCalls = append(searchCalls, b.ID)
				} else if i, ok := t.pos[b.Name]; ok {
					yield(i)
				}
			case host.ToolResult:
				switch {
				case b.Name == search || b.Name == "" && slices.Contains(searchCalls, b.ToolCallID):
					if !b.IsError {
						loadedFrom(b.Content, func(name string) {
							if i, ok := t.pos[name]; ok {
								yield(i)
							}
						})
					}
				default:
					if i, ok := t.pos[b.Name]; ok {
						yield(i)
					}
				}
			}
		}
	}
}
