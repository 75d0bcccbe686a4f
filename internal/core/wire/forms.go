package wire

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/failcause"
	"github.com/cuca-go/mcpconnector/messages"
)

// The wire forms: every message of package messages has a protobuf form
// (wire.proto, the generated Wire* types), which is what travels between
// the members of a cluster. A message bound for another member goes out as
// [ToWire] makes it, and what arrives in a wire form is read as [FromWire]
// gives it back, so the code on both sides only ever handles the plain
// messages. Nothing here names the cluster's transport: any carrier of
// protobuf messages will do.

// ToWire returns the wire form of msg, a message of package messages, and
// true; nil and false for anything else (a wire form already, or another
// package's message, travels as it is). A message whose JSON payload cannot
// be written (a tool list, a tool result) turns into the failure that says
// so, which the receiver gets instead: failing beats dropping.
func ToWire(msg any) (proto.Message, bool) {
	switch m := msg.(type) {
	case *messages.CallTool:
		return callToolWire(m), true
	case *messages.CallToolReply:
		return callToolReplyWire(m), true
	case *messages.CallTask:
		return &WireCallTask{Id: m.ID, TaskId: m.TaskID}, true
	case *messages.CallProgress:
		return &WireCallProgress{Id: m.ID, Progress: m.Progress, Total: m.Total, Message: m.Message}, true
	case *messages.CancelCall:
		return &WireCancelCall{Id: m.ID}, true
	case *messages.Ready:
		return readyWire(m), true
	case *messages.Failure:
		return failureWire(m), true
	case *messages.AwaitReady:
		return &WireAwaitReady{}, true
	case *messages.RefreshTools:
		return &WireRefreshTools{}, true
	case *messages.WatchTools:
		return &WireWatchTools{}, true
	case *messages.UnwatchTools:
		return &WireUnwatchTools{}, true
	case *messages.Reconnect:
		return &WireReconnect{}, true
	case *messages.HandedOver:
		return &WireHandedOver{}, true
	case *messages.ServerRequest:
		return serverRequestWire(m), true
	case *messages.ServerReply:
		return serverReplyWire(m), true
	}
	return nil, false
}

// FromWire returns the plain message of msg, a wire form of this package,
// and true; nil and false for anything else. A wire form whose JSON payload
// does not read back turns into the failure that says so (a
// [*messages.CallToolReply] with its Failure set, for a tool result).
func FromWire(msg any) (any, bool) {
	switch w := msg.(type) {
	case *WireCallTool:
		return w.plain(), true
	case *WireCallToolReply:
		return w.plain(), true
	case *WireCallTask:
		return &messages.CallTask{ID: w.Id, TaskID: w.TaskId}, true
	case *WireCallProgress:
		return &messages.CallProgress{ID: w.Id, Progress: w.Progress, Total: w.Total, Message: w.Message}, true
	case *WireCancelCall:
		return &messages.CancelCall{ID: w.Id}, true
	case *WireReady:
		return w.plain(), true
	case *WireFailure:
		return w.plain(), true
	case *WireAwaitReady:
		return &messages.AwaitReady{}, true
	case *WireRefreshTools:
		return &messages.RefreshTools{}, true
	case *WireWatchTools:
		return &messages.WatchTools{}, true
	case *WireUnwatchTools:
		return &messages.UnwatchTools{}, true
	case *WireReconnect:
		return &messages.Reconnect{}, true
	case *WireHandedOver:
		return &messages.HandedOver{}, true
	case *WireServerRequest:
		return w.plain(), true
	case *WireServerReply:
		return w.plain(), true
	}
	return nil, false
}

// wireFailure is the failure a payload that cannot cross the wire becomes.
func wireFailure(op, what string, err error) *messages.Failure {
	return &messages.Failure{Kind: messages.FailureInternal, Op: op, Message: what + " did not survive the wire: " + err.Error()}
}

// readyWire carries the tools and the server identity as JSON; a list that
// cannot be written becomes the failure that says so.
func readyWire(m *messages.Ready) proto.Message {
	tools, err := json.Marshal(m.Tools)
	if err != nil {
		return failureWire(wireFailure("tools/list", "the tool list", err))
	}
	w := &WireReady{ToolsJson: tools, ProtocolVersion: m.ProtocolVersion, ToolsTtlNanos: int64(m.ToolsTTL), ToolsCacheScope: m.ToolsCacheScope, Instructions: m.Instructions}
	if m.ServerInfo != nil {
		if w.ServerInfoJson, err = json.Marshal(m.ServerInfo); err != nil {
			return failureWire(wireFailure("tools/list", "the server identity", err))
		}
	}
	return w
}

// plain is a [*messages.Ready], or the [*messages.Failure] of a list that
// does not read back.
func (w *WireReady) plain() any {
	m := &messages.Ready{ProtocolVersion: w.ProtocolVersion, ToolsTTL: time.Duration(w.ToolsTtlNanos), ToolsCacheScope: w.ToolsCacheScope, Instructions: w.Instructions}
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

func callToolWire(m *messages.CallTool) *WireCallTool {
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

func (w *WireCallTool) plain() *messages.CallTool {
	m := &messages.CallTool{ID: w.Id, Name: w.Name, Arguments: w.Arguments, Progress: w.Progress, IdleTimeout: time.Duration(w.IdleTimeoutNanos),
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

// callExts are the readers of the wire forms of CallExt, by extension.
var callExts = map[string]func(state []byte) (messages.CallExt, error){}

// RegisterCallExt registers read as the reader of the wire form (JSON)
// of extension name's [messages.CallExt]. Call it from an init function:
// the readers are not guarded for registration after.
func RegisterCallExt(name string, read func(state []byte) (messages.CallExt, error)) {
	callExts[name] = read
}

// readExt is the CallExt w carries, or, when no reader reads it, its
// state kept as it came, which crosses the wire again unchanged.
func readExt(w *WireCallExt) messages.CallExt {
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

// callToolReplyWire carries the result as JSON; a result that cannot be
// written fails the call instead.
func callToolReplyWire(m *messages.CallToolReply) *WireCallToolReply {
	w := &WireCallToolReply{Id: m.ID}
	if m.Failure != nil {
		w.Failure = failureWire(m.Failure)
	}
	if m.Result != nil {
		var err error
		if w.ResultJson, err = json.Marshal(m.Result); err != nil {
			w.ResultJson, w.Failure = nil, failureWire(wireFailure("", "the tool result", err))
		}
	}
	return w
}

func (w *WireCallToolReply) plain() *messages.CallToolReply {
	m := &messages.CallToolReply{ID: w.Id}
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

// failureWire is f's wire form: everything but Err, the original error,
// which is no data; Cause and the fields beside it carry what survives of
// it, and for [messages.CauseTokenRefused] the refusal's fields too.
func failureWire(f *messages.Failure) *WireFailure {
	w := &WireFailure{Kind: string(f.Kind), Op: f.Op, Message: f.Message, Cause: string(f.Cause), CircuitOpen: f.CircuitOpen,
		Exit: f.Exit, Unreachable: f.Unreachable}
	if r := f.RPC; r != nil {
		w.Rpc = &WireRPCError{Code: r.Code, Message: r.Message, Data: r.Data}
	}
	var t *auth.TokenError
	if f.Cause == messages.CauseTokenRefused && errors.As(f.Err, &t) {
		w.Token = &WireTokenError{Endpoint: t.Endpoint, GrantType: t.GrantType, StatusCode: int32(t.StatusCode),
			Code: t.Code, Description: t.Description}
	}
	return w
}

// plain is w's failure, with an Err rebuilt for a cause that stands for
// another package's error.
func (w *WireFailure) plain() *messages.Failure {
	f := &messages.Failure{Kind: messages.FailureKind(w.Kind), Op: w.Op, Message: w.Message, Cause: messages.FailureCause(w.Cause), CircuitOpen: w.CircuitOpen,
		Exit: w.Exit, Unreachable: w.Unreachable}
	if r := w.Rpc; r != nil {
		f.RPC = &messages.RPCError{Code: r.Code, Message: r.Message}
		if len(r.Data) > 0 {
			f.RPC.Data = r.Data
		}
	}
	// Err is what the causes of other packages' errors stand for, so that
	// the failure matches here what it matched where it was made.
	switch {
	case w.Token != nil:
		t := w.Token
		f.Err = &auth.TokenError{Endpoint: t.Endpoint, GrantType: t.GrantType, StatusCode: int(t.StatusCode),
			Code: t.Code, Description: t.Description}
	default:
		f.Err = failcause.Err(f.Cause, nil)
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
