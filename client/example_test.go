package client_test

import (
	"context"
	"encoding/json"
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

// chunkCounter is a plugin that counts the chunks it sees.
type chunkCounter struct {
	host.Base
	chunks int
}

func (c *chunkCounter) Name() string { return "chunk-counter" }

func (c *chunkCounter) OnStreamChunk(context.Context, *host.Chunk) error {
	c.chunks++
	return nil
}

// A server streams reasoning, then a tool call whose arguments arrive in two
// pieces. The plugin sees two complete chunks; the tool call, which no plugin
// executes, comes back as a ToolCall.
func ExampleClient_Stream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		sse(w,
			chunk(`{"reasoning_content":"I should "}`, ""),
			chunk(`{"reasoning_content":"add."}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"add","arguments":"{\"a\":21,"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"b\":21}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			"[DONE]")
	}))
	defer srv.Close()

	counter := &chunkCounter{}
	c, err := client.New(
		client.WithProvider(client.OpenAICompatible),
		client.WithBaseURL(srv.URL+"/v1"),
		client.WithPlugin(counter),
	)
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()

	req := host.NewRequest("my-model").
		AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"}).
		AddTool(host.ToolDefinition{Name: "add", Description: "Add two numbers and return their sum"})
	res, err := c.Stream(context.Background(), req)
	if err != nil {
		panic(err)
	}
	for _, b := range res.Blocks {
		fmt.Println(describe(b))
	}
	fmt.Println("finish reason:", res.FinishReason)
	fmt.Println("thinking blocks:", res.ThinkingBlocks)
	fmt.Println("chunks seen by the plugin:", counter.chunks)
	// Output:
	// Thinking("I should add.")
	// ToolCall(call_1 add {"a":21,"b":21})
	// finish reason: tool_calls
	// thinking blocks: 2
	// chunks seen by the plugin: 2
}

// An agent's loop: stream, let the MCP plugin run the tools the model calls,
// append the turn with Result.Messages, and stream again until the model
// answers without calling a tool. The MCP server is go-sdk's, on loopback
// Streamable HTTP (stateless, as MCP 2026-07-28 requires); the model is a
// stand-in that calls add and then answers from its result.
func ExampleResult_Messages() {
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

	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		delta, finish := `{"tool_calls":[{"index":0,"id":"call_1","type":"function",`+
			`"function":{"name":"add","arguments":"{\"a\":21,\"b\":21}"}}]}`, "tool_calls"
		if last := body.Messages[len(body.Messages)-1]; last.Role == "tool" {
			delta, finish = fmt.Sprintf(`{"content":"21 + 21 = %s."}`, last.Content), "stop"
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%q}]}\n\n", delta, finish)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()

	c, err := client.New(
		client.WithProvider(client.OpenAICompatible),
		client.WithBaseURL(model.URL+"/v1"),
		client.WithPlugin(calc),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer c.CloseIdleConnections()

	req := host.NewRequest("my-model").AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"})
	for _, def := range calc.ToolDefinitions() {
		req.AddTool(def)
	}
	for turn := 1; turn <= 5; turn++ {
		res, err := c.Stream(ctx, req)
		if err != nil {
			log.Fatal(err)
		}
		if len(res.ToolResults()) == 0 {
			fmt.Printf("turn %d: %s\n", turn, res.Text())
			break
		}
		for _, call := range res.ToolCalls {
			fmt.Printf("turn %d: the model calls %s(%s)\n", turn, call.Name, call.Arguments)
		}
		for _, r := range res.ToolResults() {
			fmt.Printf("turn %d: the plugin runs it: %s\n", turn, r.Content)
		}
		// The assistant's tool calls, then a tool message with their results.
		for _, m := range res.Messages() {
			fmt.Printf("turn %d: + %s message, %d block(s)\n", turn, m.Role, len(m.Blocks))
		}
		req.Messages = append(req.Messages, res.Messages()...)
	}
	// Output:
	// turn 1: the model calls add({"a":21,"b":21})
	// turn 1: the plugin runs it: 42
	// turn 1: + assistant message, 1 block(s)
	// turn 1: + tool message, 1 block(s)
	// turn 2: 21 + 21 = 42.
}
