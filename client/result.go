package client

import (
	"strings"

	"github.com/cuca-go/mcpconnector/host"
)

// Result is one streamed answer after every hook has run.
type Result struct {
	// Blocks is the answer in stream order, as the plugins left it: a tool
	// call that a plugin executed appears as its ToolResult, a tool call no
	// plugin claimed appears as the ToolCall. Consecutive reasoning deltas
	// form one Thinking block, consecutive text deltas one Text block.
	Blocks []host.Block
	// ToolCalls is every tool call the model made, as it streamed them,
	// before any plugin replaced them. Use it to send a ToolResult back with
	// the call it answers (see [Result.Messages]).
	ToolCalls []host.ToolCall
	// FinishReason is the server's finish_reason: "stop", "tool_calls",
	// "length", "content_filter"; empty if the stream was cut short.
	FinishReason string
	// ThinkingBlocks counts the streamed deltas that carried reasoning text
	// (the reasoning_content or reasoning field), one per delta. Servers
	// stream reasoning roughly a token per delta, so this is about the
	// number of reasoning tokens; it is the number the mcp example prints
	// as "thinking blocks". The Thinking blocks in Blocks are fewer: each
	// run of reasoning deltas is merged into one.
	ThinkingBlocks int
}

// Text returns the answer's Text blocks joined without separator, as the
// model streamed them.
func (r *Result) Text() string {
	var b strings.Builder
	for _, blk := range r.Blocks {
		if t, ok := blk.(host.Text); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// ToolResults returns the answer's ToolResult blocks in order.
func (r *Result) ToolResults() []host.ToolResult {
	var out []host.ToolResult
	for _, blk := range r.Blocks {
		if t, ok := blk.(host.ToolResult); ok {
			out = append(out, t)
		}
	}
	return out
}

// PendingToolCalls returns the ToolCall blocks no plugin executed: unknown
// tools, for the caller to run or refuse.
func (r *Result) PendingToolCalls() []host.ToolCall {
	var out []host.ToolCall
	for _, blk := range r.Blocks {
		if t, ok := blk.(host.ToolCall); ok {
			out = append(out, t)
		}
	}
	return out
}

// Messages returns the answer as conversation turns to append to the next
// request: an assistant message with the text, the thinking and every tool
// call (a call a plugin executed is restored from [Result.ToolCalls]),
// followed, if any tool ran, by a tool message with the results. Servers
// require a tool result to follow the assistant turn that called it.
func (r *Result) Messages() []host.Message {
	calls := make(map[string]host.ToolCall, len(r.ToolCalls))
	for _, c := range r.ToolCalls {
		calls[c.ID] = c
	}
	assistant := host.Message{Role: host.RoleAssistant}
	tool := host.Message{Role: host.RoleTool}
	for _, blk := range r.Blocks {
		res, ok := blk.(host.ToolResult)
		if !ok {
			assistant.Blocks = append(assistant.Blocks, blk)
			continue
		}
		call, found := calls[res.ToolCallID]
		if !found {
			call = host.ToolCall{ID: res.ToolCallID, Name: res.Name}
		}
		assistant.Blocks = append(assistant.Blocks, call)
		tool.Blocks = append(tool.Blocks, res)
	}
	out := []host.Message{assistant}
	if len(tool.Blocks) > 0 {
		out = append(out, tool)
	}
	return out
}
