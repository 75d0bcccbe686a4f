package anthropicmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"

	anthropicmcp "github.com/cuca-go/mcpconnector/adapters/anthropic"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

// BenchmarkToolCall: one call of alpha's add through the BetaTool the
// runner executes and through ToolResults (a hand-written loop), against
// the same call through the toolbox's CallTool, interleaved.
func BenchmarkToolCall(b *testing.B) {
	box := agenttest.Open(b, agenttest.Options{})
	ts := anthropicmcp.Tools(box)
	var tool anthropic.BetaTool
	for _, t := range ts.BetaTools(context.Background()) {
		if t.Name() == agenttest.BenchTool {
			tool = t
		}
	}
	if tool == nil {
		b.Fatal("no bench tool")
	}
	var msg anthropic.Message
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"id":"msg_1","type":"message","role":"assistant","model":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":%q,"input":%s}]}`,
		agenttest.BenchTool, agenttest.BenchArgs)), &msg); err != nil {
		b.Fatal(err)
	}
	input := json.RawMessage(agenttest.BenchArgs)
	agenttest.Bench(b, box,
		agenttest.Subject{Name: "anthropic BetaTool.Execute", New: func() agenttest.Op {
			return func(ctx context.Context) error {
				out, err := tool.Execute(ctx, input)
				if err != nil {
					return err
				}
				if len(out) != 1 || out[0].OfText.Text != agenttest.BenchWant {
					return fmt.Errorf("content %+v", out)
				}
				return nil
			}
		}},
		agenttest.Subject{Name: "anthropic ToolResults", New: func() agenttest.Op {
			return func(ctx context.Context) error {
				out := ts.ToolResults(ctx, &msg)
				if len(out) != 1 || out[0].OfToolResult.Content[0].OfText.Text != agenttest.BenchWant {
					return fmt.Errorf("results %+v", out)
				}
				return nil
			}
		}})
}
