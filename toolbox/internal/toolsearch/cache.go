package toolsearch

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
)

// WordCache keeps each tool's keywords from one table to the next: a
// server's tools, shared read-only by its plugin's list, keep their
// pointers until that list changes, so a table rebuilt because another
// server came or went reads only what is new. The zero value is ready;
// it is safe for concurrent use.
type WordCache struct {
	mu    sync.Mutex
	words map[*mcp.Tool][]Word
}

// wordsOf returns the keywords of each deferred entry, reading those it
// has not seen, and forgets the tools no longer among them. A nil c reads
// them all.
func (c *WordCache) wordsOf(entries []Entry, deferred []int) [][]Word {
	out := make([][]Word, len(deferred))
	if c == nil {
		for d, i := range deferred {
			out[d] = toolWords(entries[i].Tool, entries[i].Def)
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := make(map[*mcp.Tool][]Word, len(deferred))
	for d, i := range deferred {
		tool := entries[i].Tool
		ws, ok := c.words[tool]
		if !ok {
			ws = toolWords(tool, entries[i].Def)
		}
		kept[tool] = ws
		out[d] = ws
	}
	c.words = kept
	return out
}

// toolWords lists the keywords of a tool: its own name, its title (or
// its annotations'), and its definition's description and schema.
func toolWords(tool *mcp.Tool, def host.ToolDefinition) []Word {
	title := tool.Title
	if title == "" && tool.Annotations != nil {
		title = tool.Annotations.Title
	}
	in := Tool{Name: tool.Name, Title: title, Description: def.Description, InputSchema: def.InputSchema}
	// A listed tool's schema is decoded already: reading it is cheaper
	// than decoding the definition's JSON again.
	if params, ok := ParamsOf(tool.InputSchema); ok {
		in.Params = params
	}
	return Words(in)
}
