package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/cuca-go/mcpconnector/host"
)

// emptySchema is the input schema of a tool published without one: an object
// with no properties, which every OpenAI-compatible server accepts.
var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}}

// toParams maps a request onto the chat-completions wire format:
//
//   - system and user messages send their Text blocks joined by newlines;
//   - an assistant message sends its Text as content and its ToolCall blocks
//     as tool_calls;
//   - every ToolResult, in whatever message, becomes a "tool" message with
//     its tool_call_id, placed after the message that holds it (before it,
//     for a user message, since tool results must follow the assistant turn
//     that called them);
//   - Thinking blocks are not sent back.
func toParams(req *host.Request, model string) (openai.ChatCompletionNewParams, error) {
	var p openai.ChatCompletionNewParams
	if req.Model != "" {
		model = req.Model
	}
	p.Model = shared.ChatModel(model)

	for i, m := range req.Messages {
		msgs, err := messageParams(m)
		if err != nil {
			return p, fmt.Errorf("%w: message %d (%s): %w", ErrRequest, i, m.Role, err)
		}
		p.Messages = append(p.Messages, msgs...)
	}
	for _, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, fmt.Errorf("%w: tool %q: %w", ErrRequest, t.Name, err)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

func messageParams(m host.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var (
		texts   []string
		calls   []openai.ChatCompletionMessageToolCallUnionParam
		results []openai.ChatCompletionMessageParamUnion
	)
	for _, b := range m.Blocks {
		switch b := b.(type) {
		case host.Text:
			texts = append(texts, b.Text)
		case host.Thinking:
		case host.ToolCall:
			if m.Role != host.RoleAssistant {
				return nil, fmt.Errorf("a ToolCall block belongs in an assistant message")
			}
			calls = append(calls, toolCallParam(b))
		case host.ToolResult:
			if b.ToolCallID == "" {
				return nil, fmt.Errorf("a ToolResult block needs a ToolCallID")
			}
			results = append(results, openai.ToolMessage(b.Content, b.ToolCallID))
		default:
			return nil, fmt.Errorf("unknown block type %T", b)
		}
	}
	text := strings.Join(texts, "\n")

	switch m.Role {
	case host.RoleSystem:
		if len(results) > 0 {
			return nil, fmt.Errorf("a ToolResult block does not belong in a system message")
		}
		return []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(text)}, nil
	case host.RoleUser:
		if len(texts) == 0 {
			return results, nil
		}
		return append(results, openai.UserMessage(text)), nil
	case host.RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if len(texts) > 0 {
			a.Content.OfString = param.NewOpt(text)
		}
		a.ToolCalls = calls
		out := []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}
		return append(out, results...), nil
	case host.RoleTool:
		if len(texts) > 0 || len(results) == 0 {
			return nil, fmt.Errorf("a tool message holds ToolResult blocks only")
		}
		return results, nil
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

func toolCallParam(c host.ToolCall) openai.ChatCompletionMessageToolCallUnionParam {
	args := string(c.Arguments)
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return openai.ChatCompletionMessageToolCallUnionParam{
		OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: c.ID,
			Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
				Name:      c.Name,
				Arguments: args,
			},
		},
	}
}

func toolParam(t host.ToolDefinition) (openai.ChatCompletionToolUnionParam, error) {
	schema := emptySchema
	if len(t.InputSchema) > 0 && string(t.InputSchema) != "null" {
		schema = nil
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("input schema is not a JSON object: %w", err)
		}
	}
	fn := shared.FunctionDefinitionParam{
		Name:       t.Name,
		Parameters: shared.FunctionParameters(schema),
	}
	if t.Description != "" {
		fn.Description = param.NewOpt(t.Description)
	}
	return openai.ChatCompletionFunctionTool(fn), nil
}
