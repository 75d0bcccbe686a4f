package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/host"
)

func TestWordCacheReadsOnlyNewToolsAndForgetsGoneOnes(t *testing.T) {
	a := &mcp.Tool{Name: "read_file", Description: "Read a file"}
	b := &mcp.Tool{Name: "write_file", Description: "Write a file", Annotations: &mcp.ToolAnnotations{Title: "Scribe"}}
	entries := []Entry{
		{Server: "fs", Tool: a, Def: host.ToolDefinition{Name: "fs__read_file", Description: a.Description,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"description":"Where"}}}`)}},
		{Server: "fs", Tool: b, Def: host.ToolDefinition{Name: "fs__write_file", Description: b.Description, InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	var c WordCache
	first := c.wordsOf(entries, []int{0, 1})
	assert.Equal(t, []Word{{Key: "read", Field: FieldName}, {Key: "file", Field: FieldName},
		{Key: "read", Field: FieldDesc}, {Key: "file", Field: FieldDesc},
		{Key: "path", Field: FieldParamName}, {Key: "wher", Field: FieldParamDesc}}, first[0])
	assert.Contains(t, first[1], Word{Key: "scrib", Field: FieldTitle}, "the annotations' title stands for a missing one")
	assert.Len(t, c.words, 2)

	// The same tool, by pointer, is not read again: its entry is the one kept.
	c.words[a] = []Word{{Key: "cached", Field: FieldName}}
	again := c.wordsOf(entries, []int{0})
	assert.Equal(t, []Word{{Key: "cached", Field: FieldName}}, again[0])
	assert.Len(t, c.words, 1, "write_file is gone from the table, and from the cache")
}
