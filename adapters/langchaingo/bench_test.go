package langchainmcp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tmc/langchaingo/tools"

	langchainmcp "github.com/cuca-go/mcpconnector/adapters/langchaingo"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

// BenchmarkToolCall: one call of alpha's add through langchaingo's
// tools.Tool, against the same call through the toolbox's CallTool,
// interleaved.
func BenchmarkToolCall(b *testing.B) {
	box := agenttest.Open(b, agenttest.Options{})
	ts, err := langchainmcp.Tools(context.Background(), box)
	if err != nil {
		b.Fatal(err)
	}
	var add tools.Tool
	for _, t := range ts {
		if t.Name() == agenttest.BenchTool {
			add = t
		}
	}
	if add == nil {
		b.Fatal("no bench tool")
	}
	agenttest.Bench(b, box, agenttest.Subject{Name: "langchaingo Call", New: func() agenttest.Op {
		return func(ctx context.Context) error {
			out, err := add.Call(ctx, agenttest.BenchArgs)
			if err != nil {
				return err
			}
			if out != agenttest.BenchWant {
				return fmt.Errorf("result %q", out)
			}
			return nil
		}
	}})
}
