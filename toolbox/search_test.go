package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/toolbox/internal/toolsearch"
)

var searchOn = toolbox.WithToolSearch(toolbox.ToolSearch{})

// search runs one search call through the hook, as a model's answer
// carries it, and returns the result block.
func search(t *testing.T, tb *toolbox.Toolbox, id string, args string) host.ToolResult {
	t.Helper()
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: id, Name: toolbox.DefaultToolSearchName, Arguments: json.RawMessage(args)}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	res, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok, "the search is answered in the hook: %#v", chunk.Blocks[0])
	assert.Equal(t, id, res.ToolCallID)
	assert.Equal(t, toolbox.DefaultToolSearchName, res.Name)
	return res
}

// turn is one model turn that called tc and got res, as a host appends it.
func turn(tc host.ToolCall, res host.ToolResult) []host.Message {
	return []host.Message{
		{Role: host.RoleAssistant, Blocks: []host.Block{tc}},
		{Role: host.RoleTool, Blocks: []host.Block{res}},
	}
}

// searchTurn runs a search and returns it as the turn a host records.
func searchTurn(t *testing.T, tb *toolbox.Toolbox, id, query string) []host.Message {
	t.Helper()
	args, err := json.Marshal(map[string]string{"query": query})
	require.NoError(t, err)
	res := search(t, tb, id, string(args))
	require.False(t, res.IsError, res.Content)
	return turn(host.ToolCall{ID: id, Name: toolbox.DefaultToolSearchName, Arguments: args}, res)
}

// published runs OnRequest on a request with msgs and returns the names of
// the tools it publishes, in order.
func published(t *testing.T, tb *toolbox.Toolbox, msgs []host.Message, preset ...host.ToolDefinition) []string {
	t.Helper()
	req := host.NewRequest("m")
	req.Messages = append(req.Messages, msgs...)
	req.Tools = append(req.Tools, preset...)
	require.NoError(t, tb.OnRequest(context.Background(), req))
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return names
}

func user(text string) host.Message {
	return host.Message{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: text}}}
}

func TestSearchToolDescribesWhatIsDeferred(t *testing.T) {
	always := stdioEntry(t)
	always["alwaysLoad"] = true
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": httpEntry(t), "core": always}), searchOn)

	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hi"})
	require.NoError(t, tb.OnRequest(context.Background(), req))
	require.NotEmpty(t, req.Tools)
	def := req.Tools[0]
	assert.Equal(t, toolbox.DefaultToolSearchName, def.Name, "the search tool comes first")
	n := len(tb.Tools()) / 3 // each server has every test tool
	assert.Contains(t, def.Description, fmt.Sprintf("Tools to load (%d), by server:", 2*n))
	assert.Contains(t, def.Description, fmt.Sprintf("\nalpha (%d): alpha__add, alpha__add_structured,", n))
	assert.Contains(t, def.Description, fmt.Sprintf("\nbeta (%d): beta__add,", n))
	assert.NotContains(t, def.Description, "core__", "always-loaded tools are not deferred")
	assert.NotContains(t, def.Description, "Add two numbers", "names only")
	assert.JSONEq(t, `{"type":"object","properties":{"query":{"type":"string","description":"Keywords of what the task needs done, or exact tool names separated by commas"}},"required":["query"]}`, string(def.InputSchema))

	// Only the search tool and the always-loaded server's tools go out.
	var names []string
	for _, d := range req.Tools[1:] {
		assert.True(t, strings.HasPrefix(d.Name, "core__"), d.Name)
		names = append(names, d.Name)
	}
	assert.Len(t, names, n)
	// ToolDefinitions is unchanged: every exposed tool.
	assert.Len(t, tb.ToolDefinitions(), 3*n)
}

func TestSearchByExactNamesAndByKeywords(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": httpEntry(t)}), searchOn)

	res := search(t, tb, "s1", `{"query":"beta__pid, alpha__echo beta__pid"}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "Loaded 2 tools; call them by name from the next step on:\n"+
		"- beta__pid: The server's process id\n"+
		"- alpha__echo: Echo the arguments\n", res.Content, "exactly the tools named, each once, in the order named")

	res = search(t, tb, "s2", `{"query":"sum of two numbers","extra":true}`)
	assert.False(t, res.IsError)
	// Four tools have "add" or "sum" or "numbers" in them.
	assert.True(t, strings.HasPrefix(res.Content, "Loaded 4 tools; call them by name from the next step on:\n"), res.Content)
	assert.Contains(t, res.Content, "- alpha__add: Add two numbers and return their sum\n")
	assert.Contains(t, res.Content, "- beta__add: Add two numbers and return their sum\n")
	assert.NotContains(t, res.Content, "Also matching")
	loaded := tb.Search("sum of two numbers")
	require.Len(t, loaded, 4)
	assert.ElementsMatch(t, []string{"alpha__add", "beta__add"}, []string{loaded[0].Name, loaded[1].Name}, "the tools that say it rank first")

	res = search(t, tb, "s3", `{"query":"zzyzx quantum"}`)
	assert.False(t, res.IsError)
	assert.Equal(t, `No tool matches "zzyzx quantum". Try fewer or broader words (the thing to act on, or the action), or names from this tool's list.`, res.Content)
	assert.Empty(t, tb.Search("zzyzx"))

	// A name and a keyword together are a keyword search.
	assert.NotEmpty(t, tb.Search("alpha__pid process"))
}

func TestSearchResultsBeyondTheLimit(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": stdioEntry(t), "gamma": httpEntry(t)}),
		toolbox.WithToolSearch(toolbox.ToolSearch{Results: 2}))
	// "record" matches record and record_idempotent on three servers.
	res := search(t, tb, "s", `{"query":"record tag file"}`)
	require.False(t, res.IsError)
	loaded, more, found := strings.Cut(res.Content, "\nAlso matching, not loaded (search for their names to load them): ")
	require.True(t, found, res.Content)
	assert.Equal(t, 3, strings.Count(loaded, "\n"), "the header and two tools: %s", loaded)
	names := strings.Split(strings.TrimSpace(more), ", ")
	assert.GreaterOrEqual(t, len(names), 4, "the other record tools are named")
	assert.LessOrEqual(t, len(names), 10)
	for _, n := range names {
		assert.True(t, tb.HasTool(n), n)
		assert.NotContains(t, loaded, "- "+n+":", "a further match is not loaded")
	}
	// A further match is loaded by searching its name.
	again := search(t, tb, "s2", fmt.Sprintf(`{"query":%q}`, names[0]))
	assert.True(t, strings.HasPrefix(again.Content, "Loaded 1 tool; call it by name"), again.Content)
}

func TestBadSearchQueriesAreToolErrors(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": httpEntry(t)}), searchOn)
	for args, want := range map[string]string{
		``:                    "the arguments are not a JSON object",
		`[1]`:                 "the arguments are not a JSON object",
		`null`:                "the arguments are not a JSON object",
		`{}`:                  `"query" is missing`,
		`{"query":null}`:      `"query" is missing`,
		`{"query":3}`:         `"query" is not a string`,
		`{"query":["a"]}`:     `"query" is not a string`,
		`{"query":"  \t "}`:   `"query" is empty`,
		`{"query":"add"`:      "the arguments are not a JSON object",
		`{"Query":"add pid"}`: `"query" is missing`,
	} {
		res := search(t, tb, "bad", args)
		assert.True(t, res.IsError, args)
		assert.Contains(t, res.Content, want, args)
		assert.Contains(t, res.Content, `tool_search needs {"query": "..."}`, args)
	}
	// A failed search loads nothing.
	bad := search(t, tb, "b", `{}`)
	msgs := turn(host.ToolCall{ID: "b", Name: toolbox.DefaultToolSearchName, Arguments: json.RawMessage(`{}`)}, bad)
	assert.Equal(t, []string{toolbox.DefaultToolSearchName}, published(t, tb, msgs))
}

func TestLoadedToolsJoinTheNextRequestOnce(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": stdioEntry(t), "beta": httpEntry(t)}), searchOn)
	msgs := []host.Message{user("what is the server's pid?")}
	assert.Equal(t, []string{"tool_search"}, published(t, tb, msgs))

	msgs = append(msgs, searchTurn(t, tb, "s1", "beta__pid")...)
	assert.Equal(t, []string{"tool_search", "beta__pid"}, published(t, tb, msgs))

	// The model calls it; a second search loads more; order is of loading.
	call := host.ToolCall{ID: "c1", Name: "beta__pid", Arguments: json.RawMessage(`{}`)}
	chunk := &host.Chunk{Blocks: []host.Block{call}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	msgs = append(msgs, turn(call, chunk.Blocks[0].(host.ToolResult))...)
	msgs = append(msgs, searchTurn(t, tb, "s2", "alpha__add,beta__pid")...)
	assert.Equal(t, []string{"tool_search", "beta__pid", "alpha__add"}, published(t, tb, msgs))

	// A host that added some itself gets no duplicates.
	var pid host.ToolDefinition
	for _, d := range tb.ToolDefinitions() {
		if d.Name == "beta__pid" {
			pid = d
		}
	}
	hostTool := host.ToolDefinition{Name: "host_tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
	assert.Equal(t, []string{"host_tool", "beta__pid", "tool_search", "alpha__add"}, published(t, tb, msgs, hostTool, pid))

	// A result whose name the host dropped still counts by its call's ID.
	res := search(t, tb, "s3", `{"query":"alpha__echo"}`)
	res.Name = ""
	tc := host.ToolCall{ID: "s3", Name: toolbox.DefaultToolSearchName, Arguments: json.RawMessage(`{"query":"alpha__echo"}`)}
	assert.Equal(t, []string{"tool_search", "alpha__echo"}, published(t, tb, turn(tc, res)))
}

func TestDeferredToolCalledWithoutSearchRunsAndIsLoaded(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"alpha": httpEntry(t)}), searchOn)
	call := host.ToolCall{ID: "c", Name: "alpha__add", Arguments: json.RawMessage(`{"a":40,"b":2}`)}
	chunk := &host.Chunk{Blocks: []host.Block{call}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.Equal(t, host.ToolResult{ToolCallID: "c", Name: "alpha__add", Content: "42"}, res)
	assert.Equal(t, []string{"tool_search", "alpha__add"}, published(t, tb, turn(call, res)))
	// The result alone (a host that keeps results only) loads it too.
	assert.Equal(t, []string{"tool_search", "alpha__add"},
		published(t, tb, []host.Message{{Role: host.RoleTool, Blocks: []host.Block{res}}}))
}

func TestLoadsBelongToTheConversationAndSurviveANewToolbox(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": httpEntry(t), "beta": httpEntry(t)})
	tb := open(t, cfg, searchOn)
	one := append([]host.Message{user("one")}, searchTurn(t, tb, "a", "alpha__pid")...)
	two := append([]host.Message{user("two")}, searchTurn(t, tb, "b", "beta__echo")...)
	assert.Equal(t, []string{"tool_search", "alpha__pid"}, published(t, tb, one))
	assert.Equal(t, []string{"tool_search", "beta__echo"}, published(t, tb, two))
	assert.Equal(t, []string{"tool_search"}, published(t, tb, []host.Message{user("three")}))

	// The conversation is saved (as JSON-free values here) and resumed by
	// a new toolbox over the same file: its loads come back with it.
	require.NoError(t, tb.Close())
	resumed := open(t, cfg, searchOn)
	assert.Equal(t, []string{"tool_search", "alpha__pid"}, published(t, resumed, one))
	one = append(one, searchTurn(t, resumed, "c", "beta__add")...)
	assert.Equal(t, []string{"tool_search", "alpha__pid", "beta__add"}, published(t, resumed, one))
}

func TestThresholdDefersOnlyAboveTheTotal(t *testing.T) {
	cfg := config(t, map[string]entry{"alpha": httpEntry(t)})
	plain := open(t, cfg)
	total := 0
	var all []string
	for _, d := range plain.ToolDefinitions() {
		total += toolsearch.DefinitionBytes(d)
		all = append(all, d.Name)
	}
	raw, err := json.Marshal(map[string]any{"name": all[0], "description": plain.ToolDefinitions()[0].Description,
		"input_schema": plain.ToolDefinitions()[0].InputSchema})
	require.NoError(t, err)
	assert.Equal(t, len(raw), toolsearch.DefinitionBytes(plain.ToolDefinitions()[0]), "the JSON of name, description and schema")

	// Without the option OnRequest adds nothing.
	assert.Empty(t, published(t, plain, nil))
	assert.Nil(t, plain.Search("add"))

	// At or under the threshold: every tool, no search tool.
	under := open(t, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Threshold: total}))
	assert.Equal(t, all, published(t, under, nil))
	assert.Equal(t, all, published(t, under, []host.Message{user("x")}, under.ToolDefinitions()[:2]...)[:len(all)], "no duplicates")
	// Above it: deferred.
	over := open(t, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Threshold: total - 1}))
	assert.Equal(t, []string{"tool_search"}, published(t, over, nil))
}

func TestAlwaysLoadedServerIsPublishedAndNotSearched(t *testing.T) {
	core := httpEntry(t)
	core["alwaysLoad"] = true
	tb := open(t, config(t, map[string]entry{"core": core, "extra": httpEntry(t)}), searchOn)
	names := published(t, tb, nil)
	require.NotEmpty(t, names)
	assert.Equal(t, "tool_search", names[0])
	for _, n := range names[1:] {
		assert.True(t, strings.HasPrefix(n, "core__"), n)
	}
	for _, tl := range tb.Search("add two numbers") {
		assert.Equal(t, "extra", tl.Server, "only deferred tools are searched")
	}
	// An exact name of an always-loaded tool is still answered.
	assert.Equal(t, "core__pid", tb.Search("core__pid")[0].Name)
}

func TestSearchNameTakenByAToolIsACollision(t *testing.T) {
	cfg := config(t, map[string]entry{"a": httpEntry(t)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := toolbox.Open(ctx, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Name: "a__pid"}))
	require.ErrorIs(t, err, toolbox.ErrNameCollision)
	assert.Contains(t, err.Error(), `"a__pid" is tool search's name and tool "pid" of server "a"`)

	for _, bad := range []string{"find tools", "find.tools", strings.Repeat("x", 65)} {
		_, err := toolbox.Open(ctx, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Name: bad}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "tool search name")
	}

	tb := open(t, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Name: "find_tools"}))
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "x", Name: "find_tools", Arguments: json.RawMessage(`{"query":"a__pid"}`)}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	res := chunk.Blocks[0].(host.ToolResult)
	assert.Equal(t, "find_tools", res.Name)
	assert.Contains(t, res.Content, "- a__pid: ")
	assert.Equal(t, "find_tools", published(t, tb, nil)[0])
}

func TestToolListChangeBetweenSearchAndCall(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"c": controlsEntry(t)}), searchOn,
		toolbox.WithPluginOptions(plugin.WithToolRefresh()))
	assert.Empty(t, tb.Search("c__fresh"))
	assert.Equal(t, "added fresh", call(t, tb, "c__add_tool", map[string]any{"name": "fresh"}))
	require.Eventually(t, func() bool { return tb.HasTool("c__fresh") }, 10*time.Second, 5*time.Millisecond)

	// The new tool is found, listed in the search tool and loaded.
	msgs := searchTurn(t, tb, "s", "c__fresh")
	req := host.NewRequest("m")
	req.Messages = msgs
	require.NoError(t, tb.OnRequest(context.Background(), req))
	assert.Contains(t, req.Tools[0].Description, "c__fresh")
	assert.Equal(t, "c__fresh", req.Tools[1].Name)
	assert.Equal(t, []string{"c__fresh"}, names(tb.Search("Added at runtime")[:1]))

	// It goes away before the model calls it: it is no longer published,
	// and the call passes through untouched, as any unknown name does.
	_, err := tb.Plugin("c").CallTool(context.Background(), "remove_tool", map[string]any{"name": "fresh"}).Await(context.Background())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !tb.HasTool("c__fresh") }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"tool_search"}, published(t, tb, msgs))
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "f", Name: "c__fresh"}}}
	require.NoError(t, tb.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolCall{ID: "f", Name: "c__fresh"}, chunk.Blocks[0])
	assert.Empty(t, tb.Search("c__fresh"))
}

func names(tools []toolbox.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

func TestFirstRequestShrinksOnRealToolLists(t *testing.T) {
	entries, servers := corpusEntries(t)
	tb := open(t, config(t, entries), searchOn)
	eager, deferred := 0, 0
	for _, d := range tb.ToolDefinitions() {
		eager += toolsearch.DefinitionBytes(d)
	}
	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hello"})
	require.NoError(t, tb.OnRequest(context.Background(), req))
	for _, d := range req.Tools {
		deferred += toolsearch.DefinitionBytes(d)
	}
	t.Logf("%d tools over %d servers: %d bytes of definitions eager, %d deferred (%.1f%% fewer)",
		len(tb.Tools()), len(servers), eager, deferred, 100*(1-float64(deferred)/float64(eager)))
	assert.Len(t, req.Tools, 1)
	assert.LessOrEqual(t, float64(deferred), 0.15*float64(eager), "at least 85% fewer bytes")
}
