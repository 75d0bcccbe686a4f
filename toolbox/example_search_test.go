package toolbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// exampleServer serves a few tools over loopback HTTP.
func exampleServer() *httptest.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1"}, nil)
	for name, desc := range map[string]string{
		"add":      "Add two numbers and return their sum",
		"multiply": "Multiply two numbers",
		"today":    "Today's date",
	} {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "42"}}}, nil
			})
	}
	return httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
}

func ExampleWithToolSearch() {
	srv := exampleServer()
	defer srv.Close()
	cfg, _ := mcpconfig.Parse([]byte(`{"mcpServers":{"calc":{"url":"` + srv.URL + `"}}}`))
	ctx := context.Background()
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tb.Close()
	names := func(req *host.Request) (out []string) {
		for _, d := range req.Tools {
			out = append(out, d.Name)
		}
		return out
	}

	// The first request carries the search tool only.
	conv := []host.Message{{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "What is 21 + 21?"}}}}
	req := &host.Request{Model: "m", Messages: conv}
	_ = tb.OnRequest(ctx, req)
	fmt.Println("turn 1:", names(req))

	// The model searches; the toolbox answers in the stream.
	search := host.ToolCall{ID: "s1", Name: "tool_search", Arguments: json.RawMessage(`{"query":"add numbers"}`)}
	chunk := &host.Chunk{Blocks: []host.Block{search}}
	_ = tb.OnStreamChunk(ctx, chunk)
	found := chunk.Blocks[0].(host.ToolResult)
	fmt.Print(found.Content)

	// The tools found join the next request.
	conv = append(conv,
		host.Message{Role: host.RoleAssistant, Blocks: []host.Block{search}},
		host.Message{Role: host.RoleTool, Blocks: []host.Block{found}})
	req = &host.Request{Model: "m", Messages: conv}
	_ = tb.OnRequest(ctx, req)
	fmt.Println("turn 2:", names(req))
	// Output:
	// turn 1: [tool_search]
	// Loaded 2 tools; call them by name from the next step on:
	// - calc__add: Add two numbers and return their sum
	// - calc__multiply: Multiply two numbers
	// turn 2: [tool_search calc__add calc__multiply]
}

// A task of several steps, as people write it, is searched step by step:
// the tools loaded cover its steps first.
func ExampleToolbox_Search_severalSteps() {
	srv := exampleServer()
	defer srv.Close()
	cfg, _ := mcpconfig.Parse([]byte(`{"mcpServers":{"calc":{"url":"` + srv.URL + `"}}}`))
	tb, err := toolbox.Open(context.Background(), cfg, toolbox.WithToolSearch(toolbox.ToolSearch{Results: 2}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tb.Close()
	task := "Look up today's date for the invoice at https://billing.example.com/inv/2026-0042, " +
		"then multiply the hours by the hourly rate from ./rates/2026.csv."
	for _, tl := range tb.Search(task) {
		fmt.Println(tl.Name)
	}
	// Output:
	// calc__today
	// calc__multiply
}
