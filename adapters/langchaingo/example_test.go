package langchainmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	langchainmcp "github.com/cuca-go/mcpconnector/adapters/langchaingo"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// ask is docs/adapters.md's example, word for word (TestTheDocsExampleRuns
// checks both).
func ask(ctx context.Context, box *toolbox.Toolbox, llm llms.Model, prompt string) (string, error) {
	tools, err := langchainmcp.Tools(ctx, box)
	if err != nil {
		return "", err
	}
	agent := agents.NewOpenAIFunctionsAgent(llm, tools)
	return chains.Run(ctx, agents.NewExecutor(agent), prompt)
}

// The servers of an mcp.json as the tools of langchaingo's OpenAI
// functions agent, with a model served by Ollama (any OpenAI-compatible
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
	llm, err := openai.New(openai.WithBaseURL("http://localhost:11434/v1"), openai.WithModel("llama3.1"), openai.WithToken("ollama"))
	if err != nil {
		log.Fatal(err)
	}
	answer, err := ask(ctx, box, llm, "What is the weather in Oslo?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
