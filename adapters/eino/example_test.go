package einomcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	einomcp "github.com/cuca-go/mcpconnector/adapters/eino"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// The servers of an mcp.json as the tools of eino's ReAct agent, with a
// model served by Ollama (any OpenAI-compatible endpoint will do).
func Example() {
	ctx := context.Background()
	tb := must(toolbox.Open(ctx, must(toolbox.LoadConfig("mcp.json"))))
	defer tb.Close()
	model := must(openai.NewChatModel(ctx, &openai.ChatModelConfig{
		BaseURL: "http://localhost:11434/v1", Model: "llama3.1", APIKey: "ollama",
	}))
	agent := must(react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: model,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: must(einomcp.Tools(ctx, tb))},
	}))
	msg := must(agent.Generate(ctx, []*schema.Message{schema.UserMessage("What is the weather in Oslo?")}))
	fmt.Println(msg.Content)
}

// must returns v, or ends the example on err.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
