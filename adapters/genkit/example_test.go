package genkitmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/ollama"

	genkitmcp "github.com/cuca-go/mcpconnector/adapters/genkit"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// ask is docs/adapters.md's example, word for word (TestTheDocsExampleRuns
// checks both).
func ask(ctx context.Context, g *genkit.Genkit, box *toolbox.Toolbox, model ai.Model, prompt string) (string, error) {
	tools, loads, err := genkitmcp.Tools(ctx, g, box) // once per Genkit: it defines the tools on g
	if err != nil {
		return "", err
	}
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt(prompt),
		ai.WithTools(tools...), ai.WithMiddleware(loads))
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// The servers of an mcp.json as Genkit tools, with a model served by
// Ollama through Genkit's Ollama plugin.
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
	o := &ollama.Ollama{ServerAddress: "http://localhost:11434"}
	g := genkit.Init(ctx, genkit.WithPlugins(o))
	model := o.DefineModel(g, ollama.ModelDefinition{Name: "llama3.1", Type: "chat"}, nil)
	answer, err := ask(ctx, g, box, model, "What is the weather in Oslo?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
}
