package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/toolsearch"
)

// ToolSearch configures tool search ([WithToolSearch]). The zero value
// gives the defaults.
type ToolSearch struct {
	// Name is the search tool's name, 1 to [MaxNameLength] of
	// [A-Za-z0-9_-] ([Open] fails otherwise); "" means
	// [DefaultToolSearchName].
	Name string
	// Results is how many tools one search loads; zero or negative means
	// [DefaultToolSearchResults].
	Results int
	// Threshold, in bytes, defers tools only when the JSON of every exposed
	// definition (name, description, schema) adds up to more; zero or
	// negative always defers.
	Threshold int
	// NoInstructions leaves the servers' instructions out of requests.
	NoInstructions bool
}

// Tool search's defaults and bounds.
const (
	// DefaultToolSearchName is the search tool's name unless
	// [ToolSearch.Name] says otherwise.
	DefaultToolSearchName = "tool_search"
	// DefaultToolSearchResults is how many tools a search loads unless
	// [ToolSearch.Results] says otherwise.
	DefaultToolSearchResults = 5
	// MaxInstructionsBytes bounds what [Toolbox.OnRequest] passes on of
	// each server's instructions; longer ones are cut with a marker.
	MaxInstructionsBytes = 2048
	// moreMatches is how many further matches a search result names.
	moreMatches = 10
	// maxLineBytes bounds the one-line description of a loaded tool.
	maxLineBytes = 200
)

// WithToolSearch defers tool definitions: instead of every tool of every
// server, [Toolbox.OnRequest] gives the model one search tool, whose
// description lists the deferred tools by exposed name, plus the tools of
// servers marked "alwaysLoad" and those the conversation has loaded. A
// search, answered by [Toolbox.OnStreamChunk] without a server round trip,
// loads the tools that best match its query (or the ones it names), and
// they join the next request. Loads are read from the conversation's own
// messages (the search results and the tool calls in it), so they belong
// to that conversation and survive its being saved and resumed by another
// process with a toolbox over the same mcp.json. A host that uses tool
// search lets OnRequest publish the tools and does not add
// [Toolbox.ToolDefinitions] itself. With it, OnRequest also passes on the
// servers' instructions as a system message unless
// [ToolSearch.NoInstructions]. [Toolbox.Tools], [Toolbox.HasTool] and
// [Toolbox.CallTool] know the servers' tools only, not the search tool; a
// server tool exposed under the search tool's name is a collision
// ([ErrNameCollision]). Without this option OnRequest does nothing.
func WithToolSearch(s ToolSearch) Option {
	if s.Name == "" {
		s.Name = DefaultToolSearchName
	}
	if s.Results <= 0 {
		s.Results = DefaultToolSearchResults
	}
	s.Threshold = max(s.Threshold, 0)
	return optionFunc(func(o *options) { o.search = &s })
}

// validate checks the search tool's name, which models' APIs restrict as
// they do any tool's; a nil s is valid.
func (s *ToolSearch) validate() error {
	if s == nil {
		return nil
	}
	if len(s.Name) > MaxNameLength || ExposedName("", s.Name) != s.Name {
		return fmt.Errorf("toolbox: tool search name %q: want 1 to %d of [A-Za-z0-9_-]", s.Name, MaxNameLength)
	}
	return nil
}

// searchRoute is the route of the search tool's name in a table's hooks:
// it goes to no server.
var searchRoute = &route{}

// searchTable is what tool search needs of one route table, built on first
// use: which tools are deferred, the search tool and the index.
type searchTable struct {
	// deferred is false when every definition fits under the threshold:
	// then every tool is published and the search tool is not.
	deferred bool
	// bytes is the size of every exposed definition's JSON, together;
	// counted only for a threshold.
	bytes  int
	def    host.ToolDefinition // the search tool
	always []int               // table indexes of never-deferred tools
	pos    map[string]int      // table index by exposed name
	index  *searchIndex        // over the deferred tools
}

// searchState returns rt's search table, building it on first use.
func (rt *routeTable) searchState(cfg *ToolSearch, cache *wordCache) *searchTable {
	rt.searchOnce.Do(func() { rt.search = newSearchTable(rt, cfg, cache) })
	return rt.search
}

func newSearchTable(rt *routeTable, cfg *ToolSearch, cache *wordCache) *searchTable {
	st := &searchTable{pos: make(map[string]int, len(rt.tools))}
	var deferred []int
	for i, tl := range rt.tools {
		st.pos[tl.Name] = i
		if cfg.Threshold > 0 {
			st.bytes += DefinitionBytes(rt.defs[i])
		}
		if rt.byName[tl.Name].server.cfg.AlwaysLoad {
			st.always = append(st.always, i)
		} else {
			deferred = append(deferred, i)
		}
	}
	st.deferred = cfg.Threshold == 0 || st.bytes > cfg.Threshold
	st.index = newSearchIndex(rt, deferred, cache)
	st.def = searchDefinition(rt, cfg, deferred)
	return st
}

// DefinitionBytes is the size of def as JSON with the keys "name",
// "description" and "input_schema": what [WithToolSearch]'s threshold
// counts.
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

// searchDefinition describes the search tool: what it does, then the
// deferred tools' names by server.
func searchDefinition(rt *routeTable, cfg *ToolSearch, deferred []int) host.ToolDefinition {
	var b strings.Builder
	fmt.Fprintf(&b, "Finds tools of the connected MCP servers and loads them: a loaded tool can be called from the next step on. "+
		"Query with keywords of the task (what to act on and what to do, e.g. \"open pull request\", \"screenshot of the page\") "+
		"to load the %d best matches, or with exact tool names from the list below, separated by commas, to load exactly those. "+
		"Search before saying a tool is missing.\n\nTools to load (%d), by server:", cfg.Results, len(deferred))
	server := ""
	for _, i := range groupByServer(rt, deferred) {
		tl := rt.tools[i]
		if tl.Server != server {
			server = tl.Server
			n := 0
			for _, j := range deferred {
				if rt.tools[j].Server == server {
					n++
				}
			}
			fmt.Fprintf(&b, "\n%s (%d): ", server, n)
		} else {
			b.WriteString(", ")
		}
		b.WriteString(tl.Name)
	}
	return host.ToolDefinition{Name: cfg.Name, Description: b.String(), InputSchema: json.RawMessage(searchSchema)}
}

// groupByServer orders table indexes by server, then by exposed name.
func groupByServer(rt *routeTable, idx []int) []int {
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int { return strings.Compare(rt.tools[a].Server, rt.tools[b].Server) })
	return out
}

// Search returns the tools a tool search for query loads, best first: the
// exposed tools it names, when it is only exposed names separated by
// commas or spaces, else the best matches of its keywords among the
// deferred tools, at most [ToolSearch.Results] of them. A long query that
// reads as several steps is searched step by step, each step's best first
// (docs/toolbox.md, "Tool search"). It is what the
// search tool answers the model, for hosts that show or test it; without
// [WithToolSearch] it returns nil.
func (t *Toolbox) Search(query string) []Tool {
	if t.search == nil {
		return nil
	}
	rt := t.routes.Load()
	loaded, _ := rt.searchState(t.search, &t.words).find(query, t.search.Results)
	out := make([]Tool, len(loaded))
	for i, j := range loaded {
		out[i] = rt.tools[j]
	}
	return out
}

// find answers a query: the table indexes it loads and up to moreMatches
// further matches.
func (st *searchTable) find(query string, results int) (loaded, more []int) {
	if named := st.named(query); named != nil {
		return named, nil
	}
	ranked := st.index.search(query, results+moreMatches)
	if len(ranked) > results {
		return ranked[:results], ranked[results:]
	}
	return ranked, nil
}

// named returns the tools query names when it is nothing but exposed
// names separated by commas or spaces, each once; else nil.
func (st *searchTable) named(query string) []int {
	var out []int
	for f := range strings.FieldsFuncSeq(query, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		i, ok := st.pos[f]
		if !ok {
			return nil
		}
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// answerSearch runs the search call tc and returns its result block.
func (t *Toolbox) answerSearch(rt *routeTable, tc host.ToolCall) host.ToolResult {
	out := host.ToolResult{ToolCallID: tc.ID, Name: tc.Name}
	query, problem := searchQuery(tc.Arguments)
	if problem != "" {
		out.IsError = true
		out.Content = fmt.Sprintf("%s needs {\"query\": \"...\"}: %s. Give keywords of the task, or exact tool names separated by commas.", t.search.Name, problem)
		return out
	}
	st := rt.searchState(t.search, &t.words)
	loaded, more := st.find(query, t.search.Results)
	out.Content = renderSearch(rt, query, loaded, more)
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
// [Toolbox.OnRequest] reads loads back from it.
const loadedHeader = "Loaded "

// renderSearch is the text the model reads of a search.
func renderSearch(rt *routeTable, query string, loaded, more []int) string {
	if len(loaded) == 0 {
		return fmt.Sprintf("No tool matches %q. Try fewer or broader words (the thing to act on, or the action), or names from this tool's list.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d %s; call %s by name from the next step on:\n", loadedHeader, len(loaded), plural(len(loaded), "tool", "tools"), plural(len(loaded), "it", "them"))
	for _, i := range loaded {
		fmt.Fprintf(&b, "- %s: %s\n", rt.tools[i].Name, oneLine(rt.defs[i].Description))
	}
	if len(more) > 0 {
		b.WriteString("\nAlso matching, not loaded (search for their names to load them): ")
		for k, i := range more {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(rt.tools[i].Name)
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
	cut := maxLineBytes
	for cut > 0 && !utf8.RuneStart(desc[cut]) {
		cut--
	}
	return desc[:cut] + "…"
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

// OnRequest publishes the tools of the conversation when tool search is on
// ([WithToolSearch]); without it, it does nothing. It adds the search
// tool, the tools of servers marked "alwaysLoad" and the tools this
// conversation has loaded (a search result in req.Messages listed them, or
// a tool call named them), in the order they were loaded, each once and
// none already in req.Tools. When nothing is deferred (every definition
// together is within [ToolSearch.Threshold]) it adds every exposed tool and
// no search tool. Unless [ToolSearch.NoInstructions], it also adds the
// servers' instructions ([plugin.McpPlugin.Instructions]), each cut at
// [MaxInstructionsBytes], as one system message after the leading system
// messages, unless the request has it already. It always returns nil.
func (t *Toolbox) OnRequest(_ context.Context, req *host.Request) error {
	if t.search == nil || req == nil {
		return nil
	}
	t.touch()
	rt := t.routes.Load()
	st := rt.searchState(t.search, &t.words)
	pub := publisher{req: req, seen: make([]bool, len(rt.defs))}
	if len(req.Tools) > 0 {
		pub.preset = make(map[string]struct{}, len(req.Tools))
		for _, d := range req.Tools {
			pub.preset[d.Name] = struct{}{}
		}
	}
	if !st.deferred {
		for i := range rt.defs {
			pub.add(rt, i)
		}
	} else {
		if _, dup := pub.preset[st.def.Name]; !dup {
			req.Tools = append(req.Tools, st.def)
		}
		for _, i := range st.always {
			pub.add(rt, i)
		}
		st.loads(t.search.Name, req.Messages, func(i int) { pub.add(rt, i) })
	}
	if !t.search.NoInstructions {
		t.addInstructions(req)
	}
	return nil
}

// publisher adds a table's definitions to a request, each once, none the
// request had already.
type publisher struct {
	req    *host.Request
	seen   []bool              // by table index
	preset map[string]struct{} // the names the host put in; nil if none
}

func (p *publisher) add(rt *routeTable, i int) {
	if p.seen[i] {
		return
	}
	p.seen[i] = true
	if _, dup := p.preset[rt.defs[i].Name]; !dup {
		p.req.Tools = append(p.req.Tools, rt.defs[i])
	}
}

// loads calls yield with the table index of each tool msgs has loaded, in
// the order they were first loaded; tools that have since gone are
// skipped. A search result counts when its block names the search tool
// or answers a call of it, and is not an error.
func (st *searchTable) loads(search string, msgs []host.Message, yield func(int)) {
	var searchCalls []string // IDs of the search's calls, for results that lost their name
	for _, m := range msgs {
		for _, b := range m.Blocks {
			switch b := b.(type) {
			case host.ToolCall:
				if b.Name == search {
					searchCalls = append(searchCalls, b.ID)
				} else if i, ok := st.pos[b.Name]; ok {
					yield(i)
				}
			case host.ToolResult:
				switch {
				case b.Name == search || b.Name == "" && slices.Contains(searchCalls, b.ToolCallID):
					if !b.IsError {
						loadedFrom(b.Content, func(name string) {
							if i, ok := st.pos[name]; ok {
								yield(i)
							}
						})
					}
				default:
					if i, ok := st.pos[b.Name]; ok {
						yield(i)
					}
				}
			}
		}
	}
}

// instructionsHeader opens the system message of the servers'
// instructions; a request that has a system message starting with it is
// not given another.
const instructionsHeader = "Instructions from the MCP servers whose tools you can use:"

// cutMarker ends instructions cut at MaxInstructionsBytes.
const cutMarker = "\n[instructions cut]"

// addInstructions adds the servers' instructions to req as one system
// message, unless none has any or req has the message already.
func (t *Toolbox) addInstructions(req *host.Request) {
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
	text := t.instructions()
	if text == "" {
		return
	}
	// A new slice: the host's conversation may share req.Messages' array.
	msgs := make([]host.Message, 0, len(req.Messages)+1)
	msgs = append(msgs, req.Messages[:lead]...)
	msgs = append(msgs, host.Message{Role: host.RoleSystem, Blocks: []host.Block{host.Text{Text: text}}})
	req.Messages = append(msgs, req.Messages[lead:]...)
}

// instructionsText is the system message of the servers' instructions,
// kept with the instructions it was made from: it is made again only when
// one of them changes.
type instructionsText struct {
	from []string // each server's instructions, in t.names order
	text string
}

// instructions returns the system message of the servers' instructions,
// "" when none has any.
func (t *Toolbox) instructions() string {
	var buf [16]string
	from := buf[:0]
	for _, name := range t.names {
		if s := t.servers[name]; s.plugin() != nil {
			from = append(from, serverInstructions(s))
		} else {
			from = append(from, "")
		}
	}
	if c := t.instrCache.Load(); c != nil && slices.Equal(c.from, from) {
		return c.text
	}
	var b strings.Builder
	for i, name := range t.names {
		text := strings.TrimSpace(from[i])
		if text == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(instructionsHeader)
		}
		fmt.Fprintf(&b, "\n\n## %s\n%s", name, cutInstructions(text))
	}
	t.instrCache.Store(&instructionsText{from: slices.Clone(from), text: b.String()})
	return b.String()
}

// cutInstructions cuts text to MaxInstructionsBytes, marker included, at a
// character boundary.
func cutInstructions(text string) string {
	if len(text) <= MaxInstructionsBytes {
		return text
	}
	cut := MaxInstructionsBytes - len(cutMarker)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + cutMarker
}

// searchIndex is the search engine's index over a table's deferred tools.
type searchIndex struct {
	docs  []int // table index of each document
	index *toolsearch.Index
}

// newSearchIndex indexes the deferred tools of rt, their keywords read
// through cache.
func newSearchIndex(rt *routeTable, deferred []int, cache *wordCache) *searchIndex {
	words := cache.wordsOf(rt, deferred)
	docs := make([]toolsearch.Doc, len(deferred))
	for d, i := range deferred {
		s := rt.byName[rt.tools[i].Name].server
		docs[d] = toolsearch.Doc{Server: rt.tools[i].Server, Prefix: s.cfg.ToolPrefix(), Words: words[d]}
		if toolsearch.Defaults.Instructions > 0 {
			docs[d].Instructions = serverInstructions(s)
		}
	}
	return &searchIndex{docs: deferred, index: toolsearch.NewIndex(docs, toolsearch.Defaults)}
}

// search returns the table indexes of the limit best matches of query.
func (idx *searchIndex) search(query string, limit int) []int {
	out := idx.index.Search(query, limit)
	for k, d := range out {
		out[k] = idx.docs[d]
	}
	return out
}

// wordCache keeps each tool's keywords from one index to the next: a
// server's tools, shared read-only by its plugin's list, keep their
// pointers until that list changes, so an index rebuilt because another
// server came or went reads only what is new.
type wordCache struct {
	mu    sync.Mutex
	words map[*mcp.Tool][]toolsearch.Word
}

// wordsOf returns the keywords of each deferred tool, reading those it has
// not seen, and forgets the tools no longer in rt.
func (c *wordCache) wordsOf(rt *routeTable, deferred []int) [][]toolsearch.Word {
	out := make([][]toolsearch.Word, len(deferred))
	if c == nil {
		for d, i := range deferred {
			out[d] = toolWords(rt.tools[i].Tool, rt.defs[i])
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := make(map[*mcp.Tool][]toolsearch.Word, len(deferred))
	for d, i := range deferred {
		tool := rt.tools[i].Tool
		ws, ok := c.words[tool]
		if !ok {
			ws = toolWords(tool, rt.defs[i])
		}
		kept[tool] = ws
		out[d] = ws
	}
	c.words = kept
	return out
}

// toolWords lists the keywords of a tool: its own name, its title (or
// its annotations'), and its definition's description and schema.
func toolWords(tool *mcp.Tool, def host.ToolDefinition) []toolsearch.Word {
	title := tool.Title
	if title == "" && tool.Annotations != nil {
		title = tool.Annotations.Title
	}
	in := toolsearch.Tool{Name: tool.Name, Title: title, Description: def.Description, InputSchema: def.InputSchema}
	// A listed tool's schema is decoded already: reading it is cheaper
	// than decoding the definition's JSON again.
	if params, ok := toolsearch.ParamsOf(tool.InputSchema); ok {
		in.Params = params
	}
	return toolsearch.Words(in)
}

// searchTableState is the lazily built search part of a route table.
type searchTableState struct {
	searchOnce sync.Once
	search     *searchTable
}

// serverInstructions is what s answered in server/discover.
func serverInstructions(s *server) string {
	if p := s.plugin(); p != nil {
		return p.Instructions()
	}
	return ""
}
