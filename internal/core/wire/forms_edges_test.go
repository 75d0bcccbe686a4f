package wire_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// Every message of the protocol has a wire form, and each comes back as
// it left: equal where it holds no JSON payload, JSON-equal where it does.
func TestEveryMessageRoundTrips(t *testing.T) {
	rpc := &messages.Failure{Kind: messages.FailureInternal, Op: messages.CallOp("add"), Message: "bad",
		Cause: messages.CauseServerError, RPC: &messages.RPCError{Code: -32602, Message: "bad", Data: json.RawMessage(`{"f":1}`)}}
	token := &messages.Failure{Kind: messages.FailureIO, Op: "connect", Message: "refused", Cause: messages.CauseTokenRefused,
		Err: &auth.TokenError{Endpoint: "https://as.example/token", GrantType: "client_credentials", StatusCode: 401,
			Code: "invalid_client", Description: "who are you"}, CircuitOpen: true}
	equal := []any{
		&messages.AwaitReady{},
		&messages.RefreshTools{},
		&messages.WatchTools{},
		&messages.UnwatchTools{},
		&messages.Reconnect{},
		&messages.HandedOver{},
		&messages.CancelCall{ID: 1<<63 + 5},
		&messages.CallProgress{ID: 4, Progress: 0.5, Total: 2, Message: "half"},
		&messages.CallTask{ID: 11, TaskID: "t-9"},
		&messages.CallTool{ID: 8, Name: "add", Arguments: json.RawMessage(`{"a":1}`), Deadline: time.Unix(0, 1700000000123456789),
			Progress: true, IdleTimeout: time.Second, Limit: "the call timeout of 5s", TraceContext: map[string]string{"traceparent": "00-x"}, Ext: &tasks.Call{Want: true}},
		rpc,
		token,
		&messages.CallToolReply{ID: 3, Failure: token},
		&messages.ServerRequest{ID: 6, Method: messages.MethodGetPrompt, Name: "review", Arguments: map[string]string{"lang": "Go"}},
		&messages.ServerReply{ID: 7, Failure: rpc},
	}
	seen := map[reflect.Type]bool{}
	for _, m := range equal {
		got := roundTrip(t, m)
		if c, ok := m.(*messages.CallTool); ok {
			g := got.(*messages.CallTool)
			assert.True(t, c.Deadline.Equal(g.Deadline))
			g.Deadline = c.Deadline // the same instant; time.Time's location differs
		}
		assert.Equal(t, m, got, "%T", m)
		seen[reflect.TypeOf(m)] = true
	}
	ready := &messages.Ready{Tools: []*mcp.Tool{{Name: "a", InputSchema: map[string]any{"type": "object"}}},
		ServerInfo: &mcp.Implementation{Name: "s", Version: "1"}, ProtocolVersion: "2026-07-28", ToolsTTL: time.Minute, Instructions: "i"}
	reply := &messages.CallToolReply{ID: 2, Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3"}}}}
	for _, m := range []any{ready, reply} {
		want, err := json.Marshal(m)
		require.NoError(t, err)
		got, err := json.Marshal(roundTrip(t, m))
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "%T", m)
		seen[reflect.TypeOf(m)] = true
	}
	// Every wire form in wire.proto is a message above: none is left out.
	wires := 0
	for _, m := range []proto.Message{&wire.WireAwaitReady{}, &wire.WireReady{}, &wire.WireCallTool{},
		&wire.WireCallProgress{}, &wire.WireCallTask{}, &wire.WireRefreshTools{}, &wire.WireWatchTools{}, &wire.WireUnwatchTools{},
		&wire.WireReconnect{}, &wire.WireHandedOver{}, &wire.WireCallToolReply{}, &wire.WireCancelCall{},
		&wire.WireFailure{}, &wire.WireServerRequest{}, &wire.WireServerReply{}} {
		plain, ok := wire.FromWire(m)
		require.True(t, ok, "%T reads back", m)
		assert.True(t, seen[reflect.TypeOf(plain)], "%T (from %T) is round-tripped above", plain, m)
		wires++
	}
	assert.Equal(t, wire.File_wire_proto.Messages().Len()-3, wires,
		"every top-level wire form but the two nested in WireFailure and WireCallExt (in WireCallTool) is read back")
}

// What is not a message of the protocol is no business of the wire forms:
// it travels, and arrives, as it is.
func TestToWireAndFromWireLeaveOtherMessagesAlone(t *testing.T) {
	for _, m := range []any{nil, "text", struct{}{}, messages.CallTool{}, &wire.WireCallTool{Id: 1}, &messages.RPCError{}} {
		w, ok := wire.ToWire(m)
		assert.False(t, ok, "%T", m)
		assert.Nil(t, w)
	}
	for _, m := range []any{nil, &messages.CallTool{ID: 1}, &messages.Ready{}, &wire.WireRPCError{}, &wire.WireTokenError{}} {
		p, ok := wire.FromWire(m)
		assert.False(t, ok, "%T", m)
		assert.Nil(t, p)
	}
}

// A payload that cannot cross the wire fails what carried it, whichever
// way it fails: the receiver gets a failure, never nothing.
func TestPayloadsThatDoNotSurviveTheWireFail(t *testing.T) {
	// Leaving: a tool result and a tool list that do not marshal.
	bad := &mcp.CallToolResult{StructuredContent: func() {}}
	out := roundTrip(t, &messages.CallToolReply{ID: 5, Result: bad}).(*messages.CallToolReply)
	assert.Nil(t, out.Result)
	require.NotNil(t, out.Failure)
	assert.Equal(t, uint64(5), out.ID)
	assert.Equal(t, messages.FailureInternal, out.Failure.Kind)
	assert.Contains(t, out.Failure.Message, "the tool result did not survive the wire")

	list := &messages.Ready{Tools: []*mcp.Tool{{Name: "a", InputSchema: map[string]any{"f": func() {}}}}}
	f, ok := roundTrip(t, list).(*messages.Failure)
	require.True(t, ok, "a tool list that cannot leave arrives as a failure")
	assert.Contains(t, f.Message, "the tool list did not survive the wire")

	// Arriving: JSON that does not read back.
	got, ok := wire.FromWire(&wire.WireCallToolReply{Id: 6, ResultJson: []byte(`{"content":7}`)})
	require.True(t, ok)
	r := got.(*messages.CallToolReply)
	assert.Nil(t, r.Result)
	require.NotNil(t, r.Failure)
	assert.Contains(t, r.Failure.Message, "the tool result did not survive the wire")

	got, ok = wire.FromWire(&wire.WireReady{ToolsJson: []byte(`{`)})
	require.True(t, ok)
	f, ok = got.(*messages.Failure)
	require.True(t, ok, "a tool list that does not read back is a failure: %T", got)
	assert.Equal(t, "tools/list", f.Op)

	got, ok = wire.FromWire(&wire.WireReady{ToolsJson: []byte(`[]`), ServerInfoJson: []byte(`"x"`)})
	require.True(t, ok)
	f, ok = got.(*messages.Failure)
	require.True(t, ok, "a server identity that does not read back is a failure: %T", got)
	assert.Contains(t, f.Message, "the server identity")
}
