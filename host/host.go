package host

import (
	"context"
	"encoding/json"
)

// Plugin is the host contract: an LLM client calls these hooks around every
// request it streams. Embed [Base] to get no-op defaults and override only the
// hooks you need.
type Plugin interface {
	// Name identifies the plugin, for logs and errors.
	Name() string
	// OnRequest runs before the request is sent; it may edit the request.
	OnRequest(ctx context.Context, req *Request) error
	// OnStreamChunk runs on every complete chunk of the streamed answer; it
	// may replace blocks in place. The stream waits while it runs.
	OnStreamChunk(ctx context.Context, chunk *Chunk) error
	// OnResponseComplete runs once the whole answer has arrived.
	OnResponseComplete(ctx context.Context, resp *Response) error
	// ExecuteLocalTool offers to run a tool call in-process. It reports
	// handled=false when the plugin does not own the tool.
	ExecuteLocalTool(ctx context.Context, call ToolCall) (result ToolResult, handled bool, err error)
}

// Base implements every [Plugin] hook as a no-op. Embed it and override the
// hooks a plugin acts on.
type Base struct{}

// Name returns "base"; plugins that embed Base override it.
func (Base) Name() string { return "base" }

// OnRequest does nothing.
func (Base) OnRequest(context.Context, *Request) error { return nil }

// OnStreamChunk does nothing.
func (Base) OnStreamChunk(context.Context, *Chunk) error { return nil }

// OnResponseComplete does nothing.
func (Base) OnResponseComplete(context.Context, *Response) error { return nil }

// ExecuteLocalTool handles nothing.
func (Base) ExecuteLocalTool(context.Context, ToolCall) (ToolResult, bool, error) {
	return ToolResult{}, false, nil
}

// Block is one piece of a model's message: [Text], [Thinking], [ToolCall] or
// [ToolResult]. The set is closed; blocks are small values, not pointers.
type Block interface{ isBlock() }

// Text is visible answer text.
type Text struct {
	Text string
}

// Thinking is reasoning text the model produced before or between answers.
type Thinking struct {
	Text string
}

// ToolCall is a model's request to run a tool. Arguments is the JSON text the
// model produced; it may be empty, null, or malformed.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// ToolResult is the outcome of a [ToolCall], matched to it by ToolCallID.
// Content is the rendered text the model reads; IsError marks a failure.
type ToolResult struct {
	ToolCallID string
	Name       string
	Content    string
	IsError    bool
}

func (Text) isBlock()       {}
func (Thinking) isBlock()   {}
func (ToolCall) isBlock()   {}
func (ToolResult) isBlock() {}

// Chunk is one complete piece of a streamed answer, as handed to
// [Plugin.OnStreamChunk]. Hooks may replace its blocks in place.
type Chunk struct {
	Blocks []Block
}

// Role says who wrote a [Message].
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role   Role
	Blocks []Block
}

// ToolDefinition publishes a tool to the model: its name, what it does, and
// the JSON Schema of its arguments.
type ToolDefinition struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is what an LLM client sends: the model, the conversation, and the
// tools the model may call.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolDefinition
}

// NewRequest returns an empty request for model.
func NewRequest(model string) *Request { return &Request{Model: model} }

// AddMessage appends a message and returns the request, for chaining.
func (r *Request) AddMessage(role Role, blocks ...Block) *Request {
	r.Messages = append(r.Messages, Message{Role: role, Blocks: blocks})
	return r
}

// AddTool publishes a tool and returns the request, for chaining.
func (r *Request) AddTool(t ToolDefinition) *Request {
	r.Tools = append(r.Tools, t)
	return r
}

// Response is a complete answer, handed to [Plugin.OnResponseComplete]: the
// final blocks (tool results included) and why the model stopped.
type Response struct {
	Blocks       []Block
	FinishReason string
}

// FirstToolCall returns the index of the first [ToolCall] in blocks whose
// name is a key of known, or -1. It is the pass-through test of the hooks
// (a plugin's known tools, a toolbox's exposed names): a map lookup per
// ToolCall, no allocation.
func FirstToolCall[V any](blocks []Block, known map[string]V) int {
	for i, b := range blocks {
		if tc, ok := b.(ToolCall); ok {
			if _, found := known[tc.Name]; found {
				return i
			}
		}
	}
	return -1
}
