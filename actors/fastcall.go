package actors

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/transport"
)

// Direct tool calls: on a transport that hands over a direct path
// (directcall.CallerOf: a stdio server, a Streamable HTTP endpoint),
// tools/call bypasses ClientSession.CallTool, whose answer go-sdk decodes
// twice, each time through a fresh decoder and a new 32 KiB buffer. The
// request goes out on the transport's own connection (over HTTP: a POST
// with go-sdk's client and headers), its answer is matched there and
// decoded into the result go-sdk would give (package
// internal/core/directcall). Everything else stays the session's, and so
// does a call the path leaves to it (directcall.ErrCallOnSession, e.g. an
// authorization challenge over HTTP: the call site then runs it on the
// session).
//
// The path is the default; transport.Stdio's and StreamableHTTP's
// DisableDirectCalls, or MCPCONNECTOR_DIRECT_CALLS=0 in the environment,
// turn it off.

// callsDirect reports whether a call takes dc, the session's direct path:
// there is one, it asks for the call, and go-sdk is not to drive
// input_required (the MRTR opt-in), which only ClientSession.CallTool does.
func (c *mcpConnection) callsDirect(dc directcall.Caller) bool {
	if o := c.cfg.ClientOptions; o != nil && o.MultiRoundTrip != nil && !o.MultiRoundTrip.Disabled {
		return false
	}
	return dc != nil && dc.CallsDirect()
}

// callDirect runs tools/call on dc as ClientSession.CallTool would run it:
// traced like every request (span, trace context in _meta, request id),
// its send state kept for callFailed.
func (c *mcpConnection) callDirect(ctx context.Context, dc directcall.Caller, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	st := sendStateOf(ctx)
	if c.cfg.Telemetry == nil {
		return sendDirect(ctx, dc, params, st, false)
	}
	send := func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		res, err := sendDirect(ctx, dc, req.GetParams().(*mcp.CallToolParams), st, true)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	req := &mcp.ClientRequest[*mcp.CallToolParams]{Params: params}
	if sc, ok := dc.(sessionCaller); ok {
		req.Session = sc.session // its span records the session's revision
	}
	res, err := c.cfg.Telemetry.middleware(c.peer, c.cfg.Logger)(send)(ctx, methodCallTool, req)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CallToolResult), nil
}

// sendDirect sends tools/call on dc, keeping st, the call's send state
// (nil for none), and, if traced, the request id on ctx's span.
func sendDirect(ctx context.Context, dc directcall.Caller, p *mcp.CallToolParams, st *sendState, traced bool) (*mcp.CallToolResult, error) {
	var attempted func(id jsonrpc.ID)
	if traced || st != nil {
		attempted = func(id jsonrpc.ID) {
			if traced {
				requestIDAttr(ctx, id)
			}
			if st != nil {
				st.store(sendAttempted)
			}
		}
	}
	res, err := dc.CallTool(ctx, p, attempted)
	if err != nil {
		if st != nil && errors.Is(err, transport.ErrNotSent) {
			st.store(sendFailed)
		}
		return nil, err
	}
	return res, nil
}

const methodCallTool = "tools/call"
