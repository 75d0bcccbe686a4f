package toolbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/resourceserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// resourceEntry is an entry of resourceserver over loopback HTTP; extra
// fields are merged in.
func resourceEntry(t *testing.T, extra entry) entry {
	e := entry{"type": "http", "url": resourceserver.HTTP(t)}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

// resourceConfig: "docs" and "files" have resources, "calc" has none,
// "off" is disabled and "banned" is denied by the policy of
// banPolicy.
func resourceConfig(t *testing.T, docs entry) map[string]entry {
	return map[string]entry{
		"docs":   docs,
		"files":  resourceEntry(t, nil),
		"calc":   httpEntry(t),
		"off":    resourceEntry(t, entry{"disabled": true}),
		"banned": resourceEntry(t, nil),
	}
}

var banPolicy = toolbox.WithServerPolicy(toolbox.ServerPolicy{Deny: []toolbox.ServerMatch{{Name: "banned"}}})

func TestResourcesTemplatesAndPromptsAcrossServers(t *testing.T) {
	tb := open(t, config(t, resourceConfig(t, resourceEntry(t, nil))), banPolicy)
	ctx := t.Context()

	all, err := tb.ListResources(ctx, "")
	require.NoError(t, err)
	var got []string
	for _, r := range all {
		got = append(got, r.Server+" "+r.Resource.URI)
	}
	assert.Equal(t, []string{
		"docs file:///big.txt", "docs file:///bytes.bin", "docs file:///notes.txt", "docs file:///reports/q3.txt",
		"files file:///big.txt", "files file:///bytes.bin", "files file:///notes.txt", "files file:///reports/q3.txt",
	}, got, "each under its server, URIs as the server wrote them, every page, servers by name")

	one, err := tb.ListResources(ctx, "files")
	require.NoError(t, err)
	assert.Len(t, one, 4)
	none, err := tb.ListResources(ctx, "calc")
	require.NoError(t, err, "a server without resources lists none")
	assert.Empty(t, none)

	tpls, err := tb.ListResourceTemplates(ctx, "")
	require.NoError(t, err)
	require.Len(t, tpls, 2)
	assert.Equal(t, toolbox.ResourceTemplate{Server: "docs", Template: tpls[0].Template}, tpls[0])
	assert.Equal(t, resourceserver.UserTemplate, tpls[1].Template.URITemplate)

	prompts, err := tb.ListPrompts(ctx, "docs")
	require.NoError(t, err)
	var pnames []string
	for _, p := range prompts {
		assert.Equal(t, "docs", p.Server)
		pnames = append(pnames, p.Prompt.Name)
	}
	assert.ElementsMatch(t, []string{"review", "plain"}, pnames)

	pr, err := tb.GetPrompt(ctx, "docs", "review", map[string]string{"lang": "Go"})
	require.NoError(t, err)
	msgs := plugin.PromptMessages(pr)
	require.Len(t, msgs, 1)
	assert.Equal(t, host.Text{Text: "Review this Go code."}, msgs[0].Blocks[0])

	res, err := tb.ReadResource(ctx, "files", resourceserver.BlobURI)
	require.NoError(t, err)
	assert.Equal(t, resourceserver.Blob, res.Contents[0].Blob)
}

func TestResourcesOfServersTheToolboxDidNotStart(t *testing.T) {
	tb := open(t, config(t, resourceConfig(t, resourceEntry(t, nil))), banPolicy)
	ctx := t.Context()

	_, err := tb.ListResources(ctx, "banned")
	assert.ErrorIs(t, err, toolbox.ErrDeniedByPolicy, "the policy applies")
	assert.ErrorIs(t, err, plugin.ErrDenied)
	_, err = tb.ReadResource(ctx, "banned", resourceserver.NotesURI)
	assert.ErrorIs(t, err, toolbox.ErrDeniedByPolicy)
	_, err = tb.GetPrompt(ctx, "banned", "plain", nil)
	assert.ErrorIs(t, err, toolbox.ErrDeniedByPolicy)

	for _, name := range []string{"off", "nope"} {
		_, err = tb.ListPrompts(ctx, name)
		assert.ErrorIs(t, err, toolbox.ErrUnknownServer, name)
		_, err = tb.ListResourceTemplates(ctx, name)
		assert.ErrorIs(t, err, toolbox.ErrUnknownServer, name)
	}

	_, err = tb.ReadResource(ctx, "docs", "file:///nope.txt")
	var perr *plugin.Error
	require.ErrorAs(t, err, &perr)
	assert.Contains(t, perr.Error(), "file:///nope.txt", "%#v", perr)
}

func TestReadResourceOverTheServersCap(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"docs": resourceEntry(t, entry{"maxResultBytes": 1024})}))
	_, err := tb.ReadResource(t.Context(), "docs", resourceserver.BigURI)
	assert.ErrorIs(t, err, plugin.ErrResultTooLarge)
	assert.ErrorContains(t, err, `the cap is 1.0 KiB ("maxResultBytes" of server "docs")`, "the cap's source is the file's key")
	res, err := tb.ReadResource(t.Context(), "docs", resourceserver.NotesURI)
	require.NoError(t, err)
	assert.Equal(t, resourceserver.NotesText, res.Contents[0].Text)
}

// chunkOf runs calls through the toolbox's hook in one chunk.
func chunkOf(t *testing.T, tb *toolbox.Toolbox, calls ...host.ToolCall) []host.ToolResult {
	t.Helper()
	chunk := &host.Chunk{}
	for _, c := range calls {
		chunk.Blocks = append(chunk.Blocks, c)
	}
	require.NoError(t, tb.OnStreamChunk(t.Context(), chunk))
	out := make([]host.ToolResult, len(calls))
	for i, b := range chunk.Blocks {
		res, ok := b.(host.ToolResult)
		require.True(t, ok, "block %d answered: %#v", i, b)
		out[i] = res
	}
	return out
}

func readOf(id, server, uri string) host.ToolCall {
	args, _ := json.Marshal(map[string]string{"server": server, "uri": uri})
	return host.ToolCall{ID: id, Name: "read_mcp_resource", Arguments: args}
}

func TestToolboxResourceToolsListReadAndFollowALink(t *testing.T) {
	tb := open(t, config(t, resourceConfig(t, resourceEntry(t, nil))), banPolicy, toolbox.WithResourceTools())
	defs := map[string]host.ToolDefinition{}
	var names []string
	for _, d := range tb.ToolDefinitions() {
		defs[d.Name] = d
		names = append(names, d.Name)
	}
	assert.IsNonDecreasing(t, names, "sorted")
	require.Contains(t, defs, "list_mcp_resources")
	require.Contains(t, defs, "read_mcp_resource")
	assert.JSONEq(t, `{"type":"object","properties":{"server":{"type":"string","description":"The name of the MCP server that has the resource"},`+
		`"uri":{"type":"string","description":"The URI of the resource to read"}},"required":["server","uri"]}`, string(defs["read_mcp_resource"].InputSchema))
	assert.False(t, tb.HasTool("read_mcp_resource"), "HasTool knows the servers' tools only")

	got := chunkOf(t, tb,
		host.ToolCall{ID: "all", Name: "list_mcp_resources"},
		host.ToolCall{ID: "one", Name: "list_mcp_resources", Arguments: json.RawMessage(`{"server":"files"}`)},
		readOf("r", "docs", resourceserver.NotesURI),
		host.ToolCall{ID: "t", Name: "docs__report", Arguments: json.RawMessage(`{}`)},
		host.ToolCall{ID: "c", Name: "calc__echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	for i, id := range []string{"all", "one", "r", "t", "c"} {
		assert.Equal(t, id, got[i].ToolCallID)
		assert.False(t, got[i].IsError, got[i].Content)
	}
	var all []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got[0].Content), &all), got[0].Content)
	assert.Len(t, all, 10, "two servers' four resources and a template each")
	assert.Contains(t, got[0].Content, `{"server":"files","uri":"file:///notes.txt","name":"notes"`)
	assert.Contains(t, got[0].Content, `{"server":"docs","uriTemplate":"file:///users/{id}.json"`)
	assert.NotContains(t, got[0].Content, "banned")
	var one []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got[1].Content), &one))
	assert.Len(t, one, 5)
	assert.Equal(t, resourceserver.NotesText, got[2].Content)
	link := `[resource link: file:///reports/q3.txt (q3, text/plain); read it with read_mcp_resource, server "docs"]`
	assert.Equal(t, "The report is ready.\n"+link, got[3].Content)
	assert.Contains(t, got[4].Content, "hi")

	// The model follows the link as it says.
	follow := chunkOf(t, tb, readOf("f", "docs", resourceserver.ReportURI))[0]
	assert.Equal(t, host.ToolResult{ToolCallID: "f", Name: "read_mcp_resource", Content: resourceserver.ReportText}, follow)

	bad := chunkOf(t, tb,
		host.ToolCall{ID: "1", Name: "read_mcp_resource", Arguments: json.RawMessage(`{"uri":"file:///notes.txt"}`)},
		readOf("2", "banned", resourceserver.NotesURI),
		readOf("3", "off", resourceserver.NotesURI),
		host.ToolCall{ID: "4", Name: "list_mcp_resources", Arguments: json.RawMessage(`{"server":"banned"}`)},
		host.ToolCall{ID: "5", Name: "list_mcp_resources", Arguments: json.RawMessage(`[1]`)})
	for _, r := range bad {
		assert.True(t, r.IsError, r.Content)
	}
	assert.Contains(t, bad[0].Content, `"server" is missing`)
	assert.Contains(t, bad[1].Content, "denied by policy")
	assert.Contains(t, bad[2].Content, "no such server")
	assert.Contains(t, bad[3].Content, "denied by policy")
	assert.Contains(t, bad[4].Content, "not a JSON object")
}

func TestToolboxResourceReadPassesApprovalAndTheCap(t *testing.T) {
	var mu sync.Mutex
	var asked []plugin.ApprovalRequest
	approve := plugin.WithApproval(func(_ context.Context, req plugin.ApprovalRequest) error {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return errors.New("no reading today")
	})
	tb := open(t, config(t, map[string]entry{
		"docs":    resourceEntry(t, entry{"maxResultBytes": 1024}),
		"trusted": resourceEntry(t, entry{"approval": "writes"}),
	}), toolbox.WithResourceTools(), toolbox.WithPluginOptions(approve))

	got := chunkOf(t, tb, readOf("d", "docs", resourceserver.NotesURI), readOf("w", "trusted", resourceserver.NotesURI))
	assert.True(t, got[0].IsError)
	assert.Contains(t, got[0].Content, "no reading today")
	assert.False(t, got[1].IsError, "approval mode writes lets a read through: %s", got[1].Content)
	assert.Equal(t, resourceserver.NotesText, got[1].Content)
	mu.Lock()
	require.Len(t, asked, 1)
	assert.Equal(t, "read_mcp_resource", asked[0].Tool)
	assert.Equal(t, "d", asked[0].CallID)
	assert.JSONEq(t, `{"server":"docs","uri":"file:///notes.txt"}`, string(asked[0].Arguments))
	mu.Unlock()

	// Over the cap: refused whole; the program's read asks no approval.
	tb2 := open(t, config(t, map[string]entry{"docs": resourceEntry(t, entry{"maxResultBytes": 1024})}), toolbox.WithResourceTools())
	big := chunkOf(t, tb2, readOf("b", "docs", resourceserver.BigURI))[0]
	assert.True(t, big.IsError)
	assert.Contains(t, big.Content, "result over the cap")
	_, err := tb.ReadResource(t.Context(), "docs", resourceserver.NotesURI)
	require.NoError(t, err)
}

func TestToolSearchFindsTheResourceTools(t *testing.T) {
	tb := open(t, config(t, map[string]entry{"docs": resourceEntry(t, nil), "calc": httpEntry(t)}),
		toolbox.WithResourceTools(), toolbox.WithToolSearch(toolbox.ToolSearch{}))
	var found []string
	for _, tl := range tb.Search("read a resource by its uri") {
		found = append(found, tl.Name)
	}
	assert.Contains(t, found, "read_mcp_resource")
	assert.Equal(t, []toolbox.Tool{{Name: "list_mcp_resources", Tool: tb.Search("list_mcp_resources")[0].Tool}}, tb.Search("list_mcp_resources"))

	req := &host.Request{}
	require.NoError(t, tb.OnRequest(t.Context(), req))
	for _, d := range req.Tools {
		assert.NotEqual(t, "read_mcp_resource", d.Name, "deferred like any other tool")
	}
	// A search loads it; the next request publishes it; the call runs.
	res := chunkOf(t, tb, host.ToolCall{ID: "s", Name: "tool_search", Arguments: json.RawMessage(`{"query":"read_mcp_resource"}`)})[0]
	require.False(t, res.IsError, res.Content)
	conv := &host.Request{Messages: []host.Message{
		{Role: host.RoleAssistant, Blocks: []host.Block{host.ToolCall{ID: "s", Name: "tool_search", Arguments: json.RawMessage(`{"query":"read_mcp_resource"}`)}}},
		{Role: host.RoleTool, Blocks: []host.Block{res}},
	}}
	require.NoError(t, tb.OnRequest(t.Context(), conv))
	var published []string
	for _, d := range conv.Tools {
		published = append(published, d.Name)
	}
	assert.Contains(t, published, "read_mcp_resource")
	assert.Equal(t, resourceserver.NotesText, chunkOf(t, tb, readOf("r", "docs", resourceserver.NotesURI))[0].Content)
}

func TestAServerToolNamedLikeAResourceToolCollides(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "clash", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "read_mcp_resource", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	cfg := config(t, map[string]entry{"raw": {"type": "http", "url": srv.URL, "prefix": ""}})
	_, err := toolbox.Open(t.Context(), cfg, toolbox.WithResourceTools())
	assert.ErrorIs(t, err, toolbox.ErrNameCollision)
	assert.ErrorContains(t, err, "resource tool's name")
	tb := open(t, cfg)
	assert.True(t, tb.HasTool("read_mcp_resource"), "without WithResourceTools the server's tool is exposed")
}

func TestALazyServerStartsWhenItsResourcesAreAskedFor(t *testing.T) {
	dir := t.TempDir()
	cfg := config(t, map[string]entry{"lz": resourceEntry(t, entry{"lazy": true})})
	require.NoError(t, open(t, cfg, toolbox.WithManifestDir(dir)).Close()) // keeps its manifest
	tb := open(t, cfg, toolbox.WithManifestDir(dir), toolbox.WithResourceTools())
	require.Equal(t, actors.NotStarted, tb.Status()["lz"].State)

	all := chunkOf(t, tb, host.ToolCall{ID: "a", Name: "list_mcp_resources"})[0]
	assert.False(t, all.IsError)
	assert.Equal(t, "[\n"+`{"server":"lz","note":"not started (lazy): list it by name to start it"}`+"\n]", all.Content)
	none, err := tb.ListResources(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, none, "a listing of every server starts no lazy one")
	assert.Equal(t, actors.NotStarted, tb.Status()["lz"].State)

	rs, err := tb.ListResources(t.Context(), "lz")
	require.NoError(t, err)
	assert.Len(t, rs, 4)
	assert.Equal(t, actors.Ready, tb.Status()["lz"].State, "naming it started it")
}
