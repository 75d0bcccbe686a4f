package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// runConnectOnly connects: server/discover, then tools/list. That is all
// request-metadata (the _meta triple, the version header, the retry after
// -32022) and json-schema-ref-no-deref (no $ref is fetched) look at.
func runConnectOnly(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	return p.Close()
}

// runToolsCall runs add_numbers the way a model's answer does: a ToolCall
// block in a streamed chunk, replaced by the hook with its ToolResult.
func runToolsCall(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	if !p.HasTool("add_numbers") {
		return errors.New(`tool "add_numbers" not discovered`)
	}
	chunk := &host.Chunk{Blocks: []host.Block{
		host.Text{Text: "Let me add them."},
		host.ToolCall{ID: "call-1", Name: "add_numbers", Arguments: json.RawMessage(`{"a":5,"b":3}`)},
	}}
	if err := p.OnStreamChunk(ctx, chunk); err != nil {
		return err
	}
	res, ok := chunk.Blocks[1].(host.ToolResult)
	if !ok {
		return fmt.Errorf("the hook left %T in place of the tool call", chunk.Blocks[1])
	}
	env.logger.Info("tool result", zap.String("content", res.Content), zap.Bool("is_error", res.IsError))
	if res.IsError {
		return fmt.Errorf("add_numbers failed: %s", res.Content)
	}
	return nil
}

// runSchemaPreservation echoes the focal tool's inputSchema, as Tools()
// returned it, through the json_schema_echo tool so that the suite can see
// which JSON Schema 2020-12 keywords survived discovery.
func runSchemaPreservation(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	const focal = "json_schema_2020_12_tool"
	var schema any
	for _, t := range p.Tools() {
		if t.Name == focal {
			schema = t.InputSchema
		}
	}
	if schema == nil {
		return fmt.Errorf("tool %q not discovered", focal)
	}
	_, err = p.CallTool(ctx, "json_schema_echo", map[string]any{"schema": schema}).Await(ctx)
	return err
}

// runStandardHeaders calls the first tool, so that the suite sees the
// Mcp-Method and Mcp-Name headers on server/discover, tools/list and
// tools/call. The plugin has no resources or prompts to exercise.
func runStandardHeaders(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	tools := p.Tools()
	if len(tools) == 0 {
		return errors.New("no tools discovered")
	}
	_, err = p.CallTool(ctx, tools[0].Name, nil).Await(ctx)
	return err
}

// runCustomHeaders makes the tool calls the suite lists in its context, so
// that it can check the Mcp-Param-* headers mirrored from x-mcp-header
// parameters.
func runCustomHeaders(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	calls, _ := env.context["toolCalls"].([]any)
	if len(calls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT lists no toolCalls")
	}
	for _, c := range calls {
		call, _ := c.(map[string]any)
		name, _ := call["name"].(string)
		if _, err := p.CallTool(ctx, name, call["arguments"]).Await(ctx); err != nil {
			env.logger.Warn("tool call failed", zap.String("tool", name), zap.Error(err))
		}
	}
	return nil
}

// runInvalidToolHeaders calls every discovered tool. Tools whose
// x-mcp-header annotations are invalid must never have been discovered, so
// the suite records them as never called.
func runInvalidToolHeaders(ctx context.Context, env *scenarioEnv) error {
	p, err := env.connect(ctx, transport.StreamableHTTP{})
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	for _, t := range p.Tools() {
		if _, err := p.CallTool(ctx, t.Name, map[string]any{"region": "us-west1"}).Await(ctx); err != nil {
			env.logger.Warn("tool call failed", zap.String("tool", t.Name), zap.Error(err))
		}
	}
	return nil
}

// runRequestState drives SEP-2322 input_required results with
// plugin.WithInputRequired: the server asks for an elicitation, the handler
// accepts, and the retry must echo requestState (or omit it when none was
// sent) under a new JSON-RPC id. A tool called in between must carry
// neither, and a result without resultType is complete.
func runRequestState(ctx context.Context, env *scenarioEnv) error {
	confirm := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		env.logger.Info("elicitation", zap.String("message", req.Params.Message))
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
	}
	p, err := env.connect(ctx, transport.StreamableHTTP{},
		plugin.WithInputRequired(plugin.InputHandlers{Elicit: confirm}))
	if err != nil {
		return err
	}
	defer func() { _ = p.Close() }()
	var failed []string
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
		res, err := p.CallTool(ctx, name, nil).Await(ctx)
		if err != nil {
			env.logger.Warn("tool call failed", zap.String("tool", name), zap.Error(err))
			failed = append(failed, name)
			continue
		}
		env.logger.Info("tool result", zap.String("tool", name), zap.String("content", plugin.RenderResult(res)))
	}
	if len(failed) > 0 {
		return fmt.Errorf("calls failed: %v", failed)
	}
	return nil
}
