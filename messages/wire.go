package messages

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/auth"
)

// Each message of the protocol converts itself to its wire form when
// protoactor's remote sends it to another member (remote.RootSerializable),
// and the wire form converts back on arrival (remote.RootSerialized): the
// actors on both sides only ever see the plain messages.

// Serialize returns the wire form.
func (*AwaitReady) Serialize() (remote.RootSerialized, error) { return &WireAwaitReady{}, nil }

// Deserialize returns the plain message.
func (*WireAwaitReady) Deserialize() (remote.RootSerializable, error) { return &AwaitReady{}, nil }

// Serialize returns the wire form, with the tools and the server identity
// as JSON.
func (m *Ready) Serialize() (remote.RootSerialized, error) {
	tools, err := json.Marshal(m.Tools)
	if err != nil {
		return nil, fmt.Errorf("messages: tools: %w", err)
	}
	w := &WireReady{ToolsJson: tools, ProtocolVersion: m.ProtocolVersion, ToolsTtlNanos: int64(m.ToolsTTL), Instructions: m.Instructions}
	if m.ServerInfo != nil {
		if w.ServerInfoJson, err = json.Marshal(m.ServerInfo); err != nil {
			return nil, fmt.Errorf("messages: server info: %w", err)
		}
	}
	return w, nil
}

// Deserialize returns the plain message.
func (w *WireReady) Deserialize() (remote.RootSerializable, error) {
	m := &Ready{ProtocolVersion: w.ProtocolVersion, ToolsTTL: time.Duration(w.ToolsTtlNanos), Instructions: w.Instructions}
	if err := json.Unmarshal(w.ToolsJson, &m.Tools); err != nil {
		return nil, fmt.Errorf("messages: tools: %w", err)
	}
	if len(w.ServerInfoJson) > 0 {
		m.ServerInfo = new(mcp.Implementation)
		if err := json.Unmarshal(w.ServerInfoJson, m.ServerInfo); err != nil {
			return nil, fmt.Errorf("messages: server info: %w", err)
		}
	}
	return m, nil
}

// Serialize returns the wire form.
func (m *CallTool) Serialize() (remote.RootSerialized, error) {
	w := &WireCallTool{Id: m.ID, Name: m.Name, Arguments: m.Arguments, Progress: m.Progress, IdleTimeoutNanos: int64(m.IdleTimeout),
		TraceContext: m.TraceContext, Limit: m.Limit}
	if !m.Deadline.IsZero() {
		w.DeadlineUnixNano = m.Deadline.UnixNano()
	}
	return w, nil
}

// Deserialize returns the plain message.
func (w *WireCallTool) Deserialize() (remote.RootSerializable, error) {
	m := &CallTool{ID: w.Id, Name: w.Name, Arguments: w.Arguments, Progress: w.Progress, IdleTimeout: time.Duration(w.IdleTimeoutNanos),
		Limit: w.Limit}
	if len(w.TraceContext) > 0 {
		m.TraceContext = w.TraceContext
	}
	if w.DeadlineUnixNano != 0 {
		m.Deadline = time.Unix(0, w.DeadlineUnixNano)
	}
	return m, nil
}

// Serialize returns the wire form, with the result as JSON.
func (m *CallToolReply) Serialize() (remote.RootSerialized, error) {
	w := &WireCallToolReply{Id: m.ID}
	if m.Failure != nil {
		w.Failure = m.Failure.wire()
	}
	if m.Result != nil {
		var err error
		if w.ResultJson, err = json.Marshal(m.Result); err != nil {
			return nil, fmt.Errorf("messages: tool result: %w", err)
		}
	}
	return w, nil
}

// Deserialize returns the plain message.
func (w *WireCallToolReply) Deserialize() (remote.RootSerializable, error) {
	m := &CallToolReply{ID: w.Id}
	if w.Failure != nil {
		m.Failure = w.Failure.plain()
	}
	if len(w.ResultJson) > 0 {
		m.Result = new(mcp.CallToolResult)
		if err := json.Unmarshal(w.ResultJson, m.Result); err != nil {
			// The result was valid when it left; failing the call beats
			// dropping it.
			m.Result = nil
			m.Failure = &Failure{Kind: FailureInternal, Message: "tool result did not survive the wire: " + err.Error()}
		}
	}
	return m, nil
}

// Serialize returns the wire form.
func (m *CancelCall) Serialize() (remote.RootSerialized, error) {
	return &WireCancelCall{Id: m.ID}, nil
}

// Deserialize returns the plain message.
func (w *WireCancelCall) Deserialize() (remote.RootSerializable, error) {
	return &CancelCall{ID: w.Id}, nil
}

// Serialize returns the wire form.
func (m *CallProgress) Serialize() (remote.RootSerialized, error) {
	return &WireCallProgress{Id: m.ID, Progress: m.Progress, Total: m.Total, Message: m.Message}, nil
}

// Deserialize returns the plain message.
func (w *WireCallProgress) Deserialize() (remote.RootSerializable, error) {
	return &CallProgress{ID: w.Id, Progress: w.Progress, Total: w.Total, Message: w.Message}, nil
}

// Serialize returns the wire form.
func (*RefreshTools) Serialize() (remote.RootSerialized, error) { return &WireRefreshTools{}, nil }

// Deserialize returns the plain message.
func (*WireRefreshTools) Deserialize() (remote.RootSerializable, error) { return &RefreshTools{}, nil }

// Serialize returns the wire form.
func (*WatchTools) Serialize() (remote.RootSerialized, error) { return &WireWatchTools{}, nil }

// Deserialize returns the plain message.
func (*WireWatchTools) Deserialize() (remote.RootSerializable, error) { return &WatchTools{}, nil }

// Serialize returns the wire form.
func (*Reconnect) Serialize() (remote.RootSerialized, error) { return &WireReconnect{}, nil }

// Deserialize returns the plain message.
func (*WireReconnect) Deserialize() (remote.RootSerializable, error) { return &Reconnect{}, nil }

// Serialize returns the wire form.
func (*HandedOver) Serialize() (remote.RootSerialized, error) { return &WireHandedOver{}, nil }

// Deserialize returns the plain message.
func (*WireHandedOver) Deserialize() (remote.RootSerializable, error) { return &HandedOver{}, nil }

// Serialize returns the wire form.
func (*UnwatchTools) Serialize() (remote.RootSerialized, error) { return &WireUnwatchTools{}, nil }

// Deserialize returns the plain message.
func (*WireUnwatchTools) Deserialize() (remote.RootSerializable, error) { return &UnwatchTools{}, nil }

// Serialize returns the wire form.
func (f *Failure) Serialize() (remote.RootSerialized, error) { return f.wire(), nil }

// Deserialize returns the plain message.
func (w *WireFailure) Deserialize() (remote.RootSerializable, error) { return w.plain(), nil }

func (f *Failure) wire() *WireFailure {
	w := &WireFailure{Kind: string(f.Kind), Op: f.Op, Message: f.Message, Cause: string(f.Cause), CircuitOpen: f.CircuitOpen}
	if r := f.RPC; r != nil {
		w.Rpc = &WireRPCError{Code: r.Code, Message: r.Message, Data: r.Data}
	}
	if t := f.Token; t != nil {
		w.Token = &WireTokenError{Endpoint: t.Endpoint, GrantType: t.GrantType, StatusCode: int32(t.StatusCode),
			Code: t.Code, Description: t.Description}
	}
	return w
}

func (w *WireFailure) plain() *Failure {
	f := &Failure{Kind: FailureKind(w.Kind), Op: w.Op, Message: w.Message, Cause: FailureCause(w.Cause), CircuitOpen: w.CircuitOpen}
	if r := w.Rpc; r != nil {
		f.RPC = &RPCError{Code: r.Code, Message: r.Message}
		if len(r.Data) > 0 {
			f.RPC.Data = r.Data
		}
	}
	if t := w.Token; t != nil {
		f.Token = &auth.TokenError{Endpoint: t.Endpoint, GrantType: t.GrantType, StatusCode: int(t.StatusCode),
			Code: t.Code, Description: t.Description}
	}
	return f
}
