package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolCaller is a transport that runs tools/call on a path of its own,
// beneath go-sdk's ClientSession: the request is written and its answer
// matched on the transport's connection (over Streamable HTTP: POSTed with
// go-sdk's client and headers, see http_call.go), and the result is decoded by
// [DecodeCallToolResult]. The session keeps everything else (discovery,
// tools/list, notifications, progress, which it reads as before).
//
// ClientSession.CallTool decodes each answer twice through go-sdk's JSON
// decoder, which reads every value into a new 32 KiB buffer: most of the
// bytes and much of the CPU of a call.
type ToolCaller interface {
	// CallTool sends tools/call with params, whose Meta must already hold
	// what the call adds (progress token, trace context); the _meta
	// envelope go-sdk puts on every request is added. attempted is called
	// with the request's id just before the request is handed to the wire. Its failures are
	// go-sdk's: a *jsonrpc.Error wrapped as CallTool wraps it,
	// mcp.ErrConnectionClosed, ErrNotSent, the context's error; and
	// ErrCallOnSession for a call it leaves to the session, which the
	// server has not run.
	CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error)
	// CallsDirect reports whether tool calls should take this path.
	CallsDirect() bool
}

// directCallsAllowed reports whether the environment leaves the direct
// path on: MCPCONNECTOR_DIRECT_CALLS=0 turns it off for every server.
func directCallsAllowed() bool { return os.Getenv("MCPCONNECTOR_DIRECT_CALLS") != "0" }

// CallsDirect reports whether tool calls take the direct path: unless
// Stdio.DisableDirectCalls or the environment turns it off.
func (t *stdioTransport) CallsDirect() bool { return t.direct }

// CallTool implements [ToolCaller] on the connection of the last Connect.
func (t *stdioTransport) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	c := t.conn.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: not connected", ErrNotSent)
	}
	return c.callTool(ctx, params, attempted)
}

// directCalls are the tools/call requests a stdioConn sent itself. Their
// ids are negative, so they never meet go-sdk's, which count up from 1,
// and start below -[directIDBase], so that a small id a misbehaving server
// makes up (-1) is not taken for one of theirs; an answer with one of the
// ids given out is theirs and never reaches go-sdk.
type directCalls struct {
	next    atomic.Int64
	mu      sync.Mutex
	waiting map[int64]chan *jsonrpc.Response
	ended   error // once the connection ended: why
	done    chan struct{}
	endOnce sync.Once

	// envelope is the _meta go-sdk puts on every request (protocol
	// version, client info and capabilities), learned from the first
	// request it wrote.
	envelope atomic.Pointer[envelope]
}

// envelope holds the _meta members go-sdk puts on every request: each
// one's name and value, and all of them as object members.
type envelope struct {
	version string // the protocol version, for the MCP-Protocol-Version header
	names   []string
	members [][]byte // "name":value
	all     []byte   // the members, comma-separated
}

// directIDBase is how far below zero direct calls' ids start: the k-th
// call's id is -(directIDBase + k), well inside the integers JSON numbers
// hold exactly.
const directIDBase = 1 << 40

var envelopeKeys = [...]string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities}

// doneChan is closed when the connection ends; it is made on first use,
// so a zero directCalls is ready.
func (d *directCalls) doneChan() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil {
		d.done = make(chan struct{})
	}
	return d.done
}

// learn takes the envelope from a request go-sdk writes.
func (d *directCalls) learn(req *jsonrpc.Request) {
	if d.envelope.Load() != nil {
		return
	}
	if env := envelopeOf(req); env != nil {
		d.envelope.CompareAndSwap(nil, env)
	}
}

// envelopeOf is the envelope of a call go-sdk writes, or nil when req
// carries none.
func envelopeOf(req *jsonrpc.Request) *envelope {
	if !req.IsCall() || len(req.Params) == 0 {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil || p.Meta[mcp.MetaKeyProtocolVersion] == nil {
		return nil
	}
	env := &envelope{}
	_ = json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &env.version)
	for _, k := range envelopeKeys {
		if v, ok := p.Meta[k]; ok {
			m := appendString(nil, k)
			m = append(append(m, ':'), v...)
			env.names = append(env.names, k)
			env.members = append(env.members, m)
			if len(env.all) > 0 {
				env.all = append(env.all, ',')
			}
			env.all = append(env.all, m...)
		}
	}
	return env
}

// deliver hands a response to its direct call, and reports whether it was
// one's (answered, or given up on).
func (d *directCalls) deliver(r *jsonrpc.Response) bool {
	n, ok := r.ID.Raw().(int64)
	if !ok || n > -directIDBase-1 || n < -directIDBase-d.next.Load() {
		return false // not an id a direct call was given
	}
	d.mu.Lock()
	ch := d.waiting[n]
	delete(d.waiting, n)
	d.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return true
}

// end fails every direct call waiting, and every later one, with err.
func (d *directCalls) end(err error) {
	done := d.doneChan()
	d.endOnce.Do(func() {
		d.mu.Lock()
		d.ended = err
		d.mu.Unlock()
		close(done)
	})
}

// callTool writes tools/call and waits for its answer.
func (c *stdioConn) callTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &c.direct
	n := -directIDBase - d.next.Add(1)
	ch := make(chan *jsonrpc.Response, 1)
	d.mu.Lock()
	if d.ended != nil {
		err := d.ended
		d.mu.Unlock()
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, "tools/call", err)
	}
	if d.waiting == nil {
		d.waiting = map[int64]chan *jsonrpc.Response{}
	}
	d.waiting[n] = ch
	d.mu.Unlock()
	done := d.doneChan()

	if attempted != nil {
		id, _ := jsonrpc.MakeID(float64(n))
		attempted(id)
	}
	if err := c.writeCall(n, params); err != nil {
		d.mu.Lock()
		delete(d.waiting, n)
		d.mu.Unlock()
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("calling %q: %w", "tools/call", r.Error)
		}
		return DecodeCallToolResult(r.Result)
	case <-done:
		select {
		case r := <-ch: // answered as the connection ended
			if r.Error != nil {
				return nil, fmt.Errorf("calling %q: %w", "tools/call", r.Error)
			}
			return DecodeCallToolResult(r.Result)
		default:
		}
		d.mu.Lock()
		err := d.ended
		d.mu.Unlock()
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, "tools/call", err)
	case <-ctx.Done():
		d.mu.Lock()
		delete(d.waiting, n)
		d.mu.Unlock()
		// Off the caller's path, as go-sdk does: a server that reads
		// nothing must not hold the caller past its deadline.
		reason := ctx.Err().Error()
		go c.writeCancelled(n, reason)
		return nil, ctx.Err()
	}
}

// writeCall writes the request line of direct call n.
func (c *stdioConn) writeCall(n int64, params *mcp.CallToolParams) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b, err := appendCall(c.wbuf[:0], n, params, c.direct.envelope.Load())
	if err != nil {
		return err
	}
	return c.writeLine(append(b, '\n'))
}

// appendCall appends the tools/call request of direct call n: params'
// name, arguments as written (compacted) and _meta, with env's members
// _meta does not have.
func appendCall(b []byte, n int64, params *mcp.CallToolParams, env *envelope) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = appendString(b, params.Name)
	b = append(b, `,"arguments":`...)
	switch a := params.Arguments.(type) {
	case nil:
		b = append(b, "{}"...)
	case json.RawMessage:
		if len(a) == 0 {
			b = append(b, "{}"...)
			break
		}
		buf := bytes.NewBuffer(b) // Compact appends to the line
		if err := json.Compact(buf, a); err != nil {
			return b, fmt.Errorf("marshaling arguments: %w", err)
		}
		b = buf.Bytes()
	default:
		raw, err := json.Marshal(a)
		if err != nil {
			return b, fmt.Errorf("marshaling arguments: %w", err)
		}
		b = append(b, raw...)
	}
	var err error
	if b, err = appendMeta(b, params.Meta, env); err != nil {
		return b, fmt.Errorf("marshaling _meta: %w", err)
	}
	return append(b, "}}"...), nil
}

// appendMeta appends ,"_meta":{...}: meta's members, then the envelope's
// members meta does not have.
func appendMeta(b []byte, meta mcp.Meta, env *envelope) ([]byte, error) {
	if len(meta) == 0 && env == nil {
		return b, nil
	}
	b = append(b, `,"_meta":{`...)
	open := len(b)
	for k, v := range meta {
		if len(b) > open {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		switch v := v.(type) {
		case string:
			b = appendString(b, v)
		default:
			raw, err := json.Marshal(v)
			if err != nil {
				return b, err
			}
			b = append(b, raw...)
		}
	}
	if env != nil {
		for i, k := range env.names {
			if _, ok := meta[k]; ok {
				continue
			}
			if len(b) > open {
				b = append(b, ',')
			}
			b = append(b, env.members[i]...)
		}
	}
	return append(b, '}'), nil
}

// writeCancelled tells the server direct call n is cancelled.
func (c *stdioConn) writeCancelled(n int64, reason string) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	b := appendCancelled(c.wbuf[:0], n, reason, c.direct.envelope.Load())
	_ = c.writeLine(append(b, '\n'))
}

// appendCancelled appends the notifications/cancelled of direct call n,
// with env as its _meta.
func appendCancelled(b []byte, n int64, reason string, env *envelope) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":`...)
	b = appendString(b, reason)
	b = append(b, `,"requestId":`...)
	b = strconv.AppendInt(b, n, 10)
	if env != nil {
		b = append(b, `,"_meta":{`...)
		b = append(b, env.all...)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

// writeLine writes b, a whole line, under writeMu, keeping its buffer.
func (c *stdioConn) writeLine(b []byte) error {
	_, err := c.stdin.Write(b)
	if cap(b) <= maxKeptWriteBuffer {
		c.wbuf = b[:0]
	} else {
		c.wbuf = nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	return nil
}
