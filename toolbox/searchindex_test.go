package toolbox

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/plugin"
)

func TestKeywordsSplitStemAndDropStopWords(t *testing.T) {
	var got []string
	keywords("Take the screenshots of getHTTPResponse pages, in 1Password's vault_list", func(k string) { got = append(got, k) })
	assert.Equal(t, []string{"take", "screenshot", "get", "http", "respons", "page", "1password", "vault", "list"}, got)
	for _, pair := range [][2]string{{"creating", "create"}, {"creation", "created"}, {"directories", "directory"}, {"running", "run"}, {"memorable", "memorize"}} {
		assert.Equal(t, stem(pair[0]), stem(pair[1]), pair)
	}
}

func TestWordCacheReadsOnlyNewToolsAndForgetsGoneOnes(t *testing.T) {
	a := &mcp.Tool{Name: "read_file", Description: "Read a file"}
	b := &mcp.Tool{Name: "write_file", Description: "Write a file"}
	rt := &routeTable{
		tools: []Tool{{Name: "fs__read_file", Server: "fs", Tool: a}, {Name: "fs__write_file", Server: "fs", Tool: b}},
		defs: []plugin.ToolDefinition{{Name: "fs__read_file", Description: a.Description, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"description":"Where"}}}`)},
			{Name: "fs__write_file", Description: b.Description, InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	var c wordCache
	first := c.wordsOf(rt, []int{0, 1})
	assert.Equal(t, []fieldWord{{"read", fieldName}, {"file", fieldName}, {"read", fieldDesc}, {"file", fieldDesc}, {"path", fieldParamName}, {"wher", fieldParamDesc}}, first[0])
	assert.Len(t, c.words, 2)

	// The same tool, by pointer, is not read again: its entry is the one kept.
	c.words[a] = []fieldWord{{"cached", fieldName}}
	again := c.wordsOf(rt, []int{0})
	assert.Equal(t, []fieldWord{{"cached", fieldName}}, again[0])
	assert.Len(t, c.words, 1, "write_file is gone from the table, and from the cache")
}
