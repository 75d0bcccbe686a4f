package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
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
