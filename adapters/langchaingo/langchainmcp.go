package langchainmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/tools"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/agenttools"
)

// Source is what [Tools] takes: a *plugin.McpPlugin (one server) or a
// *toolbox.Toolbox (many servers) satisfy it as they are.
type Source interface {
	// ToolDefinitions lists every exposed tool with its inputSchema as the
	// server sent it.
	ToolDefinitions() []host.ToolDefinition
	// OnRequest publishes the tools of a conversation (tool search).
	OnRequest(ctx context.Context, req *host.Request) error
	// OnStreamChunk runs the model's tool calls with the approval, the
	// result cap, the held tools and the rendering of the source.
	OnStreamChunk(ctx context.Context, chunk *host.Chunk) error
}

// Option configures [Tools].
type Option func(*options)

type options struct {
	core agenttools.Options
}

// WithCallToolName names the call tool that [Tools] adds with tool search
// ("call_tool" by default).
func WithCallToolName(name string) Option {
	return func(o *options) { o.core.CallToolName = name }
}

// Tools returns src's tools as langchaingo tools, for an agent
// (agents.NewOneShotAgent, agents.NewOpenAIFunctionsAgent,
// agents.NewConversationalAgent) and its executor.
//
// Each is named by its exposed name. langchaingo hands a tool one string,
// so the input is the tool's arguments as a JSON object, such as
// {"city": "Oslo"}; the description ends with the JSON Schema of that
// object, as the server sent it, for the model to follow. An empty input
// means no arguments, and a JSON string holding the object is taken too
// (as a model writing "Action Input:" sometimes sends it). A call's
// failure, a denied approval, a held tool, a result over the cap and an
// input that is not a JSON object are the tool's output text, the
// observation the model reads; the executor goes on. When ctx ends, the MCP
// call is cancelled on the server and Call returns ctx's error, which ends
// the executor's run.
//
// With a toolbox opened with tool search, langchaingo's tool list is fixed
// when the agent is built, so the tools are the search tool, one call tool
// that runs a loaded tool by its exposed name with its arguments
// ({"name": "...", "arguments": {...}}), and the tools of "alwaysLoad"
// servers; the search result gives the loaded tools' input schemas.
func Tools(ctx context.Context, src Source, opts ...Option) ([]tools.Tool, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ts := agenttools.New(src, &o.core)
	_, fixed := ts.SearchTool(ctx)
	defs := ts.Fixed(ctx)
	out := make([]tools.Tool, len(defs))
	for i, d := range defs {
		out[i] = &mcpTool{ts: ts, name: d.Name, desc: describe(d), fixed: fixed}
	}
	return out, nil
}

// describe is the tool's description with the schema of its input.
func describe(d host.ToolDefinition) string {
	schema := d.InputSchema
	var b bytes.Buffer
	if len(schema) == 0 || json.Compact(&b, schema) != nil {
		b.Reset()
		b.WriteString(`{"type":"object"}`)
	}
	desc := strings.TrimSpace(d.Description)
	if desc != "" {
		desc += " "
	}
	return desc + "Input: a JSON object of the arguments, with this JSON Schema: " + b.String()
}

// mcpTool is one tool of a toolset as a langchaingo tool.
type mcpTool struct {
	ts    *agenttools.Toolset
	name  string
	desc  string
	fixed bool // the toolset's fixed pair is in use: run with CallFixed
}

var _ tools.Tool = (*mcpTool)(nil)

// Name is the tool's exposed name.
func (t *mcpTool) Name() string { return t.name }

// Description is the tool's description and the schema of its input.
func (t *mcpTool) Description() string { return t.desc }

// Call runs the tool with input, its arguments as a JSON object, and
// returns what the model reads of the call.
func (t *mcpTool) Call(ctx context.Context, input string) (string, error) {
	call := host.ToolCall{Name: t.name, Arguments: arguments(input)}
	var res agenttools.Result
	if t.fixed {
		res = t.ts.CallFixed(ctx, call)
	} else {
		res = t.ts.Call(ctx, call)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("langchainmcp: %s: %w", t.name, err)
	}
	return res.Text, nil
}

// arguments reads a tool's input: empty is no arguments, a Markdown code
// fence around it is dropped, a JSON string is unwrapped once, anything
// else goes as it is (the source says what is wrong with a non-object).
func arguments(input string) json.RawMessage {
	in := strings.TrimSpace(input)
	if strings.HasPrefix(in, "```") && strings.HasSuffix(in, "```") && len(in) >= 6 {
		in = strings.TrimSpace(strings.TrimPrefix(in[3:len(in)-3], "json"))
	}
	if in == "" {
		return nil
	}
	if in[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(in), &inner) == nil {
			in = strings.TrimSpace(inner)
		}
	}
	return json.RawMessage(in)
}
