package toolsearch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
)

// entries are three tools of two servers, the toolbox's way: sorted by
// exposed name, docs always loaded.
func entries() []Entry {
	entry := func(server, name, desc string, always bool) Entry {
		return Entry{Server: server, Prefix: server + "__", AlwaysLoad: always, Tool: &mcp.Tool{Name: name, Description: desc},
			Def: host.ToolDefinition{Name: server + "__" + name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)}}
	}
	return []Entry{
		entry("docs", "lookup", "Look up a library's documentation", true),
		entry("fs", "read_file", "Read a file from disk\nSecond line.", false),
		entry("fs", "write_file", "Write a file to disk", false),
	}
}

func TestFindLoadsNamedToolsOrTheBestMatches(t *testing.T) {
	tb := NewTable(entries(), Config{Name: "tool_search", Results: 1}, nil)
	loaded, more := tb.Find("fs__write_file, fs__read_file fs__write_file")
	assert.Equal(t, []int{2, 1}, loaded, "named, in order, each once")
	assert.Nil(t, more)
	loaded, more = tb.Find("write a file")
	assert.Equal(t, []int{2}, loaded)
	assert.Equal(t, []int{1}, more, "the other match is named, not loaded")
	loaded, _ = tb.Find("docs__lookup")
	assert.Equal(t, []int{0}, loaded, "a never-deferred tool can be named")
	loaded, _ = tb.Find("lookup documentation")
	assert.Empty(t, loaded, "only deferred tools are searched")
}

func TestAnswerRendersWhatLoadsAndLoadsReadsItBack(t *testing.T) {
	tb := NewTable(entries(), Config{Name: "tool_search", Results: 1}, nil)
	out := tb.Answer(host.ToolCall{ID: "c1", Name: "tool_search", Arguments: json.RawMessage(`{"query":"read a file"}`)})
	assert.False(t, out.IsError)
	assert.Equal(t, "c1", out.ToolCallID)
	assert.Equal(t, "Loaded 1 tool; call it by name from the next step on:\n- fs__read_file: Read a file from disk\n\n"+
		"Also matching, not loaded (search for their names to load them): fs__write_file\n", out.Content)

	for args, problem := range map[string]string{`[1]`: "not a JSON object", `{}`: `"query" is missing`,
		`{"query":1}`: `"query" is not a string`, `{"query":"  "}`: `"query" is empty`} {
		bad := tb.Answer(host.ToolCall{ID: "c2", Name: "tool_search", Arguments: json.RawMessage(args)})
		assert.True(t, bad.IsError, args)
		assert.Contains(t, bad.Content, problem, args)
	}
	none := tb.Answer(host.ToolCall{Name: "tool_search", Arguments: json.RawMessage(`{"query":"zebra"}`)})
	assert.Equal(t, `No tool matches "zebra". Try fewer or broader words (the thing to act on, or the action), or names from this tool's list.`, none.Content)

	var got []int
	tb.Loads([]host.Message{
		{Blocks: []host.Block{host.ToolCall{ID: "s1", Name: "tool_search"}}},
		{Blocks: []host.Block{host.ToolResult{ToolCallID: "s1", Content: out.Content}}}, // lost its name: matched by ID
		{Blocks: []host.Block{host.ToolResult{Name: "tool_search", Content: "Loaded 1 tool\n- fs__write_file: x", IsError: true}}},
		{Blocks: []host.Block{host.ToolCall{Name: "fs__write_file"}, host.ToolCall{Name: "gone"}}},
	}, func(i int) { got = append(got, i) })
	assert.Equal(t, []int{1, 2}, got, "the search's load, then the call's; not the error's, not a gone tool")
}

func TestPublishDefersOverTheThresholdOnly(t *testing.T) {
	all := 0
	for _, e := range entries() {
		all += DefinitionBytes(e.Def)
	}
	req := &host.Request{Tools: []host.ToolDefinition{{Name: "docs__lookup"}},
		Messages: []host.Message{{Blocks: []host.Block{host.ToolCall{Name: "fs__read_file"}}}}}
	NewTable(entries(), Config{Name: "tool_search", Results: 5, Threshold: all - 1}, nil).Publish(req)
	names := func() (out []string) {
		for _, d := range req.Tools {
			out = append(out, d.Name)
		}
		return out
	}
	assert.Equal(t, []string{"docs__lookup", "tool_search", "fs__read_file"}, names(), "the host's, the search tool, the loaded one")
	assert.Contains(t, req.Tools[1].Description, "Tools to load (2), by server:\nfs (2): fs__read_file, fs__write_file")

	req = &host.Request{}
	NewTable(entries(), Config{Name: "tool_search", Results: 5, Threshold: all}, nil).Publish(req)
	assert.Equal(t, []string{"docs__lookup", "fs__read_file", "fs__write_file"}, names(), "within the threshold: every tool, no search tool")
}

func TestInstructionsAreCutAndMadeOnceForTheSameText(t *testing.T) {
	var in Instructions
	calls := 0
	of := func(server string) string {
		calls++
		if server == "b" {
			return strings.Repeat("é", 40) // 80 bytes
		}
		return ""
	}
	req := &host.Request{Messages: []host.Message{{Role: host.RoleSystem}, {Role: host.RoleUser}}}
	in.AddTo(req, 50, []string{"a", "b"}, of)
	require.Len(t, req.Messages, 3)
	text := req.Messages[1].Blocks[0].(host.Text).Text
	want := instructionsHeader + "\n\n## b\n" + strings.Repeat("é", 15) + cutMarker
	assert.Equal(t, want, text, "after the leading system message; cut at a character boundary")
	first := in.last.Load()
	in.AddTo(req, 50, []string{"a", "b"}, of)
	assert.Len(t, req.Messages, 3, "the request has it already")
	in.AddTo(&host.Request{}, 50, []string{"a", "b"}, of)
	assert.Same(t, first, in.last.Load(), "the same instructions: the message is not made again")
	none := &host.Request{}
	in.AddTo(none, 50, []string{"a"}, of)
	assert.Empty(t, none.Messages, "no server has instructions: no message")
	assert.NotSame(t, first, in.last.Load(), "other instructions: made again")
	assert.Equal(t, 5, calls, "the request that had the message asked no server")
}
