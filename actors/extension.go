package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// What the connection offers the extensions beside it (package
// internal/core/extension, whose doc says how one plugs in): each session
// opens the part of every extension that takes part in it (extSession),
// and each call starts the call's part of each (extCall). The core reads
// none of their state; what an extension makes of a call comes back as
// the call's reply, or as the call handed back, decided in the mailbox
// like any other hand-back (onHandBack).

// extSession is what a session offers its extensions.
type extSession struct {
	conn       *envelopeConn
	cfg        *ConnectionConfig
	log        *zap.Logger
	tel        *extension.Telemetry
	supervised bool
	failed     func(error)
}

var _ extension.Session = (*extSession)(nil)

func (s *extSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	return s.conn.Connection.Write(ctx, msg)
}

func (s *extSession) WithEnvelope(params map[string]any) (json.RawMessage, error) {
	if env := s.conn.envelope.Load(); env != nil {
		params["_meta"] = *env
	}
	return json.Marshal(params)
}

func (s *extSession) Transport() transport.McpTransport { return s.cfg.Transport }
func (s *extSession) Log() *zap.Logger                  { return s.log }
func (s *extSession) Telemetry() *extension.Telemetry   { return s.tel }
func (s *extSession) Supervised() bool                  { return s.supervised }
func (s *extSession) Broken(err error) bool             { return brokenTransport(err) }
func (s *extSession) Failed(err error)                  { s.failed(err) }
func (s *extSession) Client() (*mcp.ClientOptions, []*mcp.Root) {
	return s.cfg.ClientOptions, s.cfg.Roots
}

func (s *extSession) Ended(cause error) (why string, closing, ok bool) {
	var ended *connectionEnded
	if !errors.As(cause, &ended) {
		return "", false, false
	}
	return ended.f.Message, ended.closing, true
}

// extCall is what a call offers the extensions of its session. It runs on
// the call's goroutine.
type extCall struct {
	c  *mcpConnection
	s  *mcp.ClientSession
	cl *call
}

var _ extension.Call = extCall{}

func (e extCall) Message() *messages.CallTool { return e.cl.msg }

func (e extCall) Tell(msg any) {
	if e.cl.sender != nil {
		e.c.cfg.deliver(e.c.system, e.cl.sender, msg)
	}
}

func (e extCall) Progress(p *messages.CallProgress) { e.c.progressed(e.cl, p) }
func (e extCall) Settled()                          { e.cl.retry = false }
func (e extCall) Cancel(cause error)                { e.cl.cancel(cause) }

func (e extCall) StopDeadline() {
	if e.cl.timer != nil {
		e.cl.timer.Stop()
	}
}

func (e extCall) Classify(res *mcp.CallToolResult) *messages.CallToolReply {
	return classify(e.cl.msg, res)
}

func (e extCall) Failed(ctx context.Context, err error) *messages.CallToolReply {
	return e.c.callFailed(ctx, e.s, nil, e.cl, err)
}

func (e extCall) Fail(f *messages.Failure, err error, explain, keep bool) *messages.CallToolReply {
	if explain {
		f = causeOf(f, err)
	}
	if keep {
		f.Err = kept(err)
	}
	return failCall(e.cl.msg, f)
}

func (e extCall) HandBack(msg *messages.CallTool, cancel bool) { e.c.handBack(e.cl, msg, cancel) }

// resume is the reply to a call whose message carries held work to go on
// with (messages.CallExt.Resumes): the extension that holds it drives it,
// without a tools/call.
func (c *mcpConnection) resume(ctx context.Context, cl *call) *messages.CallToolReply {
	defer c.untrack(cl)
	for _, e := range cl.ctx.ext {
		if reply, ok := e.Resume(ctx); ok {
			return reply
		}
	}
	cl.cancel(errCallFailed)
	return failCall(cl.msg, &messages.Failure{Kind: messages.FailureNotSupported,
		Message: fmt.Sprintf("the call resumes work of the extension %s, which this connection does not run (for tasks: plugin.WithTasks, over the module's stdio or Streamable HTTP transport)", cl.msg.Ext.ExtName())})
}

// forExtensions is t as the extensions of a session with peer p record
// with it.
func (t *Telemetry) forExtensions(p peer) *extension.Telemetry {
	return &extension.Telemetry{Tracer: t.tracer, Meter: t.meter, Peer: p.attrs, ProtocolVersion: ProtocolVersion}
}

// declare has each extension of cfg declare itself in opts, and returns
// those that take part in the session.
func declare(cfg *ConnectionConfig, opts *mcp.ClientOptions) []extension.Extension {
	var in []extension.Extension
	for _, x := range cfg.Extensions {
		if x.Declare(cfg.Transport, opts) {
			in = append(in, x)
		}
	}
	return in
}

// resumes reports whether msg resumes held work of an extension (a task
// the server runs already): a cancel of it resumes the work only to
// cancel it, once.
func resumes(msg *messages.CallTool) bool { return msg.Ext != nil && msg.Ext.Resumes() }
