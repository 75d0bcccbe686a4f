package actors

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// Direct tool calls: on a transport that is a [transport.ToolCaller] (a
// stdio server, a Streamable HTTP endpoint), tools/call bypasses
// ClientSession.CallTool, whose answer go-sdk decodes twice, each time
// through a fresh decoder and a new 32 KiB buffer. The request goes out on
// the transport's own connection (over HTTP: a POST with go-sdk's client
// and headers), its answer is matched there and decoded by
// transport.DecodeCallToolResult into the result go-sdk would give.
// Everything else stays the session's, and so does a call the transport
// leaves to it (transport.ErrCallOnSession, e.g. an authorization
// challenge over HTTP: the call site then runs it on the session).
//
// The path is the default; transport.Stdio's and StreamableHTTP's
// DisableDirectCalls, or MCPCONNECTOR_DIRECT_CALLS=0 in the environment,
// turn it off.

// directCaller is the transport's own tools/call, if it has one and asks
// for it, and go-sdk is not to drive input_required (the MRTR opt-in),
// which only ClientSession.CallTool does.
func (c *McpConnection) directCaller(tail transport.StderrTail) (transport.ToolCaller, bool) {
	tc, ok := tail.(transport.ToolCaller)
	if o := c.cfg.ClientOptions; o != nil && o.MultiRoundTrip != nil && !o.MultiRoundTrip.Disabled {
		return nil, false
	}
	return tc, ok && tc.CallsDirect()
}

// callDirect runs tools/call on tc as ClientSession.CallTool would run it:
// traced like every request (span, trace context in _meta, request id),
// its send state kept for callFailed.
func (c *McpConnection) callDirect(ctx context.Context, tc transport.ToolCaller, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	st, _ := ctx.Value(sendStateKey{}).(*atomic.Int32)
	traced := c.cfg.Telemetry != nil
	send := func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams().(*mcp.CallToolParams)
		res, err := tc.CallTool(ctx, p, func(id jsonrpc.ID) {
			if traced {
				requestIDAttr(ctx, id)
			}
			if st != nil {
				st.Store(sendAttempted)
			}
		})
		if err != nil && st != nil && errors.Is(err, transport.ErrNotSent) {
			st.Store(sendFailed)
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	if !traced {
		res, err := send(ctx, methodCallTool, &mcp.ClientRequest[*mcp.CallToolParams]{Params: params})
		if err != nil {
			return nil, err
		}
		return res.(*mcp.CallToolResult), nil
	}
	res, err := c.cfg.Telemetry.middleware(c.peer, c.cfg.Logger)(send)(ctx, methodCallTool, &mcp.ClientRequest[*mcp.CallToolParams]{Params: params})
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CallToolResult), nil
}

const methodCallTool = "tools/call"
