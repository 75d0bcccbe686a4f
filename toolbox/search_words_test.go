package toolbox

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/toolsearch"
)

func TestWordCacheReadsOnlyNewToolsAndForgetsGoneOnes(t *testing.T) {
	a := &mcp.Tool{Name: "read_file", Description: "Read a file"}
	b := &mcp.Tool{Name: "write_file", Description: "Write a file", Annotations: &mcp.ToolAnnotations{Title: "Scribe"}}
	rt := &routeTable{
		tools: []Tool{{Name: "fs__read_file", Server: "fs", Tool: a}, {Name: "fs__write_file", Server: "fs", Tool: b}},
		defs: []host.ToolDefinition{{Name: "fs__read_file", Description: a.Description, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"description":"Where"}}}`)},
			{Name: "fs__write_file", Description: b.Description, InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	var c wordCache
	first := c.wordsOf(rt, []int{0, 1})
	assert.Equal(t, []toolsearch.Word{{Key: "read", Field: toolsearch.FieldName}, {Key: "file", Field: toolsearch.FieldName},
		{Key: "read", Field: toolsearch.FieldDesc}, {Key: "file", Field: toolsearch.FieldDesc},
		{Key: "path", Field: toolsearch.FieldParamName}, {Key: "wher", Field: toolsearch.FieldParamDesc}}, first[0])
	assert.Contains(t, first[1], toolsearch.Word{Key: "scrib", Field: toolsearch.FieldTitle}, "the annotations' title stands for a missing one")
	assert.Len(t, c.words, 2)

	// The same tool, by pointer, is not read again: its entry is the one kept.
	c.words[a] = []toolsearch.Word{{Key: "cached", Field: toolsearch.FieldName}}
	again := c.wordsOf(rt, []int{0})
	assert.Equal(t, []toolsearch.Word{{Key: "cached", Field: toolsearch.FieldName}}, again[0])
	assert.Len(t, c.words, 1, "write_file is gone from the table, and from the cache")
}
