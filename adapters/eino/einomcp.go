package einomcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

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
	core     agenttools.Options
	progress *Progress
}

// WithCallToolName names the call tool that [Tools] adds with tool search
// ("call_tool" by default).
func WithCallToolName(name string) Option {
	return func(o *options) { o.core.CallToolName = name }
}

// Tools returns src's tools as eino tools, for a ToolsNode
// (compose.ToolsNodeConfig.Tools) or the ReAct agent
// (react.AgentConfig.ToolsConfig.Tools).
//
// Each is a [tool.InvokableTool] named by its exposed name, whose ToolInfo
// holds the tool's inputSchema as the server sent it; with [WithProgress]
// each is a [tool.StreamableTool] too. A call's failure, a denied approval,
// a held tool and a result over the cap are the call's result text, which
// the model reads; the run goes on. When ctx of a call ends, the MCP call
// is cancelled on the server and InvokableRun returns ctx's error, which
// ends the run.
//
// With a toolbox opened with tool search, eino's tool list is fixed when
// the agent is built, so the tools are the search tool, one call tool that
// runs a loaded tool by its exposed name with its arguments, and the tools
// of "alwaysLoad" servers; the search result gives the loaded tools' input
// schemas.
func Tools(ctx context.Context, src Source, opts ...Option) ([]tool.BaseTool, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ts := agenttools.New(src, &o.core)
	_, search := ts.SearchTool(ctx)
	defs := ts.Fixed(ctx)
	out := make([]tool.BaseTool, 0, len(defs))
	for _, d := range defs {
		t := &mcpTool{
			ts:    ts,
			name:  d.Name,
			fixed: search,
			info: &schema.ToolInfo{
				Name:        d.Name,
				Desc:        d.Description,
				ParamsOneOf: schema.NewParamsOneOfByJSONSchema(inputSchema(d.InputSchema)),
			},
		}
		if o.progress != nil {
			out = append(out, &streamingTool{mcpTool: t, progress: o.progress})
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// UnknownTools returns a handler for compose.ToolsNodeConfig's
// UnknownToolsHandler that runs a call of a name eino was not given as
// [Tools]' tools run theirs: a tool of src that is not in the list (one
// that came after the agent was built, or, with tool search, a loaded
// tool the model calls by its own name instead of through the call tool)
// runs, and any other name (a held tool, a name the model made up) is
// result text saying so. Without a handler, eino ends the run with an
// error at the first name it does not know.
func UnknownTools(src Source, opts ...Option) func(ctx context.Context, name, input string) (string, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	ts := agenttools.New(src, &o.core)
	return func(ctx context.Context, name, input string) (string, error) {
		t := &mcpTool{ts: ts, name: name, fixed: true}
		return t.run(ctx, callID(ctx), input)
	}
}

// mcpTool is one tool of a toolset as an eino InvokableTool.
type mcpTool struct {
	ts    *agenttools.Toolset
	name  string
	info  *schema.ToolInfo
	fixed bool // the toolset's fixed pair is in use: run with CallFixed
}

var _ tool.InvokableTool = (*mcpTool)(nil)

// Info returns the tool's name, description and input schema.
func (t *mcpTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// InvokableRun runs the call and returns what the model reads of it.
func (t *mcpTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	return t.run(ctx, callID(ctx), argumentsInJSON)
}

func (t *mcpTool) run(ctx context.Context, id, args string) (string, error) {
	call := host.ToolCall{ID: id, Name: t.name, Arguments: json.RawMessage(args)}
	var res agenttools.Result
	if t.fixed {
		res = t.ts.CallFixed(ctx, call)
	} else {
		res = t.ts.Call(ctx, call)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("einomcp: %s: %w", t.name, err)
	}
	return res.Text, nil
}

// callID is eino's id of the call being run, "" outside a ToolsNode.
func callID(ctx context.Context) string { return compose.GetToolCallID(ctx) }
