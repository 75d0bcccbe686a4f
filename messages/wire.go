package messages

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// The wire forms: every message of the protocol has a protobuf form
// (wire.proto, the generated Wire* types), which is what travels between
// the members of a cluster. Package grid converts at its own edges (its
// grain and its facade's link): a message bound for another member goes out
// as [ToWire] makes it, and what arrives in a wire form is read as
// [FromWire] gives it back, so the code on both sides only ever handles the
// plain messages. Nothing here
// names the cluster's transport: any carrier of protobuf messages will do.

// ToWire returns the wire form of msg, a message of this package, and
// true; nil and false for anything else (a wire form already, or another
// package's message, travels as it is). A message whose JSON payload cannot
// be written (a tool list, a tool result) turns into the failure that says
// so, which the receiver gets instead: failing beats dropping.
func ToWire(msg any) (proto.Message, bool) {
	switch m := msg.(type) {
	case *CallTool:
		return m.wire(), true
	case *CallToolReply:
		return m.wire(), true
	case *CallTask:
		return &WireCallTask{Id: m.ID, TaskId: m.TaskID}, true
	case *CallProgress:
		return &WireCallProgress{Id: m.ID, Progress: m.Progress, Total: m.Total, Message: m.Message}, true
	case *CancelCall:
		return &WireCancelCall{Id: m.ID}, true
	case *Ready:
		return m.wire(), true
	case *Failure:
		return m.wire(), true
	case *AwaitReady:
		return &WireAwaitReady{}, true
	case *RefreshTools:
		return &WireRefreshTools{}, true
	case *WatchTools:
		return &WireWatchTools{}, true
	case *UnwatchTools:
		return &WireUnwatchTools{}, true
	case *Reconnect:
		return &WireReconnect{}, true
	case *HandedOver:
		return &WireHandedOver{}, true
	case *ServerRequest:
		return m.wire(), true
	case *ServerReply:
		return m.wire(), true
	}
	return nil, false
}

// FromWire returns the plain message of msg, a wire form of this package,
// and true; nil and false for anything else. A wire form whose JSON payload
// does not read back turns into the failure that says so (a
// [*CallToolReply] with its Failure set, for a tool result).
func FromWire(msg any) (any, bool) {
	switch w := msg.(type) {
	case *WireCallTool:
		return w.plain(), true
	case *WireCallToolReply:
		return w.plain(), true
	case *WireCallTask:
		return &CallTask{ID: w.Id, TaskID: w.TaskId}, true
	case *WireCallProgress:
		return &CallProgress{ID: w.Id, Progress: w.Progress, Total: w.Total, Message: w.Message}, true
	case *WireCancelCall:
		return &CancelCall{ID: w.Id}, true
	case *WireReady:
		return w.plain(), true
	case *WireFailure:
		return w.plain(), true
	case *WireAwaitReady:
		return &AwaitReady{}, true
	case *WireRefreshTools:
		return &RefreshTools{}, true
	case *WireWatchTools:
		return &WatchTools{}, true
	case *WireUnwatchTools:
		return &UnwatchTools{}, true
	case *WireReconnect:
		return &Reconnect{}, true
	case *WireHandedOver:
		return &HandedOver{}, true
	case *WireServerRequest:
		return w.plain(), true
	case *WireServerReply:
		return w.plain(), true
	}
	return nil, false
}

// wireFailure is the failure a payload that cannot cross the wire becomes.
func wireFailure(op, what string, err error) *Failure {
	return &Failure{Kind: FailureInternal, Op: op, Message: what + " did not survive the wire: " + err.Error()}
}

// wire carries the tools and the server identity as JSON; a list that
// cannot be written becomes the failure that says so.
func (m *Ready) wire() proto.Message {
	tools, err := json.Marshal(m.Tools)
	if err != nil {
		return wireFailure("tools/list", "the tool list", err).wire()
	}
	w := &WireReady{ToolsJson: tools, ProtocolVersion: m.ProtocolVersion, ToolsTtlNanos: int64(m.ToolsTTL), ToolsCacheScope: m.ToolsCacheScope, Instructions: m.Instructions}
	if m.ServerInfo != nil {
		if w.ServerInfoJson, err = json.Marshal(m.ServerInfo); err != nil {
			return wireFailure("tools/list", "the server identity", err).wire()
		}
	}
	return w
}

// plain is a [*Ready], or the [*Failure] of a list that does not read back.
func (w *WireReady) plain() any {
	m := &Ready{ProtocolVersion: w.ProtocolVersion, ToolsTTL: time.Duration(w.ToolsTtlNanos), ToolsCacheScope: w.ToolsCacheScope, Instructions: w.Instructions}
	if err := json.Unmarshal(w.ToolsJson, &m.Tools); err != nil {
		return wireFailure("tools/list", "the tool list", err)
	}
	if len(w.ServerInfoJson) > 0 {
		m.ServerInfo = new(mcp.Implementation)
		if err := json.Unmarshal(w.ServerInfoJson, m.ServerInfo); err != nil {
			return wireFailure("tools/list", "the server identity", err)
		}
	}
	return m
}

func (m *CallTool) wire() *WireCallTool {
	w := &WireCallTool{Id: m.ID, Name: m.Name, Arguments: m.Arguments, Progress: m.Progress, IdleTimeoutNanos: int64(m.IdleTimeout),
		TraceContext: m.TraceContext, Limit: m.Limit}
	if !m.Deadline.IsZero() {
		w.DeadlineUnixNano = m.Deadline.UnixNano()
	}
	if m.Ext != nil {
		// A state that cannot be written travels as none: its reader
		// fails the call on the other side.
		state, _ := json.Marshal(m.Ext)
		w.Ext = &WireCallExt{Name: m.Ext.ExtName(), State: state}
	}
	return w
}

func (w *WireCallTool) plain() *CallTool {
	m := &CallTool{ID: w.Id, Name: w.Name, Arguments: w.Arguments, Progress: w.Progress, IdleTimeout: time.Duration(w.IdleTimeoutNanos),
		Limit: w.Limit}
	if len(w.TraceContext) > 0 {
		m.TraceContext = w.TraceContext
	}
	if w.DeadlineUnixNano != 0 {
		m.Deadline = time.Unix(0, w.DeadlineUnixNano)
	}
	if w.Ext != nil {
		m.Ext = readExt(w.Ext)
	}
	return m
}

// readExt is the CallExt w carries, or, when no reader reads it, its
// state kept as it came, which crosses the wire again unchanged.
func readExt(w *WireCallExt) CallExt {
	if read := callExts[w.Name]; read != nil {
		if x, err := read(w.State); err == nil {
			return x
		}
	}
	return &unknownExt{name: w.Name, state: w.State}
}

// unknownExt is a CallExt that came over the wire with no reader for it:
// its state, kept as it was.
type unknownExt struct {
	name  string
	state json.RawMessage
}

func (u *unknownExt) ExtName() string { return u.name }
func (u *unknownExt) Resumes() bool   { return false }
func (u *unknownExt) MarshalJSON() ([]byte, error) {
	if len(u.state) == 0 {
		return []byte("null"), nil
	}
	return u.state, nil
}

// wire carries the result as JSON; a result that cannot be written fails
// the call instead.
func (m *CallToolReply) wire() *WireCallToolReply {
	w := &WireCallToolReply{Id: m.ID}
	if m.Failure != nil {
		w.Failure = m.Failure.wire()
	}
	if m.Result != nil {
		var err error
		if w.ResultJson, err = json.Marshal(m.Result); err != nil {
			w.ResultJson, w.Failure = nil, wireFailure("", "the tool result", err).wire()
		}
	}
	return w
}

func (w *WireCallToolReply) plain() *CallToolReply {
	m := &CallToolReply{ID: w.Id}
	if w.Failure != nil {
		m.Failure = w.Failure.plain()
	}
	if len(w.ResultJson) > 0 {
		// The direct path's decoder: go-sdk's reads every result through a
		// new 32 KiB buffer; this one decides every result as go-sdk's does.
		var err error
		if m.Result, err = directcall.DecodeCallToolResult(w.ResultJson); err != nil {
			// The result was valid when it left; failing the call beats
			// dropping it.
			m.Result = nil
			m.Failure = wireFailure("", "the tool result", err)
		}
	}
	return m
}

// wire is f's wire form: everything but Err, the original error, which
// is no data; Cause and the fields beside it carry what survives of it.
func (f *Failure) wire() *WireFailure {
	w := &WireFailure{Kind: string(f.Kind), Op: f.Op, Message: f.Message, Cause: string(f.Cause), CircuitOpen: f.CircuitOpen,
		Exit: f.Exit, Unreachable: f.Unreachable}
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
	f := &Failure{Kind: FailureKind(w.Kind), Op: w.Op, Message: w.Message, Cause: FailureCause(w.Cause), CircuitOpen: w.CircuitOpen,
		Exit: w.Exit, Unreachable: w.Unreachable}
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

// The wire forms of the messages that may reach nobody as expected say so
// too, for a wire form that arrives after its receiver stopped.

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*WireReady) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*WireCallToolReply) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*WireFailure) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [CancelCall.IgnoreDeadLetterLogging].
func (*WireCancelCall) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [CallProgress.IgnoreDeadLetterLogging].
func (*WireCallProgress) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [CallTask.IgnoreDeadLetterLogging].
func (*WireCallTask) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [UnwatchTools.IgnoreDeadLetterLogging].
func (*WireUnwatchTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [RefreshTools.IgnoreDeadLetterLogging].
func (*WireRefreshTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [RefreshTools.IgnoreDeadLetterLogging].
func (*WireWatchTools) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [RefreshTools.IgnoreDeadLetterLogging].
func (*WireReconnect) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [HandedOver.IgnoreDeadLetterLogging].
func (*WireHandedOver) IgnoreDeadLetterLogging() {}

// IgnoreDeadLetterLogging: see [Ready.IgnoreDeadLetterLogging].
func (*WireServerReply) IgnoreDeadLetterLogging() {}
