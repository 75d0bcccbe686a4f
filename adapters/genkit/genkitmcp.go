package genkitmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

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

// ErrDefined is returned by [Tools] when g already has a tool of one of
// src's names (Tools was called twice on g, or the name is taken).
var ErrDefined = errors.New("genkitmcp: a tool of that name is already defined")

// Tools defines src's tools on g, as Genkit tool actions, and returns the
// ones a conversation starts with, for ai.WithTools, and the model
// middleware that keeps the model's tool list current turn by turn, for
// ai.WithMiddleware:
//
//	tools, loads, err := genkitmcp.Tools(ctx, g, tb)
//	resp, err := genkit.Generate(ctx, g, ai.WithPrompt("..."),
//		ai.WithTools(tools...), ai.WithMiddleware(loads))
//
// Every tool is named by its exposed name and takes its inputSchema as the
// server sent it. A call's failure, a denied approval, a held tool and a
// result over the cap are the tool's output text, which the model reads;
// Generate goes on. The arguments reach the server as the model sent
// them: unlike a tool of genkit.DefineTool, Genkit does not check them
// against the schema first (which would end Generate on a mismatch) nor
// drop their null members; the server checks them, and its answer is the
// output. When ctx ends, the MCP call is cancelled on the server and the
// tool fails with ctx's error, which ends Generate.
//
// With a toolbox opened with tool search, the tools are the search tool and
// the tools of "alwaysLoad" servers; the middleware adds, each turn, the
// tools the conversation's searches have loaded (Genkit lets a middleware
// change the request's tools), and every exposed tool is defined on g so
// that Genkit finds the one the model calls. Without tool search the
// middleware keeps the list current when the source's tools change (a
// server that comes up, a live tool list). The middleware leaves the
// request's other tools alone.
//
// The MCP spans of a call (with the plugin's tracer provider) nest under the
// span in the tool's ctx: Genkit's generate span. [WithToolSpans] adds a
// Genkit span of the tool's action between them, as Genkit traces a tool of
// its own.
func Tools(ctx context.Context, g *genkit.Genkit, src Source, opts ...Option) ([]ai.ToolRef, ai.ModelMiddleware, error) {
	s := &toolset{g: g, ts: agenttools.New(src, nil), defs: map[string]*ai.ToolDefinition{}}
	for _, o := range opts {
		o(s)
	}
	all := s.ts.All()
	if search, ok := s.ts.SearchTool(ctx); ok {
		all = append(all, search)
	}
	schemas := make([]map[string]any, len(all))
	for i, d := range all {
		if genkit.LookupTool(g, d.Name) != nil {
			return nil, nil, fmt.Errorf("%w: %q", ErrDefined, d.Name)
		}
		schema, err := inputSchema(d)
		if err != nil {
			return nil, nil, err
		}
		schemas[i] = schema
	}
	s.mu.Lock()
	for i, d := range all {
		if err := s.define(d, schemas[i]); err != nil {
			s.mu.Unlock()
			return nil, nil, err
		}
	}
	s.mu.Unlock()
	start := s.ts.Published(ctx, nil)
	refs := make([]ai.ToolRef, len(start))
	for i, d := range start {
		refs[i] = ai.ToolName(d.Name)
	}
	return refs, s.middleware, nil
}

// Option changes how [Tools] defines the tools.
type Option func(*toolset)

// WithToolSpans runs each call in a Genkit span of the tool's action, as
// Genkit runs a tool of genkit.DefineTool, so that the tool shows in
// Genkit's traces (its developer UI) and the MCP spans nest under it. It
// is off by default: the span costs about 15–25 µs and 26 allocations a
// call here, more than the rest of the adapter (docs/adapters.md).
func WithToolSpans() Option { return func(s *toolset) { s.spans = true } }

// toolset is the tools of one source defined on one Genkit.
type toolset struct {
	g     *genkit.Genkit
	ts    *agenttools.Toolset
	spans bool // WithToolSpans

	mu   sync.Mutex
	defs map[string]*ai.ToolDefinition // the tools defined on g, by name
}

// inputSchema is d's inputSchema as the map Genkit takes.
func inputSchema(d host.ToolDefinition) (map[string]any, error) {
	if len(d.InputSchema) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(d.InputSchema, &schema); err != nil || schema == nil {
		return nil, fmt.Errorf("genkitmcp: tool %q: the inputSchema is not a JSON object", d.Name)
	}
	return schema, nil
}

// define defines d with its schema on g; s.mu is held.
func (s *toolset) define(d host.ToolDefinition, schema map[string]any) error {
	genkit.RegisterAction(s.g, newToolAction(s, d.Name, d.Description, schema))
	t := genkit.LookupTool(s.g, d.Name)
	if t == nil {
		return fmt.Errorf("genkitmcp: tool %q: Genkit does not find it once registered", d.Name)
	}
	s.defs[d.Name] = t.Definition()
	return nil
}

// call runs the model's call of the tool name with args, the model's JSON.
func (s *toolset) call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if string(args) == "null" {
		args = nil
	}
	res := s.ts.Call(ctx, host.ToolCall{Name: name, Arguments: args})
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("genkitmcp: %s: %w", name, err)
	}
	return res.Text, nil
}

// middleware sets the request's tools of this source to those the source
// publishes for the conversation so far.
func (s *toolset) middleware(next ai.ModelFunc) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		pub := s.ts.Published(ctx, conversation(req.Messages))
		tools := make([]*ai.ToolDefinition, 0, len(req.Tools)+len(pub))
		s.mu.Lock()
		for _, t := range req.Tools {
			if _, ours := s.defs[t.Name]; !ours {
				tools = append(tools, t)
			}
		}
		for _, d := range pub {
			def, ok := s.defs[d.Name]
			if !ok {
				// A tool that came after Tools: define it now, so that
				// Genkit finds it when the model calls it.
				schema, err := inputSchema(d)
				if err != nil || genkit.LookupTool(s.g, d.Name) != nil || s.define(d, schema) != nil {
					continue
				}
				def = s.defs[d.Name]
			}
			tools = append(tools, def)
		}
		s.mu.Unlock()
		r := *req
		r.Tools = tools
		return next(ctx, &r, cb)
	}
}

// conversation is the tool calls and results of msgs, as the messages the
// toolset reads a conversation's loads from.
func conversation(msgs []*ai.Message) []host.Message {
	var out []host.Message
	for _, m := range msgs {
		var blocks []host.Block
		role := host.RoleAssistant
		for _, p := range m.Content {
			switch {
			case p.IsToolRequest():
				args, _ := json.Marshal(p.ToolRequest.Input)
				blocks = append(blocks, host.ToolCall{ID: p.ToolRequest.Ref, Name: p.ToolRequest.Name, Arguments: args})
			case p.IsToolResponse():
				role = host.RoleTool
				blocks = append(blocks, host.ToolResult{ToolCallID: p.ToolResponse.Ref, Name: p.ToolResponse.Name, Content: outputText(p.ToolResponse.Output)})
			}
		}
		if len(blocks) > 0 {
			out = append(out, host.Message{Role: role, Blocks: blocks})
		}
	}
	return out
}

// outputText is a tool's output as the model read it: the text itself,
// or the JSON of anything else.
func outputText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
