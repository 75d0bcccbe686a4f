package messages_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/messages"
)

// roundTrip sends m through its wire form and protobuf bytes, as remote
// does between members, and returns what arrives.
func roundTrip(t *testing.T, m remote.RootSerializable) remote.RootSerializable {
	t.Helper()
	w, err := m.Serialize()
	require.NoError(t, err)
	pm, ok := w.(proto.Message)
	require.True(t, ok, "%T is a proto message", w)
	b, err := proto.Marshal(pm)
	require.NoError(t, err)
	back := pm.ProtoReflect().New().Interface()
	require.NoError(t, proto.Unmarshal(b, back))
	out, err := back.(remote.RootSerialized).Deserialize()
	require.NoError(t, err)
	return out
}

func TestWireFormsRoundTrip(t *testing.T) {
	deadline := time.Unix(1700000000, 123456789)
	call := &messages.CallTool{ID: 1 << 62, Name: "add", Arguments: json.RawMessage(`{"a":1}`), Deadline: deadline}
	got := roundTrip(t, call).(*messages.CallTool)
	assert.Equal(t, call.ID, got.ID)
	assert.Equal(t, call.Name, got.Name)
	assert.JSONEq(t, string(call.Arguments), string(got.Arguments))
	assert.True(t, deadline.Equal(got.Deadline))
	assert.True(t, roundTrip(t, &messages.CallTool{Name: "x"}).(*messages.CallTool).Deadline.IsZero(), "no deadline stays none")
	assert.Nil(t, roundTrip(t, &messages.CallTool{Name: "x"}).(*messages.CallTool).TraceContext, "no trace context stays none")
	traced := &messages.CallTool{ID: 2, Name: "add", TraceContext: map[string]string{
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"tracestate":  "rojo=00f067aa0ba902b7",
		"baggage":     "tenant=acme",
	}}
	assert.Equal(t, traced.TraceContext, roundTrip(t, traced).(*messages.CallTool).TraceContext, "the trace context crosses the wire")

	assert.Equal(t, &messages.CancelCall{ID: 7}, roundTrip(t, &messages.CancelCall{ID: 7}))
	assert.Equal(t, &messages.AwaitReady{}, roundTrip(t, &messages.AwaitReady{}))
	f := &messages.Failure{Kind: messages.FailureIO, Op: "connect", Message: "no such file"}
	assert.Equal(t, f, roundTrip(t, f))

	ready := &messages.Ready{
		Tools: []*mcp.Tool{{Name: "add", Description: "Add", InputSchema: map[string]any{"type": "object"},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Adder"}}},
		ServerInfo: &mcp.Implementation{Name: "srv", Version: "1.2"}, ProtocolVersion: "2026-07-28",
	}
	gotReady := roundTrip(t, ready).(*messages.Ready)
	wantJSON, _ := json.Marshal(ready)
	gotJSON, _ := json.Marshal(gotReady)
	assert.JSONEq(t, string(wantJSON), string(gotJSON))

	result := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "hi"}, &mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
		StructuredContent: map[string]any{"sum": 3.0}, IsError: true, Meta: mcp.Meta{"k": "v"},
	}
	reply := roundTrip(t, &messages.CallToolReply{ID: 9, Result: result}).(*messages.CallToolReply)
	wantJSON, _ = json.Marshal(result)
	gotJSON, _ = json.Marshal(reply.Result)
	assert.JSONEq(t, string(wantJSON), string(gotJSON))
	assert.Nil(t, reply.Failure)

	failed := roundTrip(t, &messages.CallToolReply{ID: 10, Failure: f}).(*messages.CallToolReply)
	assert.Equal(t, f, failed.Failure)
	assert.Nil(t, failed.Result)
}
