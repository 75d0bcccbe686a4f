package genkitmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/core/tracing"
)

// toolAction is one MCP tool as a Genkit tool action: Genkit finds it by
// name (genkit.LookupTool, a model's tool request) and runs it through
// RunJSON, as it runs a tool of genkit.DefineTool. It is its own action,
// not DefineTool's, because Genkit's action checks and rewrites the input
// before a tool's function sees it: it validates the arguments against
// the schema (a mismatch would end Generate instead of reaching the server,
// which says what is wrong for the model to read), drops null members, and
// compiles the schema again on every call (half the cost of a call to a
// local server). The arguments reach the server as the model sent them.
type toolAction struct {
	s    *toolset
	desc api.ActionDesc
}

var _ api.Action = (*toolAction)(nil)

func newToolAction(s *toolset, name, description string, schema map[string]any) *toolAction {
	return &toolAction{s: s, desc: api.ActionDesc{
		Type:        api.ActionTypeToolV2,
		Key:         key(api.ActionTypeToolV2, name),
		Name:        name,
		Description: description,
		InputSchema: schema,
		Metadata: map[string]any{
			"type":        api.ActionTypeToolV2,
			"name":        name,
			"description": description,
			"tool":        map[string]any{"multipart": false},
		},
	}}
}

func key(typ api.ActionType, name string) string {
	provider, id := api.ParseName(name)
	return api.NewKey(typ, provider, id)
}

// Name is the tool's exposed name.
func (a *toolAction) Name() string { return a.desc.Name }

// Desc describes the tool: its name, description and input schema.
func (a *toolAction) Desc() api.ActionDesc { return a.desc }

// Register registers the action under the tool keys Genkit looks tools up
// by: "tool.v2", and "tool" as genkit.DefineTool does too.
func (a *toolAction) Register(r api.Registry) {
	r.RegisterAction(a.desc.Key, a)
	r.RegisterAction(key(api.ActionTypeTool, a.desc.Name), a)
}

// RunJSON runs the call with the model's arguments and returns the
// tool's response: {"output": "<what the model reads>"}.
func (a *toolAction) RunJSON(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	r, err := a.RunJSONWithTelemetry(ctx, input, cb)
	if err != nil {
		return nil, err
	}
	return r.Result, nil
}

// RunJSONWithTelemetry is RunJSON, with WithToolSpans in a Genkit span of
// the tool's action, as Genkit traces a tool, and with the span's ids.
func (a *toolAction) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	var ids api.ActionRunResult[json.RawMessage]
	if !a.s.spans {
		out, err := a.run(ctx, input)
		if err != nil {
			return &ids, err
		}
		ids.Result = out
		return &ids, nil
	}
	meta := &tracing.SpanMetadata{Name: a.desc.Name, Type: "action", Subtype: string(api.ActionTypeToolV2)}
	out, err := tracing.RunInNewSpan(ctx, meta, input, func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		info := tracing.SpanTraceInfo(ctx)
		ids.TraceId, ids.SpanId = info.TraceID, info.SpanID
		return a.run(ctx, input)
	})
	if err != nil {
		return &ids, err
	}
	ids.Result = out
	return &ids, nil
}

// run calls the tool with input and returns the tool's response JSON.
func (a *toolAction) run(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	text, err := a.s.call(ctx, a.desc.Name, input)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(ai.MultipartToolResponse{Output: text})
	if err != nil {
		return nil, fmt.Errorf("genkitmcp: %s: %w", a.desc.Name, err)
	}
	return b, nil
}
