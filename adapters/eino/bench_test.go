package einomcp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/components/tool"

	einomcp "github.com/cuca-go/mcpconnector/adapters/eino"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

// BenchmarkToolCall: one call of alpha's add through eino's InvokableTool,
// against the same call through the toolbox's CallTool, interleaved.
func BenchmarkToolCall(b *testing.B) {
	box := agenttest.Open(b, agenttest.Options{})
	ts, err := einomcp.Tools(context.Background(), box)
	if err != nil {
		b.Fatal(err)
	}
	var add tool.InvokableTool
	for _, t := range ts {
		if info, _ := t.Info(context.Background()); info.Name == agenttest.BenchTool {
			add = t.(tool.InvokableTool)
		}
	}
	if add == nil {
		b.Fatal("no bench tool")
	}
	agenttest.Bench(b, box, agenttest.Subject{Name: "eino InvokableRun", New: func() agenttest.Op {
		return func(ctx context.Context) error {
			out, err := add.InvokableRun(ctx, agenttest.BenchArgs)
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
