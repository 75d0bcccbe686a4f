package einomcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	einomcp "github.com/cuca-go/mcpconnector/adapters/eino"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// ask is docs/adapters.md's example, word for word (TestTheDocsExampleRuns
// checks both).
func ask(ctx context.Context, box *toolbox.Toolbox, model model.ToolCallingChatModel, prompt string) (string, error) {
	tools, err := einomcp.Tools(ctx, box)
	if err != nil {
		return "", err
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: model,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
	})
	if err != nil {
		return "", err
	}
	msg, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage(prompt)})
	if err != nil {
		return "", err
	}
	return msg.Content, nil
}

// The servers of an mcp.json as the tools of eino's ReAct agent, with
// eino-ext's OpenAI model on a model served by Ollama (any OpenAI-compatible
// endpoint will do).
func Example() {
	ctx := context.Background()
	cfg, err := mcpconfig.Load("mcp.json")
	if err != nil {
		log.Fatal(err)
	}
	box, err := toolbox.Open(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer box.Close()
	model, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: "http://localhost:11434/v1", Model: "llama3.1", APIKey: "ollama"})
	if err != nil {
		log.Fatal(err)
	}
	answer, err := ask(ctx, box, model, "What is the weather in Oslo?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
