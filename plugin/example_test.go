package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The README's tour (README.md, "A tour"): an MCP server, the plugin, a
// model that calls a tool while its answer streams, and a direct call.
// TestReadmeTourIsTheExample keeps the README's code block and this body
// the same.
func Example_tour() {
	ctx := context.Background()

	// An MCP server with one tool, add: go-sdk's, on loopback Streamable HTTP,
	// stateless as MCP 2026-07-28 requires. Yours is a command or a URL.
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	// Connect: server/discover, then tools/list. A stdio server instead is
	// transport.NewStdio("github-mcp-server", "stdio") (no shell: args are
	// passed as they are), or plugin.ConnectStdio(ctx, "my-server").
	calc, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
	if err != nil {
		log.Fatal(err) // a *plugin.Error: errors.Is(err, plugin.ErrIO) etc.
	}
	defer calc.Close() // ends the session; a stdio child: stdin closed, then SIGTERM, then SIGKILL

	// A stand-in for llama-server that answers with one call of add. With a
	// real model, drop it and the WithBaseURL option below: LlamaCpp means
	// http://localhost:1234/v1.
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1",`+
			`"type":"function","function":{"name":"add","arguments":"{\"a\":21,\"b\":21}"}}]}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n"+
			"data: [DONE]\n\n")
	}))
	defer model.Close()

	// Publish the discovered tools (sorted by name) to the model.
	req := host.NewRequest("google/gemma-4-12b-qat").
		AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"})
	for _, def := range calc.ToolDefinitions() {
		req.AddTool(def)
	}

	// Register the plugin with the client: while the answer streams, each
	// ToolCall naming a discovered tool becomes a ToolResult with the same id.
	c, err := client.New(
		client.WithProvider(client.LlamaCpp),
		client.WithBaseURL(model.URL+"/v1"),
		client.WithPlugin(calc),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()
	res, err := c.Stream(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.ToolResults() {
		fmt.Println(r.ToolCallID, r.Name, r.Content) // call_1 add 42
	}
	// To go on, append res.Messages() to req.Messages and stream again.

	// Or call a tool directly: a future, cancelled by ctx.
	out, err := calc.CallTool(ctx, "add", map[string]any{"a": 40, "b": 2}).Await(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plugin.RenderResult(out)) // 42
	// Output:
	// call_1 add 42
	// 42
}

// Connect to an MCP server and list its tools. The server is go-sdk's, on
// loopback Streamable HTTP: stateless, as MCP 2026-07-28 requires.
func ExampleConnect() {
	type addArgs struct {
		A int `json:"a" jsonschema:"the first number"`
		B int `json:"b" jsonschema:"the second number"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "now", Description: "The time, in RFC 3339"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "2026-07-28T12:00:00Z"}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	ctx := context.Background()
	calc, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	defer calc.Close()

	// The tools as the server describes them, sorted by name ...
	for _, t := range calc.Tools() {
		fmt.Printf("%s: %s\n", t.Name, t.Description)
	}
	// ... and as a request publishes them to the model.
	def := calc.ToolDefinitions()[0]
	fmt.Printf("%s %s\n", def.Name, def.InputSchema)
	fmt.Println(calc.Status().State)
	// Output:
	// add: Add two numbers
	// now: The time, in RFC 3339
	// add {"additionalProperties":false,"properties":{"a":{"description":"the first number","type":"integer"},"b":{"description":"the second number","type":"integer"}},"required":["a","b"],"type":"object"}
	// ready
}

// Call a tool and print its result as the model reads it. Arguments are
// anything that marshals to a JSON object; a result the server marked
// isError comes back as a result, not an error.
func ExampleMcpPlugin_CallTool() {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "divide", Description: "Divide a by b"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			if in.B == 0 {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "division by zero"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	ctx := context.Background()
	calc, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	defer calc.Close()

	// CallTool returns at once; Await waits for the server's answer.
	res, err := calc.CallTool(ctx, "add", addArgs{A: 21, B: 21}).Await(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plugin.RenderResult(res))

	// The server's own failure: a result with IsError.
	res, err = calc.CallTool(ctx, "divide", json.RawMessage(`{"a":1,"b":0}`)).Await(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, plugin.RenderResult(res))

	// Arguments that are not a JSON object never reach the server.
	_, err = calc.CallTool(ctx, "add", []int{21, 21}).Await(ctx)
	fmt.Println(errors.Is(err, plugin.ErrValidation))
	// Output:
	// 42
	// true tool error: division by zero
	// true
}

// The hook an LLM client calls on every chunk of a streamed answer: each
// ToolCall naming one of the server's tools becomes a ToolResult with the
// same id; other blocks, and calls of tools the server does not have, pass
// through untouched.
func ExampleMcpPlugin_OnStreamChunk() {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	ctx := context.Background()
	calc, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	defer calc.Close()

	// A chunk as a client hands it over: the tool calls of one turn, in the
	// model's order. They run at once; the hook returns when all have answered.
	chunk := &host.Chunk{Blocks: []host.Block{
		host.Text{Text: "Let me add those."},
		host.ToolCall{ID: "call_1", Name: "add", Arguments: json.RawMessage(`{"a":21,"b":21}`)},
		host.ToolCall{ID: "call_2", Name: "add", Arguments: json.RawMessage(`{"a":"x"}`)},
		host.ToolCall{ID: "call_3", Name: "weather", Arguments: json.RawMessage(`{}`)},
	}}
	if err := calc.OnStreamChunk(ctx, chunk); err != nil {
		log.Fatal(err)
	}
	for _, b := range chunk.Blocks {
		switch b := b.(type) {
		case host.Text:
			fmt.Printf("Text %q\n", b.Text)
		case host.ToolResult:
			fmt.Printf("ToolResult %s %s error=%v: %s\n", b.ToolCallID, b.Name, b.IsError, b.Content)
		case host.ToolCall:
			fmt.Printf("ToolCall %s %s (not this server's)\n", b.ID, b.Name)
		}
	}
	// Output:
	// Text "Let me add those."
	// ToolResult call_1 add error=false: 42
	// ToolResult call_2 add error=true: tool error: validating "arguments": validating root: validating /properties/a: type: x has type "string", want "integer"
	// ToolCall call_3 weather (not this server's)
}
