// Package extension is the narrow interface between a connection's core
// (package actors) and the protocol extensions that plug in beside it.
//
// The core sends each call, reads its answer, and decides in the
// connection's mailbox what becomes of the call: the caller answered, the
// call queued for the next session, or dropped because its caller gave up.
// An extension never decides that; it works on the session the core offers
// and reports back through the same few doors.
//
// An extension plugs in at three levels:
//
//   - [Extension], one per connection configuration
//     (actors.ConnectionConfig.Extensions): before each session connects
//     it declares itself in the client's capabilities (Declare) and says
//     whether it takes part in that session.
//   - [Part], its part of one session, opened once the session's
//     connection exists ([Session] is what the core offers it there: a
//     sender on the session's connection, the envelope of its requests, its
//     logger and telemetry, and how to tell that the session failed). The
//     part sees every message read before go-sdk does (Take) and every
//     request written (Writing), and ends with the session (End).
//   - [CallPart], its state of one tool call, made as the call starts
//     ([Call] is what the core offers it there: the call's message, a way
//     to tell the caller, report progress, answer, hand the call back for
//     the next session). The core lets it resume held work carried by the
//     call's message instead of a tools/call (Resume), and offers it every
//     tools/call answer first (Answered): an answer of the extension's
//     resultType is the extension's to drive to the call's end.
//
// The tasks extension (internal/core/tasks, SEP-2663) is the first to plug
// in this way. The next one (MCP Apps' ui resources, resource
// subscriptions) does the same: it implements Extension, takes what it
// reads out of the session in Take, sends its own requests with
// Session.Write, answers or hands back calls through Call, and keeps its
// state in its Part and CallPart, never in the core's call or in
// messages.CallTool beyond its opaque entry there. A host installs it by
// adding it to ConnectionConfig.Extensions; the core needs no change.
//
// A session of another protocol revision plugs in one level down, as a
// [Dialect] of the session: the older revisions' (actors/internal/legacy,
// which actors.ConnectionConfig.LegacyFallback selects) is the one. The
// core asks it at three points of making a session, and nowhere else:
// whether initialize may follow a refused server/discover (only with a
// dialect), what the initialize params say (Initialize: without the
// 2026-07-28 extensions that the connection's extensions declared), and,
// once the server has answered, whether the revision negotiated is the
// dialect's (Revisions) and whether its calls keep the transport's direct
// path (Direct). The core drops the 2026-07-28 envelope of a dialect's
// session itself, and names the revision in its spans and status; the
// calls, extensions and supervision are the same on every revision. A new
// dialect implements Dialect and is selected in actors' dialectOf.
package extension

import (
	"context"
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Extension is a protocol extension a connection runs beside its core.
// It is shared by every session of the connection, and by concurrent
// connections of one configuration: it keeps no session's state itself.
type Extension interface {
	// Declare is called before a session connects over tr: the extension
	// adds what it declares to opts (the connection's own copy; copy what
	// it changes below, such as Capabilities) and reports whether it takes
	// part in the session. One that does not is not opened.
	Declare(tr transport.McpTransport, opts *mcp.ClientOptions) bool
	// Open is the extension's part of a session it takes part in, opened
	// as the session's connection is made, before anything is read on it.
	Open(s Session) Part
}

// Deliverer is an extension that carries the connection's answers and
// notices to their callers: the connection and its supervisor send each
// through Deliver rather than as it is. Package grid's gives a caller on
// another member of a cluster the message's wire form; it takes part in
// no session (its Declare reports false).
type Deliverer interface {
	Extension
	Deliver(system *actor.ActorSystem, to *actor.PID, msg any)
}

// Session is what the core offers an extension on one session.
type Session interface {
	// Write writes msg on the session's connection, beside go-sdk's
	// messages; the extension's requests carry ids of its own.
	Write(ctx context.Context, msg jsonrpc.Message) error
	// WithEnvelope is params with the envelope (_meta) the session's
	// requests carry, as JSON.
	WithEnvelope(params map[string]any) (json.RawMessage, error)
	// Transport is the transport the session runs over.
	Transport() transport.McpTransport
	// Log is the connection's logger, never nil.
	Log() *zap.Logger
	// Telemetry is the connection's telemetry, nil when it records none.
	Telemetry() *Telemetry
	// Client is the host's client options (their handlers answer the
	// server's requests) and roots, for an extension that receives such
	// requests its own way.
	Client() (*mcp.ClientOptions, []*mcp.Root)
	// Supervised reports whether a supervisor keeps the calls this session
	// hands back (Call.HandBack) for the next session.
	Supervised() bool
	// Ended reports whether cause (a call's context's cause) is the
	// session's end: why it ended, and closing when the connection was
	// closed or restarted rather than lost.
	Ended(cause error) (why string, closing, ok bool)
	// Broken reports whether err, of a request the extension wrote, is a
	// failure of the session's connection.
	Broken(err error) bool
	// Failed tells the core that the session's connection failed with err
	// (an HTTP endpoint gone away does not end the session by itself).
	Failed(err error)
}

// Telemetry is the connection's telemetry as an extension records with
// it: its tracer and meter, the peer's attributes, and the revision.
type Telemetry struct {
	Tracer          trace.Tracer
	Meter           metric.Meter
	Peer            []attribute.KeyValue
	ProtocolVersion string
}

// Part is an extension's part of one session.
type Part interface {
	// Take is offered every message read from the session before go-sdk
	// reads it; true keeps it from go-sdk. Called on the session's reader
	// goroutine.
	Take(msg jsonrpc.Message) bool
	// Writing is told of every request written by go-sdk, with the ctx
	// of its call, before it is written.
	Writing(ctx context.Context, req *jsonrpc.Request)
	// End ends the part: the session's connection was closed or failed
	// with err. Called once or more.
	End(err error)
	// Call is the extension's state of a call starting on this session,
	// nil when it has none.
	Call(c Call) CallPart
}

// Call is what the core offers an extension for one tool call. Its
// methods are called on the call's goroutine, which alone answers the
// caller.
type Call interface {
	// Message is the call's message.
	Message() *messages.CallTool
	// Tell sends msg to the call's sender (an event of the call, such as
	// messages.CallTask), nothing when it has none.
	Tell(msg any)
	// Progress is a sign of life from the server: the call's idle timeout
	// starts again, and p, when not nil, goes to a caller that asked for
	// progress.
	Progress(p *messages.CallProgress)
	// Settled says that the call must not run again: the server has taken
	// it on (no RetryIdempotent hand-back after this).
	Settled()
	// StopDeadline stops the call's own deadline timer, for an extension
	// that bounds the call by another.
	StopDeadline()
	// Cancel cancels the call's context with cause.
	Cancel(cause error)
	// Classify is the reply to a tools/call result res, as the core
	// makes it.
	Classify(res *mcp.CallToolResult) *messages.CallToolReply
	// Failed is the reply to a call that failed with err as the core
	// makes it, nil when the core handed the call back or its caller
	// gave up.
	Failed(ctx context.Context, err error) *messages.CallToolReply
	// Fail is the reply failing the call with f; with err, f's cause is
	// read from err (explain), and err kept as f.Err when keep.
	Fail(f *messages.Failure, err error, explain, keep bool) *messages.CallToolReply
	// HandBack hands the call back, as msg (the call's message or a copy
	// that carries the extension's state), for the core to decide in its
	// mailbox: queued for the next session, or, its caller having given up,
	// dropped. With cancel (or when its caller gave up, if msg carries
	// held work to resume) the next session resumes the work only to
	// cancel it. The caller is not answered then: the call's goroutine
	// returns a nil reply.
	HandBack(msg *messages.CallTool, cancel bool)
}

// CallPart is an extension's state of one call.
type CallPart interface {
	// Value is what the call's context gives for key, nil for a key that
	// is not the extension's.
	Value(key any) any
	// Resume is the reply to a call whose message carries held work of
	// this extension to go on with instead of a tools/call (ok), nil when
	// the call was handed back or its caller gave up.
	Resume(ctx context.Context) (reply *messages.CallToolReply, ok bool)
	// Answered is offered the tools/call's outcome before the core reads
	// it: took when the extension has made the call's reply (nil when the
	// call was handed back or its caller gave up). It is offered failures
	// too, to drop what it kept for the call.
	Answered(ctx context.Context, res *mcp.CallToolResult, err error) (reply *messages.CallToolReply, took bool)
}
