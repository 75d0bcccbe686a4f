package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/failcause"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// roundTrip sends m through its wire form and protobuf bytes, as it
// travels between members, and returns what arrives.
func roundTrip(t *testing.T, m any) any {
	t.Helper()
	pm, ok := wire.ToWire(m)
	require.True(t, ok, "%T has a wire form", m)
	b, err := proto.Marshal(pm)
	require.NoError(t, err)
	// The receiver finds the type by its name, as a remote member does.
	mt, err := protoregistry.GlobalTypes.FindMessageByName(pm.ProtoReflect().Descriptor().FullName())
	require.NoError(t, err)
	back := mt.New().Interface()
	require.NoError(t, proto.Unmarshal(b, back))
	out, ok := wire.FromWire(back)
	require.True(t, ok, "%T reads back", back)
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

// A failure keeps why it failed across the wire: the errors it matches
// before it leaves are the errors it matches when it arrives.
func TestFailureCausesSurviveTheWire(t *testing.T) {
	rpc := &jsonrpc.Error{Code: -32602, Message: "bad arguments", Data: json.RawMessage(`{"field":"a"}`)}
	token := &auth.TokenError{Endpoint: "https://as.example/token", GrantType: "client_credentials", StatusCode: 400, Code: "invalid_client"}
	cases := []struct {
		name  string
		err   error
		is    error
		wired error // the Err the wire code rebuilds
	}{
		{"deadline", fmt.Errorf("calling: %w", context.DeadlineExceeded), context.DeadlineExceeded, nil},
		{"canceled", context.Canceled, context.Canceled, nil},
		{"too large", fmt.Errorf("read: %w", transport.ErrMessageTooLarge), transport.ErrMessageTooLarge, transport.ErrMessageTooLarge},
		{"server error", fmt.Errorf("calling %q: %w", "tools/call", rpc), nil, nil},
		{"token", fmt.Errorf("post: %w", token), nil, token},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := failcause.Of(&messages.Failure{Kind: messages.FailureInternal, Op: "tools/call \"x\"", Message: tc.err.Error()}, tc.err)
			require.NotEqual(t, messages.CauseNone, f.Cause)
			require.Equal(t, tc.err, f.Err, "the original error is kept in process")
			wired := *f
			wired.Err = tc.wired // the one field that does not cross the wire as it is
			for i, got := range []*messages.Failure{f, roundTrip(t, f).(*messages.Failure),
				roundTrip(t, &messages.CallToolReply{ID: 1, Failure: f}).(*messages.CallToolReply).Failure} {
				if i == 0 {
					assert.Same(t, f, got)
				} else {
					assert.Equal(t, &wired, got)
				}
				if tc.is != nil {
					assert.ErrorIs(t, got, tc.is)
				}
				var re *jsonrpc.Error
				if errors.As(tc.err, &re) {
					require.ErrorAs(t, got, &re)
					assert.Equal(t, rpc, re)
				}
				var te *auth.TokenError
				if errors.As(tc.err, &te) {
					require.ErrorAs(t, got, &te)
					assert.Equal(t, token, te)
				}
			}
		})
	}
	for _, cause := range []messages.FailureCause{messages.CauseConnectionLost, messages.CauseProtocolVersion, messages.CauseTaskLost} {
		f := roundTrip(t, &messages.Failure{Kind: messages.FailureInternal, Cause: cause}).(*messages.Failure)
		assert.Equal(t, cause, f.Cause)
		assert.NotErrorIs(t, f, context.DeadlineExceeded)
	}
	open := roundTrip(t, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseConnectionLost, CircuitOpen: true}).(*messages.Failure)
	assert.True(t, open.CircuitOpen)
	assert.Equal(t, messages.CauseConnectionLost, open.Cause, "an open breaker keeps the last cause")
	boom := errors.New("boom")
	plain := failcause.Of(&messages.Failure{Kind: messages.FailureInternal, Message: "boom"}, boom)
	assert.Equal(t, messages.CauseNone, plain.Cause)
	assert.Equal(t, []error{boom}, plain.Unwrap(), "an error of no known cause matches only itself")
	assert.Nil(t, roundTrip(t, plain).(*messages.Failure).Unwrap(), "and nothing once it crossed the wire")

	limited := roundTrip(t, &messages.CallTool{Name: "x", Limit: "the tool timeout of 2s"}).(*messages.CallTool)
	assert.Equal(t, "the tool timeout of 2s", limited.Limit)
}

// Inside one process a failure keeps the error it was made of, so
// errors.As finds its own type (a spawn error and what it wraps); the wire
// form leaves it out, and what crosses is the cause's data and the text.
func TestFailureKeepsItsErrorInProcessAndFlattensItOnTheWire(t *testing.T) {
	spawn := &transport.SpawnError{Command: "no-such-server", Err: exec.ErrNotFound}
	f := &messages.Failure{Kind: messages.FailureIO, Op: "connect", Cause: messages.CauseNotStarted, Message: spawn.Error(), Err: spawn}
	var se *transport.SpawnError
	require.ErrorAs(t, f, &se)
	assert.Same(t, spawn, se)
	assert.ErrorIs(t, f, exec.ErrNotFound)

	got := roundTrip(t, f).(*messages.Failure)
	assert.Nil(t, got.Err)
	assert.Equal(t, messages.CauseNotStarted, got.Cause)
	assert.Equal(t, spawn.Error(), got.Message)
	assert.False(t, errors.As(got, &se), "no spawn error crosses the wire")
	assert.NotErrorIs(t, got, exec.ErrNotFound)

	// The original comes before the cause's rebuilt copy: errors.As finds
	// the server's own *jsonrpc.Error.
	rpc := &jsonrpc.Error{Code: -32602, Message: "bad arguments"}
	r := failcause.Of(&messages.Failure{Kind: messages.FailureInternal}, fmt.Errorf("calling: %w", rpc))
	var re *jsonrpc.Error
	require.ErrorAs(t, r, &re)
	assert.Same(t, rpc, re)
	wired := roundTrip(t, r).(*messages.Failure)
	require.ErrorAs(t, wired, &re)
	assert.NotSame(t, rpc, re)
	assert.Equal(t, rpc, re)
}

// The wire forms keep their protobuf names (package mcpconnector.messages)
// wherever their Go code lives: a remote member finds a message's type by
// that name, so moving the code changes no byte on the wire.
func TestWireFormsKeepTheirNames(t *testing.T) {
	assert.Equal(t, "mcpconnector.messages", string(wire.File_wire_proto.Package()))
	assert.Equal(t, "mcpconnector.messages.WireCallTool", string((&wire.WireCallTool{}).ProtoReflect().Descriptor().FullName()))
}
