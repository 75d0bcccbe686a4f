package openaimcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	openaimcp "github.com/cuca-go/mcpconnector/adapters/openai"
	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

// BenchmarkToolCall: one call of alpha's add through ToolMessages (Chat
// Completions) and through FunctionCallOutputs (Responses), against the
// same call through the toolbox's CallTool, interleaved.
func BenchmarkToolCall(b *testing.B) {
	box := agenttest.Open(b, agenttest.Options{})
	ts := openaimcp.Tools(box)
	var msg openai.ChatCompletionMessage
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%q}}]}`,
		agenttest.BenchTool, agenttest.BenchArgs)), &msg); err != nil {
		b.Fatal(err)
	}
	var resp responses.Response
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"id":"resp_1","object":"response","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":%q,"arguments":%q,"status":"completed"}]}`,
		agenttest.BenchTool, agenttest.BenchArgs)), &resp); err != nil {
		b.Fatal(err)
	}
	agenttest.Bench(b, box,
		agenttest.Subject{Name: "openai ToolMessages", New: func() agenttest.Op {
			return func(ctx context.Context) error {
				out := ts.ToolMessages(ctx, msg)
				if len(out) != 1 || out[0].OfTool.Content.OfString.Value != agenttest.BenchWant {
					return fmt.Errorf("tool messages %+v", out)
				}
				return nil
			}
		}},
		agenttest.Subject{Name: "openai FunctionCallOutputs", New: func() agenttest.Op {
			return func(ctx context.Context) error {
				out := ts.FunctionCallOutputs(ctx, &resp)
				if len(out) != 1 || out[0].OfFunctionCallOutput.Output.OfString.Value != agenttest.BenchWant {
					return fmt.Errorf("outputs %+v", out)
				}
				return nil
			}
		}})
}
