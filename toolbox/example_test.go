package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// Two servers of one mcp.json as one plugin: each tool under its exposed
// name, "<server>__<tool>" unless the entry sets a "prefix", and each call
// routed by that name to its server. The servers are go-sdk's, on loopback
// Streamable HTTP (stateless, as MCP 2026-07-28 requires); a "command"
// entry starts a stdio server instead.
func ExampleOpen() {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	serve := func(s *mcp.Server) *httptest.Server {
		return httptest.NewServer(mcp.NewStreamableHTTPHandler(
			func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	}

	type pair struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	calc := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(calc, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in pair) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	mcp.AddTool(calc, &mcp.Tool{Name: "multiply", Description: "Multiply two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in pair) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A * in.B)), nil, nil
		})
	calcSrv := serve(calc)
	defer calcSrv.Close()

	type word struct {
		Word string `json:"word"`
	}
	words := mcp.NewServer(&mcp.Implementation{Name: "words", Version: "1.0.0"}, nil)
	mcp.AddTool(words, &mcp.Tool{Name: "upper", Description: "Upper-case a word"},
		func(_ context.Context, _ *mcp.CallToolRequest, in word) (*mcp.CallToolResult, any, error) {
			return text(strings.ToUpper(in.Word)), nil, nil
		})
	wordsSrv := serve(words)
	defer wordsSrv.Close()

	// The mcp.json, as Claude Code, Cursor or VS Code read it; mcpconfig.Load
	// reads it from a file.
	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {
		"calc":  {"url": "` + calcSrv.URL + `"},
		"words": {"url": "` + wordsSrv.URL + `", "prefix": "w_"}
	}}`))
	if err != nil {
		log.Fatal(err)
	}

	// Open connects to every server at once; one that fails is reported by
	// Status, not fatal (unless toolbox.WithStrict).
	ctx := context.Background()
	tb, err := toolbox.Open(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer tb.Close()

	for _, name := range tb.Servers() {
		fmt.Println(name, tb.Status()[name].State)
	}
	for _, t := range tb.Tools() {
		fmt.Printf("%s (%s: %s)\n", t.Name, t.Server, t.Tool.Name)
	}

	// A call by exposed name, as a future ...
	res, err := tb.CallTool(ctx, "calc__multiply", pair{A: 6, B: 7}).Await(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plugin.RenderResult(res))

	// ... or the hook: the calls of one chunk go to their servers at once.
	chunk := &host.Chunk{Blocks: []host.Block{
		host.ToolCall{ID: "call_1", Name: "calc__add", Arguments: json.RawMessage(`{"a":21,"b":21}`)},
		host.ToolCall{ID: "call_2", Name: "w_upper", Arguments: json.RawMessage(`{"word":"mcp"}`)},
	}}
	if err := tb.OnStreamChunk(ctx, chunk); err != nil {
		log.Fatal(err)
	}
	for _, b := range chunk.Blocks {
		r := b.(host.ToolResult)
		fmt.Println(r.ToolCallID, r.Name, r.Content)
	}
	// Output:
	// calc ready
	// words ready
	// calc__add (calc: add)
	// calc__multiply (calc: multiply)
	// w_upper (words: upper)
	// 42
	// call_1 calc__add 42
	// call_2 w_upper MCP
}
