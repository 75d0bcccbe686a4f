package anthropicmcp

import (
	"context"
	"encoding/json"
	"errors"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
)

// betaTool is one tool the runner executes.
type betaTool struct {
	ts    *agenttools.Toolset
	def   host.ToolDefinition
	fixed bool // one of the fixed pair's tools: run with CallFixed
}

func (b *betaTool) Name() string        { return b.def.Name }
func (b *betaTool) Description() string { return b.def.Description }

// InputSchema is the server's schema, sent as it is.
func (b *betaTool) InputSchema() anthropic.BetaToolInputSchemaParam {
	return param.Override[anthropic.BetaToolInputSchemaParam](rawSchema(b.def))
}

// Execute runs the call. A failure comes back as an error, which the
// runner sends as an is_error tool_result ("Error: " and the toolbox's
// text) without stopping.
func (b *betaTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	call := host.ToolCall{Name: b.def.Name, Arguments: input}
	var res agenttools.Result
	if b.fixed {
		res = b.ts.CallFixed(ctx, call)
	} else {
		res = b.ts.Call(ctx, call)
	}
	if res.IsError {
		return nil, errors.New(res.Text)
	}
	return []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: res.Text}}}, nil
}

// BetaTools returns the tools the beta tool runner executes: every tool,
// or, with the toolbox's tool search (and no [WithProviderSearch]), the
// fixed pair of its search tool and the call tool, plus the tools of
// "alwaysLoad" servers.
func (t *Toolset) BetaTools(ctx context.Context) []anthropic.BetaTool {
	var defs []host.ToolDefinition
	fixed := !t.providerSearch
	if fixed {
		defs = t.ts.Fixed(ctx)
	} else {
		defs = t.ts.All()
	}
	out := make([]anthropic.BetaTool, len(defs))
	for i, d := range defs {
		out[i] = &betaTool{ts: t.ts, def: d, fixed: fixed}
	}
	return out
}

// BetaToolParams returns the definitions of [Toolset.BetaTools] for the
// runner's params (BetaMessageNewParams.Tools): the runner sends these in
// place of its own. With [WithProviderSearch] each is deferred (but those
// of "alwaysLoad" servers) and the BM25 tool search tool comes first; else
// they are what the runner would send itself.
func (t *Toolset) BetaToolParams(ctx context.Context) []anthropic.BetaToolUnionParam {
	tools := t.BetaTools(ctx)
	out := make([]anthropic.BetaToolUnionParam, 0, len(tools)+1)
	var always map[string]bool
	if t.providerSearch {
		always = t.ts.AlwaysLoaded(ctx)
		out = append(out, anthropic.BetaToolUnionParam{OfToolSearchToolBm25_20251119: &anthropic.BetaToolSearchToolBm25_20251119Param{
			Type: anthropic.BetaToolSearchToolBm25_20251119TypeToolSearchToolBm25_20251119,
		}})
	}
	for _, bt := range tools {
		d := bt.(*betaTool).def
		p := &anthropic.BetaToolParam{Name: d.Name, InputSchema: bt.InputSchema()}
		if d.Description != "" {
			p.Description = anthropic.String(d.Description)
		}
		if t.providerSearch && !always[d.Name] {
			p.DeferLoading = anthropic.Bool(true)
		}
		out = append(out, anthropic.BetaToolUnionParam{OfTool: p})
	}
	return out
}
