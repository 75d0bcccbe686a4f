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

// viaWire sends m the way protoactor's remote does: to its wire form, to
// protobuf bytes, into a fresh wire form, back to the plain message.
func viaWire(t *testing.T, m any) any {
	t.Helper()
	ser, ok := m.(remote.RootSerializable)
	require.True(t, ok, "%T has no wire form", m)
	w, err := ser.Serialize()
	require.NoError(t, err)
	pm, ok := w.(proto.Message)
	require.True(t, ok, "the wire form %T is no protobuf message", w)
	b, err := proto.Marshal(pm)
	require.NoError(t, err)
	fresh := pm.ProtoReflect().New().Interface()
	require.NoError(t, proto.Unmarshal(b, fresh))
	back, err := fresh.(remote.RootSerialized).Deserialize()
	require.NoError(t, err)
	return back
}

func TestWireFormsRoundTrip(t *testing.T) {
	deadline := time.Unix(1_900_000_000, 123456789)
	cases := []struct {
		name string
		msg  any
	}{
		{"call with progress and idle timeout", &messages.CallTool{ID: 1<<62 + 7, Name: "add", Arguments: json.RawMessage(`{"a":1}`),
			Deadline: deadline, Progress: true, IdleTimeout: 1500 * time.Millisecond}},
		{"call without the controls", &messages.CallTool{ID: 3, Name: "add"}},
		{"progress", &messages.CallProgress{ID: 9, Progress: 2.5, Total: 10, Message: "step 2 — über"}},
		{"progress without a total", &messages.CallProgress{ID: 9, Progress: 1}},
		{"ready with a TTL", &messages.Ready{Tools: []*mcp.Tool{{Name: "add", InputSchema: map[string]any{"type": "object"}}},
			ServerInfo: &mcp.Implementation{Name: "srv", Version: "1"}, ProtocolVersion: "2026-07-28", ToolsTTL: 250 * time.Millisecond}},
		{"refresh", &messages.RefreshTools{}},
		{"watch", &messages.WatchTools{}},
		{"unwatch", &messages.UnwatchTools{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := viaWire(t, c.msg)
			if r, ok := c.msg.(*messages.Ready); ok {
				// Tools travel as JSON: compare them as JSON.
				g := got.(*messages.Ready)
				want, err := json.Marshal(r.Tools)
				require.NoError(t, err)
				have, err := json.Marshal(g.Tools)
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(have))
				r2, g2 := *r, *g
				r2.Tools, g2.Tools = nil, nil
				assert.Equal(t, r2, g2)
				return
			}
			if ct, ok := c.msg.(*messages.CallTool); ok && !ct.Deadline.IsZero() {
				g := got.(*messages.CallTool)
				assert.True(t, ct.Deadline.Equal(g.Deadline), "deadline %v came back as %v", ct.Deadline, g.Deadline)
				c2, g2 := *ct, *g
				c2.Deadline, g2.Deadline = time.Time{}, time.Time{}
				assert.Equal(t, c2, g2)
				return
			}
			assert.Equal(t, c.msg, got)
		})
	}
}
