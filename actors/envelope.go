package actors

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envelopeKeys are the _meta keys of the envelope MCP 2026-07-28 puts on
// every message a client sends: protocol version, client identity,
// capabilities.
var envelopeKeys = [...]string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities}

// envelopeTransport gives the client's notifications the envelope that
// go-sdk puts on its requests only. go-sdk sends notifications/cancelled
// straight from its JSON-RPC layer, past every sending middleware, with
// bare params; a strict server refuses it (over HTTP with a 400) and never
// learns of the cancellation. So the envelope goes on where every message
// passes: the connection's Write.
//
// The envelope is learnt from the first request sent (server/discover),
// whose _meta go-sdk builds from the client's identity and capabilities, so
// a notification says exactly what the requests say. Only notifications are
// changed; requests pass untouched, at the cost of one type switch.
//
// Wrapping hides go-sdk's private hook on its Streamable HTTP connection
// (sessionUpdated). Under 2026-07-28 that hook only remembers the
// negotiated version, for the MCP-Protocol-Version header of a message
// that carries none in its _meta; with the envelope on every request and
// notification, none is left without one.
type envelopeTransport struct {
	mcp.Transport
	// traced: the requests written carry a client span in their ctx, which
	// learns its jsonrpc.request.id here.
	traced bool
}

// Connect connects the wrapped transport and wraps its connection.
func (t envelopeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Connection: conn, traced: t.traced}, nil
}

// envelopeConn puts the envelope on each notification written to it.
type envelopeConn struct {
	mcp.Connection
	traced bool
	// envelope holds the envelope's keys as they went out on the first
	// request; nil until then.
	envelope atomic.Pointer[map[string]json.RawMessage]
}

// Write sends msg, a notification with the envelope added.
func (c *envelopeConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.IsCall() {
			if c.traced {
				requestIDAttr(ctx, req.ID)
			}
			if c.envelope.Load() == nil {
				c.learn(req.Params)
			}
		} else if env := c.envelope.Load(); env != nil {
			msg = enveloped(req, *env)
		}
	}
	return c.Connection.Write(ctx, msg)
}

// learn keeps the envelope of a request's params, if they carry one.
func (c *envelopeConn) learn(params json.RawMessage) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta[mcp.MetaKeyProtocolVersion] == nil {
		return
	}
	env := make(map[string]json.RawMessage, len(envelopeKeys))
	for _, k := range envelopeKeys {
		if v, ok := p.Meta[k]; ok {
			env[k] = v
		}
	}
	c.envelope.CompareAndSwap(nil, &env)
}

// enveloped returns a copy of the notification req whose params' _meta
// holds every key of env it did not hold already. A notification whose
// params are not a JSON object is sent as it is.
func enveloped(req *jsonrpc.Request, env map[string]json.RawMessage) *jsonrpc.Request {
	params := map[string]json.RawMessage{}
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if json.Unmarshal(req.Params, &params) != nil {
			return req
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil {
			return req
		}
	}
	for k, v := range env {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return req
	}
	params["_meta"] = rawMeta
	rawParams, err := json.Marshal(params)
	if err != nil {
		return req
	}
	return &jsonrpc.Request{ID: req.ID, Method: req.Method, Params: rawParams, Extra: req.Extra}
}
