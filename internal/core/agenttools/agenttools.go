package agenttools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cuca-go/mcpconnector/host"
)

// Source is what an adapter takes: a *plugin.McpPlugin (one server) or a
// *toolbox.Toolbox (many) satisfy it as they are. ToolDefinitions lists
// every exposed tool; OnRequest and OnStreamChunk are the host hooks, which
// publish tools (tool search) and run calls with the seed's rules.
type Source interface {
	ToolDefinitions() []host.ToolDefinition
	OnRequest(ctx context.Context, req *host.Request) error
	OnStreamChunk(ctx context.Context, chunk *host.Chunk) error
}

// DefaultCallToolName is the call tool's name of [Toolset.Fixed] unless
// [Options.CallToolName] says otherwise.
const DefaultCallToolName = "call_tool"

// callSchema is the call tool's input.
const callSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The exact name of a tool that tool search loaded"},` +
	`"arguments":{"type":"object","description":"The tool's arguments, as its input schema in the search result says"}},` +
	`"required":["name"]}`

// Options configure a [Toolset]; nil means the defaults.
type Options struct {
	// CallToolName names the call tool of [Toolset.Fixed]; "" means
	// [DefaultCallToolName].
	CallToolName string
}

// Toolset lists a [Source]'s tools for a framework and runs the model's
// calls of them. It keeps no state of its own and is safe for concurrent
// use; a conversation's loads live in its messages (or a [Conversation]).
type Toolset struct {
	src      Source
	callName string
}

// New returns the toolset of src. It panics when src is nil: that is a
// programmer's error.
func New(src Source, o *Options) *Toolset {
	if src == nil {
		panic("agenttools: nil Source")
	}
	s := &Toolset{src: src, callName: DefaultCallToolName}
	if o != nil && o.CallToolName != "" {
		s.callName = o.CallToolName
	}
	return s
}

// Source returns the source the toolset was made with.
func (s *Toolset) Source() Source { return s.src }

// CallToolName is the name of [Toolset.Fixed]'s call tool.
func (s *Toolset) CallToolName() string { return s.callName }

// Result is what the model reads of one call: the rendered text, and
// whether it is a failure (a tool's error result, a denied approval, a held
// tool, an unknown name, a cancelled call).
type Result struct {
	Text    string
	IsError bool
}

// All returns every exposed tool, sorted by exposed name, without the
// search tool: what a provider's own tool search defers.
func (s *Toolset) All() []host.ToolDefinition { return s.src.ToolDefinitions() }

// published asks the source what it publishes for conv.
func (s *Toolset) published(ctx context.Context, conv []host.Message) *host.Request {
	req := &host.Request{Messages: conv}
	if err := s.src.OnRequest(ctx, req); err != nil {
		return &host.Request{Messages: conv}
	}
	return req
}

// Published returns the tools to hand the model for the conversation whose
// messages are conv (nil for a new one), in the order the source publishes
// them. With tool search: the search tool, the always-loaded tools and
// those conv has loaded. Without it (or when nothing is deferred): every
// exposed tool, as [Toolset.All].
func (s *Toolset) Published(ctx context.Context, conv []host.Message) []host.ToolDefinition {
	if req := s.published(ctx, conv); len(req.Tools) > 0 {
		return req.Tools
	}
	return s.All()
}

// SearchTool returns the search tool's definition, and false when the
// source has no tool search or defers nothing (every tool is published).
func (s *Toolset) SearchTool(ctx context.Context) (host.ToolDefinition, bool) {
	search, _, ok := s.searchAndAlways(ctx)
	return search, ok
}

// AlwaysLoaded returns the names of the tools the source publishes in
// every request even with tool search on (those of "alwaysLoad"
// servers): the tools a provider's own tool search should not defer.
// Without tool search it is empty.
func (s *Toolset) AlwaysLoaded(ctx context.Context) map[string]bool {
	_, always, _ := s.searchAndAlways(ctx)
	out := make(map[string]bool, len(always))
	for _, d := range always {
		out[d.Name] = true
	}
	return out
}

// searchAndAlways splits what the source publishes for a new conversation
// into the search tool (the one definition no server exposes) and the
// always-loaded tools; ok is false without tool search.
func (s *Toolset) searchAndAlways(ctx context.Context) (search host.ToolDefinition, always []host.ToolDefinition, ok bool) {
	pub := s.published(ctx, nil).Tools
	if len(pub) == 0 {
		return host.ToolDefinition{}, nil, false
	}
	exposed := s.exposedNames()
	for _, d := range pub {
		if _, server := exposed[d.Name]; server {
			always = append(always, d)
		} else if !ok {
			search, ok = d, true
		}
	}
	return search, always, ok
}

func (s *Toolset) exposedNames() map[string]struct{} {
	all := s.All()
	m := make(map[string]struct{}, len(all))
	for _, d := range all {
		m[d.Name] = struct{}{}
	}
	return m
}

// Instructions returns the servers' instructions as the source passes them
// on with tool search (one system message's text), "" when it passes none.
func (s *Toolset) Instructions(ctx context.Context) string {
	req := s.published(ctx, nil)
	for _, m := range req.Messages {
		if m.Role != host.RoleSystem {
			continue
		}
		for _, b := range m.Blocks {
			if t, ok := b.(host.Text); ok {
				return t.Text
			}
		}
	}
	return ""
}

// Fixed returns the tools of a framework whose tool list cannot change
// between turns. With tool search: the search tool, the call tool
// ([Toolset.CallToolName]) and the always-loaded tools; run their calls
// with [Toolset.CallFixed]. Without tool search: every exposed tool.
func (s *Toolset) Fixed(ctx context.Context) []host.ToolDefinition {
	search, always, ok := s.searchAndAlways(ctx)
	if !ok {
		return s.All()
	}
	out := make([]host.ToolDefinition, 0, 2+len(always))
	out = append(out, search, s.callDefinition(search.Name))
	return append(out, always...)
}

func (s *Toolset) callDefinition(search string) host.ToolDefinition {
	return host.ToolDefinition{
		Name: s.callName,
		Description: fmt.Sprintf("Calls a tool that %s loaded, by its exact name, with its arguments "+
			"(a JSON object as its input schema in the search result says). Search first: only loaded tools are described.", search),
		InputSchema: json.RawMessage(callSchema),
	}
}

// Call runs the model's call of an exposed tool (or of the search tool) by
// its name, as the source's OnStreamChunk hook runs it: the seed's
// approval, result cap, held tools and rendering apply. It never fails: a
// failure is a Result with IsError. A name the source does not know gives
// an IsError result saying so. ctx's end cancels the MCP call.
func (s *Toolset) Call(ctx context.Context, call host.ToolCall) Result {
	return s.run(ctx, call)
}

func (s *Toolset) run(ctx context.Context, call host.ToolCall) Result {
	blocks := [1]host.Block{call}
	chunk := host.Chunk{Blocks: blocks[:]}
	if err := s.src.OnStreamChunk(ctx, &chunk); err != nil {
		return Result{Text: err.Error(), IsError: true}
	}
	return blockResult(chunk.Blocks[0], call.Name)
}

// blockResult is the result of a call's block after the hook ran: a
// ToolResult, or the call itself when no server has the tool.
func blockResult(b host.Block, name string) Result {
	res, ok := b.(host.ToolResult)
	if !ok {
		return Result{Text: fmt.Sprintf("%q is not a tool here: call a tool by its exact name.", name), IsError: true}
	}
	return Result{Text: res.Content, IsError: res.IsError}
}

// CallEach runs calls as [Toolset.Call] runs each, concurrently (one
// chunk of the source's hook, as a model's message of several calls is
// run), and returns their results in order.
func (s *Toolset) CallEach(ctx context.Context, calls []host.ToolCall) []Result {
	switch len(calls) {
	case 0:
		return nil
	case 1:
		return []Result{s.run(ctx, calls[0])}
	}
	chunk := host.Chunk{Blocks: make([]host.Block, len(calls))}
	for i, c := range calls {
		chunk.Blocks[i] = c
	}
	out := make([]Result, len(calls))
	if err := s.src.OnStreamChunk(ctx, &chunk); err != nil {
		for i := range out {
			out[i] = Result{Text: err.Error(), IsError: true}
		}
		return out
	}
	for i, b := range chunk.Blocks {
		out[i] = blockResult(b, calls[i].Name)
	}
	return out
}

// CallFixed runs a call of one of [Toolset.Fixed]'s tools: the call tool
// (its "name" and "arguments" run as [Toolset.Call] runs a call), the
// search tool (its result also gives each loaded tool's input schema,
// which the model needs for the call tool's arguments) or any other tool.
func (s *Toolset) CallFixed(ctx context.Context, call host.ToolCall) Result {
	if call.Name == s.callName {
		name, args, problem := callArguments(call.Arguments)
		if problem != "" {
			return Result{Text: fmt.Sprintf(`%s needs {"name": "<tool>", "arguments": {...}}: %s.`, s.callName, problem), IsError: true}
		}
		return s.run(ctx, host.ToolCall{ID: call.ID, Name: name, Arguments: args})
	}
	res := s.run(ctx, call)
	if res.IsError {
		return res
	}
	if search, ok := s.SearchTool(ctx); ok && call.Name == search.Name {
		res.Text += s.loadedSchemas(ctx, call, res.Text)
	}
	return res
}

// loadedSchemas lists the input schemas of the tools the search result
// text loaded, as the source publishes them for a conversation of that one
// search; "" when it loaded none.
func (s *Toolset) loadedSchemas(ctx context.Context, call host.ToolCall, text string) string {
	before := s.published(ctx, nil).Tools
	after := s.published(ctx, []host.Message{
		{Role: host.RoleAssistant, Blocks: []host.Block{call}},
		{Role: host.RoleTool, Blocks: []host.Block{host.ToolResult{ToolCallID: call.ID, Name: call.Name, Content: text}}},
	}).Tools
	var b strings.Builder
	for _, d := range after {
		if slices.ContainsFunc(before, func(o host.ToolDefinition) bool { return o.Name == d.Name }) {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\nInput schemas of the loaded tools, for %s's \"arguments\":\n", s.callName)
		}
		schema := d.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		fmt.Fprintf(&b, "- %s: %s\n", d.Name, compact(schema))
	}
	return b.String()
}

// compact is schema without insignificant whitespace, or as it is when it
// is not valid JSON.
func compact(schema json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, schema); err != nil {
		return string(schema)
	}
	return b.String()
}

// callArguments reads the call tool's arguments: the tool's name and its
// arguments object (a JSON string holding one is taken too, as models
// sometimes send); problem says what is wrong, for the model.
func callArguments(raw json.RawMessage) (name string, args json.RawMessage, problem string) {
	var in struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", nil, "the arguments are not a JSON object with a string \"name\""
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return "", nil, "\"name\" is missing"
	}
	args = in.Arguments
	var inner string
	if len(args) > 0 && args[0] == '"' && json.Unmarshal(args, &inner) == nil {
		args = json.RawMessage(inner)
	}
	return strings.TrimSpace(*in.Name), args, ""
}

// Conversation keeps the tool calls and results of one conversation, for
// an adapter whose framework does not hand it the conversation's messages:
// record each call with its result, and [Toolset.Published] of
// [Conversation.Messages] gives what the conversation has loaded. The zero
// value is an empty conversation; it is safe for concurrent use.
type Conversation struct {
	mu   sync.Mutex
	msgs []host.Message
}

// Record adds a call and its result to the conversation.
func (c *Conversation) Record(call host.ToolCall, res Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs,
		host.Message{Role: host.RoleAssistant, Blocks: []host.Block{call}},
		host.Message{Role: host.RoleTool, Blocks: []host.Block{host.ToolResult{ToolCallID: call.ID, Name: call.Name, Content: res.Text, IsError: res.IsError}}})
}

// Messages returns the recorded calls and results, in order, as the
// messages [Toolset.Published] reads loads from. The slice is the
// caller's.
func (c *Conversation) Messages() []host.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}
