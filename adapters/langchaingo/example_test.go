package langchainmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"

	langchainmcp "github.com/cuca-go/mcpconnector/adapters/langchaingo"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// The servers of an mcp.json as the tools of langchaingo's OpenAI
// functions agent, with a model served by Ollama (any OpenAI-compatible
// endpoint will do).
func Example() {
	ctx := context.Background()
	tb := must(toolbox.Open(ctx, must(toolbox.LoadConfig("mcp.json"))))
	defer tb.Close()
	llm := must(openai.New(openai.WithBaseURL("http://localhost:11434/v1"), openai.WithModel("llama3.1"), openai.WithToken("ollama")))
	agent := agents.NewOpenAIFunctionsAgent(llm, must(langchainmcp.Tools(ctx, tb)))
	answer := must(chains.Run(ctx, agents.NewExecutor(agent), "What is the weather in Oslo?"))
	fmt.Println(answer)
}

// must returns v, or ends the example on err.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
