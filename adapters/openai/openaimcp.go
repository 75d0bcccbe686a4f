package openaimcp

import (
	"context"
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
)

// Source is what [Tools] takes: a *toolbox.Toolbox or a
// *plugin.McpPlugin, which both satisfy it as they are.
type Source = agenttools.Source

// Option configures [Tools].
type Option func(*options)

type options struct {
	providerSearch bool
}

// WithProviderSearch hands tool search to the Responses API: every
// function (but those of "alwaysLoad" servers, under the toolbox's tool
// search) is sent with defer_loading and the tool_search tool is added,
// in place of the toolbox's own search tool. Chat Completions, which has no
// provider search, is not changed by it.
func WithProviderSearch() Option { return func(o *options) { o.providerSearch = true } }

// Toolset is a source's tools in the SDK's types. It is safe for
// concurrent use and keeps no conversation state: loads are read from the
// messages it is passed.
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
	return &Toolset{ts: agenttools.New(src, nil), providerSearch: o.providerSearch}
}

// schema returns d's inputSchema as the SDK's map, for reading, and as
// the server's JSON, which the request carries.
func schema(d host.ToolDefinition) (map[string]any, json.RawMessage) {
	raw := d.InputSchema
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		raw, m = json.RawMessage(`{"type":"object"}`), map[string]any{"type": "object"}
	}
	return m, raw
}

// ChatCompletionTools returns the tools of the next Chat Completions
// request of the conversation msgs: with the toolbox's tool search, its
// search tool and the tools msgs loaded; else every tool.
func (t *Toolset) ChatCompletionTools(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion) []openai.ChatCompletionToolUnionParam {
	defs := t.ts.Published(ctx, chatConversation(msgs))
	out := make([]openai.ChatCompletionToolUnionParam, len(defs))
	for i, d := range defs {
		m, raw := schema(d)
		fn := shared.FunctionDefinitionParam{Name: d.Name, Parameters: m}
		if d.Description != "" {
			fn.Description = openai.String(d.Description)
		}
		fn.SetExtraFields(map[string]any{"parameters": raw})
		out[i] = openai.ChatCompletionFunctionTool(fn)
	}
	return out
}

// chatConversation is the tool calls and results of msgs.
func chatConversation(msgs []openai.ChatCompletionMessageParamUnion) []host.Message {
	var out []host.Message
	for _, m := range msgs {
		switch {
		case m.OfAssistant != nil && len(m.OfAssistant.ToolCalls) > 0:
			blocks := make([]host.Block, 0, len(m.OfAssistant.ToolCalls))
			for _, c := range m.OfAssistant.ToolCalls {
				if c.OfFunction != nil {
					blocks = append(blocks, host.ToolCall{ID: c.OfFunction.ID, Name: c.OfFunction.Function.Name})
				}
			}
			out = append(out, host.Message{Role: host.RoleAssistant, Blocks: blocks})
		case m.OfTool != nil:
			text := m.OfTool.Content.OfString.Value
			for _, p := range m.OfTool.Content.OfArrayOfContentParts {
				text += p.Text
			}
			out = append(out, host.Message{Role: host.RoleTool, Blocks: []host.Block{host.ToolResult{ToolCallID: m.OfTool.ToolCallID, Content: text}}})
		}
	}
	return out
}

// ToolMessages runs the function calls of the model's message msg, all at
// once, and returns one tool message per call, in order, to append to the
// conversation after msg; none when msg called no function. A failure is
// the call's result text, as the toolbox renders it.
func (t *Toolset) ToolMessages(ctx context.Context, msg openai.ChatCompletionMessage) []openai.ChatCompletionMessageParamUnion {
	var calls []host.ToolCall
	for _, c := range msg.ToolCalls {
		if c.Type == "function" || c.Type == "" {
			calls = append(calls, host.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
		}
	}
	results := t.ts.CallEach(ctx, calls)
	out := make([]openai.ChatCompletionMessageParamUnion, len(calls))
	for i, r := range results {
		out[i] = openai.ToolMessage(r.Text, calls[i].ID)
	}
	return out
}

// ResponseTools returns the tools of the next Responses request of the
// conversation input. With [WithProviderSearch]: the tool_search tool and
// every function, deferred but for those of the toolbox's "alwaysLoad"
// servers. Else with the toolbox's tool search: its search
// tool and the tools input loaded; else every function.
func (t *Toolset) ResponseTools(ctx context.Context, input responses.ResponseInputParam) []responses.ToolUnionParam {
	var defs []host.ToolDefinition
	var out []responses.ToolUnionParam
	var always map[string]bool
	if t.providerSearch {
		always = t.ts.AlwaysLoaded(ctx)
		defs = t.ts.All()
		out = make([]responses.ToolUnionParam, 0, len(defs)+1)
		out = append(out, responses.ToolUnionParam{OfToolSearch: &responses.ToolSearchToolParam{}})
	} else {
		defs = t.ts.Published(ctx, responseConversation(input))
		out = make([]responses.ToolUnionParam, 0, len(defs))
	}
	for _, d := range defs {
		m, raw := schema(d)
		fn := &responses.FunctionToolParam{Name: d.Name, Parameters: m, Strict: openai.Bool(false)}
		if d.Description != "" {
			fn.Description = openai.String(d.Description)
		}
		if t.providerSearch && !always[d.Name] {
			fn.DeferLoading = openai.Bool(true)
		}
		fn.SetExtraFields(map[string]any{"parameters": raw})
		out = append(out, responses.ToolUnionParam{OfFunction: fn})
	}
	return out
}

// responseConversation is the function calls and outputs of input.
func responseConversation(input responses.ResponseInputParam) []host.Message {
	var out []host.Message
	for _, it := range input {
		switch {
		case it.OfFunctionCall != nil:
			out = append(out, host.Message{Role: host.RoleAssistant, Blocks: []host.Block{
				host.ToolCall{ID: it.OfFunctionCall.CallID, Name: it.OfFunctionCall.Name}}})
		case it.OfFunctionCallOutput != nil:
			o := it.OfFunctionCallOutput
			text := o.Output.OfString.Value
			out = append(out, host.Message{Role: host.RoleTool, Blocks: []host.Block{
				host.ToolResult{ToolCallID: o.CallID.Value, Name: o.Name.Value, Content: text}}})
		}
	}
	return out
}

// FunctionCallOutputs runs the function calls of the model's response,
// all at once, and returns one function_call_output item per call, in
// order (each naming its function), for the next request's input; none
// when the response called no function. A failure is the call's output
// text, as the toolbox renders it.
func (t *Toolset) FunctionCallOutputs(ctx context.Context, resp *responses.Response) []responses.ResponseInputItemUnionParam {
	if resp == nil {
		return nil
	}
	var calls []host.ToolCall
	for _, it := range resp.Output {
		if it.Type == "function_call" {
			// The union's own fields: AsFunctionCall would decode the item again.
			calls = append(calls, host.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments.OfString)})
		}
	}
	results := t.ts.CallEach(ctx, calls)
	out := make([]responses.ResponseInputItemUnionParam, len(calls))
	for i, r := range results {
		item := responses.ResponseInputItemParamOfFunctionCallOutput(r.Text)
		item.OfFunctionCallOutput.CallID = openai.String(calls[i].ID)
		item.OfFunctionCallOutput.Name = openai.String(calls[i].Name)
		out[i] = item
	}
	return out
}
