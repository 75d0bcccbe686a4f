package einomcp_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// step is one turn of a scripted model: the answer to the messages so far.
type step func(msgs []*schema.Message) *schema.Message

// script is the state of a scripted model, shared by the instances
// WithTools returns.
type script struct {
	mu    sync.Mutex
	steps []step
	turns [][]*schema.Message  // the messages of each turn
	tools [][]*schema.ToolInfo // the tools bound at each turn
}

// scripted is a model.ToolCallingChatModel that plays its script, one step
// per Generate or Stream.
type scripted struct {
	s     *script
	tools []*schema.ToolInfo
}

var _ model.ToolCallingChatModel = (*scripted)(nil)

func newModel(steps ...step) (*scripted, *script) {
	s := &script{steps: steps}
	return &scripted{s: s}, s
}

func (m *scripted) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &scripted{s: m.s, tools: tools}, nil
}

func (m *scripted) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	n := len(m.s.turns)
	if n >= len(m.s.steps) {
		return nil, fmt.Errorf("scripted model: no step %d", n+1)
	}
	m.s.turns = append(m.s.turns, append([]*schema.Message(nil), input...))
	m.s.tools = append(m.s.tools, m.tools)
	return m.s.steps[n](input), nil
}

func (m *scripted) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// callTool is a step that calls one tool.
func callTool(id, name, args string) step {
	return func([]*schema.Message) *schema.Message {
		return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}})
	}
}

// answer is a step that answers from the last tool result.
func answer(msgs []*schema.Message) *schema.Message {
	last := msgs[len(msgs)-1]
	return schema.AssistantMessage("the tool said: "+last.Content, nil)
}

// toolMessages are the tool results the model read on its turns.
func (s *script) toolMessages() []*schema.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*schema.Message
	if len(s.turns) == 0 {
		return nil
	}
	for _, m := range s.turns[len(s.turns)-1] {
		if m.Role == schema.Tool {
			out = append(out, m)
		}
	}
	return out
}
