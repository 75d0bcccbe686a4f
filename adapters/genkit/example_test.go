package genkitmcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/ollama"

	genkitmcp "github.com/cuca-go/mcpconnector/adapters/genkit"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// The servers of an mcp.json as Genkit tools, with a model served by
// Ollama.
func Example() {
	ctx := context.Background()
	tb := must(toolbox.Open(ctx, must(toolbox.LoadConfig("mcp.json"))))
	defer tb.Close()
	o := &ollama.Ollama{ServerAddress: "http://localhost:11434"}
	g := genkit.Init(ctx, genkit.WithPlugins(o))
	model := o.DefineModel(g, ollama.ModelDefinition{Name: "llama3.1", Type: "chat"}, nil)
	tools, loads, err := genkitmcp.Tools(ctx, g, tb)
	if err != nil {
		log.Fatal(err)
	}
	resp := must(genkit.Generate(ctx, g, ai.WithModel(model), ai.WithPrompt("What is the weather in Oslo?"),
		ai.WithTools(tools...), ai.WithMiddleware(loads)))
	fmt.Println(resp.Text())
}

// must returns v, or ends the example on err.
func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
