package anthropicmcp

import (
	"context"
	"encoding/json"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
)

// Source is what [Tools] takes: a *toolbox.Toolbox or a
// *plugin.McpPlugin, which both satisfy it as they are.
type Source = agenttools.Source

// DefaultCallToolName is the name of the call tool of the tool runner's
// fixed pair unless [WithCallToolName] says otherwise.
const DefaultCallToolName = agenttools.DefaultCallToolName

// Option configures [Tools].
type Option func(*options)

type options struct {
	providerSearch bool
	callName       string
}

// WithProviderSearch hands tool search to the API: every tool (but those
// of "alwaysLoad" servers, under the toolbox's tool search) is sent with
// defer_loading and the BM25 tool search tool is added, in place of the
// toolbox's own search tool.
func WithProviderSearch() Option { return func(o *options) { o.providerSearch = true } }

// WithCallToolName names the call tool of the tool runner's fixed pair; ""
// keeps [DefaultCallToolName].
func WithCallToolName(name string) Option { return func(o *options) { o.callName = name } }

// Toolset is a source's tools in the SDK's types. It is safe for
// concurrent use and keeps no conversation state: a hand-written loop's
// loads are read from the messages it passes.
type Toolset struct {
	ts             *agenttools.Toolset
	providerSearch bool
}

// Tools returns the toolset of src. It panics when src is nil.
func Tools(src Source, opts ...Option) *Toolset {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return &Toolset{ts: agenttools.New(src, &agenttools.Options{CallToolName: o.callName}), providerSearch: o.providerSearch}
}

// rawSchema is a definition's inputSchema as it is, or an empty object's.
func rawSchema(d host.ToolDefinition) json.RawMessage {
	if len(d.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return d.InputSchema
}

// toolParam is d as a Messages API tool: the schema is the server's JSON,
// sent as it is.
func toolParam(d host.ToolDefinition, deferred bool) anthropic.ToolUnionParam {
	t := &anthropic.ToolParam{
		Name:        d.Name,
		InputSchema: param.Override[anthropic.ToolInputSchemaParam](rawSchema(d)),
	}
	if d.Description != "" {
		t.Description = anthropic.String(d.Description)
	}
	if deferred {
		t.DeferLoading = anthropic.Bool(true)
	}
	return anthropic.ToolUnionParam{OfTool: t}
}

// ToolParams returns the tools of the next request of a hand-written loop
// whose conversation is msgs. With the toolbox's tool search: its search
// tool and the tools msgs loaded; with [WithProviderSearch]: the tool
// search tool and every tool, deferred; else every tool.
func (t *Toolset) ToolParams(ctx context.Context, msgs []anthropic.MessageParam) []anthropic.ToolUnionParam {
	if t.providerSearch {
		all, always := t.ts.All(), t.ts.AlwaysLoaded(ctx)
		out := make([]anthropic.ToolUnionParam, 0, len(all)+1)
		out = append(out, anthropic.ToolUnionParam{OfToolSearchToolBm25_20251119: &anthropic.ToolSearchToolBm25_20251119Param{
			Type: anthropic.ToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119,
		}})
		for _, d := range all {
			out = append(out, toolParam(d, !always[d.Name]))
		}
		return out
	}
	defs := t.ts.Published(ctx, conversation(msgs))
	out := make([]anthropic.ToolUnionParam, len(defs))
	for i, d := range defs {
		out[i] = toolParam(d, false)
	}
	return out
}

// conversation is the tool calls and results of msgs, as the toolbox
// reads loads from them.
func conversation(msgs []anthropic.MessageParam) []host.Message {
	var out []host.Message
	for _, m := range msgs {
		switch {
		case m.OfAssistant != nil:
			var blocks []host.Block
			for _, b := range m.OfAssistant.Content {
				if b.OfToolUse != nil {
					blocks = append(blocks, host.ToolCall{ID: b.OfToolUse.ID, Name: b.OfToolUse.Name})
				}
			}
			if blocks != nil {
				out = append(out, host.Message{Role: host.RoleAssistant, Blocks: blocks})
			}
		case m.OfUser != nil:
			var blocks []host.Block
			for _, b := range m.OfUser.Content {
				if r := b.OfToolResult; r != nil {
					var text strings.Builder
					for _, c := range r.Content {
						if c.OfText != nil {
							text.WriteString(c.OfText.Text)
						}
					}
					blocks = append(blocks, host.ToolResult{ToolCallID: r.ToolUseID, Content: text.String(), IsError: r.IsError.Value})
				}
			}
			if blocks != nil {
				out = append(out, host.Message{Role: host.RoleTool, Blocks: blocks})
			}
		}
	}
	return out
}

// ToolResults runs the tool_use blocks of the model's message msg, all at
// once, and returns their tool_result blocks in order, for the user
// message of the next request (anthropic.NewUserMessage); none when msg
// called no tool. A failure is an is_error result with the toolbox's text.
func (t *Toolset) ToolResults(ctx context.Context, msg *anthropic.Message) []anthropic.ContentBlockParamUnion {
	if msg == nil {
		return nil
	}
	var calls []host.ToolCall
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			// The union's own fields: AsToolUse would decode the block again.
			calls = append(calls, host.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
	}
	results := t.ts.CallEach(ctx, calls)
	out := make([]anthropic.ContentBlockParamUnion, len(calls))
	for i, r := range results {
		out[i] = anthropic.NewToolResultBlock(calls[i].ID, r.Text, r.IsError)
	}
	return out
}
