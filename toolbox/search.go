package toolbox

import (
	"context"
	"fmt"
	"sync"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
	"github.com/cuca-go/mcpconnector/toolbox/internal/toolsearch"
)

// ToolSearch configures tool search ([WithToolSearch]). The zero value
// gives the defaults.
type ToolSearch struct {
	// Name is the search tool's name, 1 to 64 of
	// [A-Za-z0-9_-] ([Open] fails otherwise); "" means
	// [DefaultToolSearchName].
	Name string
	// Results is how many tools one search loads; zero or negative means
	// 5.
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
	// defaultToolSearchResults is how many tools a search loads unless
	// [ToolSearch.Results] says otherwise.
	defaultToolSearchResults = 5
	// maxInstructionsBytes bounds what [Toolbox.OnRequest] passes on of
	// each server's instructions; longer ones are cut with a marker.
	maxInstructionsBytes = 2048
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
		s.Results = defaultToolSearchResults
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
	if len(s.Name) > maxNameLength || exposedName("", s.Name) != s.Name {
		return fmt.Errorf("toolbox: tool search name %q: want 1 to %d of [A-Za-z0-9_-]", s.Name, maxNameLength)
	}
	return nil
}

// searchRoute is the route of the search tool's name in a table's hooks:
// it goes to no server.
var searchRoute = &route{}

// searchState returns rt's search table, building it on first use.
func (rt *routeTable) searchState(cfg *ToolSearch, cache *toolsearch.WordCache) *toolsearch.Table {
	rt.searchOnce.Do(func() { rt.search = newSearchTable(rt, cfg, cache) })
	return rt.search
}

// newSearchTable gives the search engine rt's tools (package toolsearch).
func newSearchTable(rt *routeTable, cfg *ToolSearch, cache *toolsearch.WordCache) *toolsearch.Table {
	entries := make([]toolsearch.Entry, len(rt.tools), len(rt.tools)+len(rt.own))
	for i, tl := range rt.tools {
		sc := rt.byName[tl.Name].server.cfg
		entries[i] = toolsearch.Entry{Def: rt.defs[i], Tool: tl.Tool, Server: tl.Server, Prefix: serverrules.ToolPrefix(sc), AlwaysLoad: sc.AlwaysLoad}
	}
	for _, o := range rt.own { // the toolbox's own, after the servers'
		entries = append(entries, toolsearch.Entry{Def: resourcetools.Definition(o.Tool), Tool: o.Tool})
	}
	return toolsearch.NewTable(entries, toolsearch.Config{Name: cfg.Name, Results: cfg.Results, Threshold: cfg.Threshold,
		Instructions: func(i int) string {
			if i >= len(rt.tools) {
				return ""
			}
			return serverInstructions(rt.byName[rt.tools[i].Name].server)
		}}, cache)
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
	loaded, _ := rt.searchState(t.search, &t.words).Find(query)
	out := make([]Tool, len(loaded))
	for i, j := range loaded {
		if j >= len(rt.tools) {
			out[i] = rt.own[j-len(rt.tools)]
			continue
		}
		out[i] = rt.tools[j]
	}
	return out
}

// answerSearch runs the search call tc and returns its result block.
func (t *Toolbox) answerSearch(rt *routeTable, tc host.ToolCall) host.ToolResult {
	return rt.searchState(t.search, &t.words).Answer(tc)
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
// 2 KiB, as one system message after the leading system messages, unless
// the request has it already. It always returns nil.
func (t *Toolbox) OnRequest(_ context.Context, req *host.Request) error {
	if t.search == nil || req == nil {
		return nil
	}
	t.touch()
	t.routes.Load().searchState(t.search, &t.words).Publish(req)
	if !t.search.NoInstructions {
		t.instructions.AddTo(req, maxInstructionsBytes, t.names, func(name string) string { return serverInstructions(t.servers[name]) })
	}
	return nil
}

// searchCaches are what tool search keeps from one route table to the
// next: the tools' keywords and the servers' instructions.
type searchCaches struct {
	words        toolsearch.WordCache
	instructions toolsearch.Instructions
}

// searchTableState is the lazily built search part of a route table.
type searchTableState struct {
	searchOnce sync.Once
	search     *toolsearch.Table
}

// serverInstructions is what s answered in server/discover.
func serverInstructions(s *server) string {
	if p := s.plugin(); p != nil {
		return p.Instructions()
	}
	return ""
}
