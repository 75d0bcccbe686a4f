package genkitmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	genkitmcp "github.com/cuca-go/mcpconnector/adapters/genkit"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

// BenchmarkToolCall: one call of alpha's add through Genkit's tool
// interface (the ai.Tool Genkit looks up and runs, RunRaw), by default and
// WithToolSpans, against the same call through the toolbox's CallTool,
// interleaved.
func BenchmarkToolCall(b *testing.B) {
	box := agenttest.Open(b, agenttest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	lookup := func(opts ...genkitmcp.Option) ai.Tool {
		g := genkit.Init(ctx)
		if _, _, err := genkitmcp.Tools(ctx, g, box, opts...); err != nil {
			b.Fatal(err)
		}
		add := genkit.LookupTool(g, agenttest.BenchTool)
		if add == nil {
			b.Fatal("no bench tool")
		}
		return add
	}
	add, spanned := lookup(), lookup(genkitmcp.WithToolSpans())
	// The input as Genkit hands a tool the model's: its JSON, decoded.
	var in any
	if err := json.Unmarshal([]byte(agenttest.BenchArgs), &in); err != nil {
		b.Fatal(err)
	}
	subject := func(name string, tool ai.Tool) agenttest.Subject {
		return agenttest.Subject{Name: name, New: func() agenttest.Op {
			return func(ctx context.Context) error {
				out, err := tool.RunRaw(ctx, in)
				if err != nil {
					return err
				}
				if out != agenttest.BenchWant {
					return fmt.Errorf("result %#v", out)
				}
				return nil
			}
		}}
	}
	agenttest.Bench(b, box, subject("genkit RunRaw", add), subject("genkit RunRaw WithToolSpans", spanned))
}
