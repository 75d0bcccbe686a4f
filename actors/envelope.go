package actors

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/intern"
	"github.com/cuca-go/mcpconnector/transport"
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
	// progress, if set, is given every notifications/progress as it is
	// read (see envelopeConn.Read).
	progress func(*mcp.ProgressNotificationParams)
	// conn is the wrapper Connect fills in and returns, so that its dialer
	// can reach the connection go-sdk's session runs on.
	conn *envelopeConn
	// exts are the extensions that take part in the session, opened on
	// its connection with session.
	exts    []extension.Extension
	session *extSession
}

// Connect connects the wrapped transport and wraps its connection.
func (t envelopeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.Connection, t.conn.traced, t.conn.progress = conn, t.traced, t.progress
	for _, x := range t.exts {
		t.conn.parts = append(t.conn.parts, x.Open(t.session))
	}
	return t.conn, nil
}

// envelopeConn puts the envelope on each notification written to it, and
// hands each progress notification read from it to progress before the
// next message is read.
type envelopeConn struct {
	mcp.Connection
	traced   bool
	progress func(*mcp.ProgressNotificationParams)
	// envelope holds the envelope's keys as they went out on the first
	// request; nil until then.
	envelope atomic.Pointer[map[string]json.RawMessage]
	// parts are the parts of the session's extensions (extension.Part),
	// which see what is read before go-sdk does.
	parts []extension.Part
	// log is the connection's logger (ConnectionConfig.Logger), nil for
	// none.
	log *zap.Logger

	closeMu sync.Mutex
	closed  bool
	ending  func() // started on a goroutine of its own once closed

	// ack is the server's acknowledgment of the session's
	// subscriptions/listen, seen as it is read.
	ack listenAck
}

// listenAck is the acknowledgment of a session's subscriptions/listen
// (SEP-2575): the notification a server sends first on the stream, once it
// has taken the subscription. go-sdk sends the request and does not wait
// for it, so that a change made before the server took the subscription
// would be announced to nobody; the dialer waits for it (wait) before it
// lists the tools.
type listenAck struct {
	mu    sync.Mutex
	acked bool          // the ack came
	ended bool          // the connection closed
	done  chan struct{} // closed on the first of the two (doneChan)
	late  func()        // called on an ack that came after wait gave up
}

// saw records the ack.
func (a *listenAck) saw() {
	a.mu.Lock()
	if a.acked || a.ended {
		a.mu.Unlock()
		return
	}
	a.acked = true
	a.release()
	late := a.late
	a.mu.Unlock()
	if late != nil {
		late()
	}
}

// end records that the connection closed: no ack will come.
func (a *listenAck) end() {
	a.mu.Lock()
	if !a.acked && !a.ended {
		a.release()
	}
	a.ended = true
	a.mu.Unlock()
}

// release closes done; a.mu is held, and neither the ack nor the end has
// come before.
func (a *listenAck) release() { close(a.doneChan()) }

// doneChan is done, made by the first to need it; a.mu is held.
func (a *listenAck) doneChan() chan struct{} {
	if a.done == nil {
		a.done = make(chan struct{})
	}
	return a.done
}

// wait waits for the ack until limit has passed, ctx ends or the
// connection closes, and reports whether it came and, if not, whether the
// connection closed. When it did not come, late is called if it comes
// later.
func (a *listenAck) wait(ctx context.Context, limit time.Duration, late func()) (acked, ended bool) {
	a.mu.Lock()
	done := a.doneChan()
	a.mu.Unlock()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.acked {
		a.late = late
	}
	return a.acked, a.ended
}

// Close closes the wrapped connection and starts what afterClose was
// given. go-sdk closes the connection when its session ends, either way:
// the server's stream ended, or the session was closed.
func (c *envelopeConn) Close() error {
	err := c.Connection.Close()
	c.ack.end()
	for _, p := range c.parts {
		p.End(errors.New("connection closed"))
	}
	c.closeMu.Lock()
	f := c.ending
	c.closed, c.ending = true, nil
	c.closeMu.Unlock()
	if f != nil {
		go f()
	}
	return err
}

// afterClose has f run on a goroutine of its own once the connection is
// closed (at once if it already is), so that an idle connection holds no
// goroutine that waits for its end.
func (c *envelopeConn) afterClose(f func()) {
	c.closeMu.Lock()
	if !c.closed {
		c.ending = f
		c.closeMu.Unlock()
		return
	}
	c.closeMu.Unlock()
	go f()
}

// Read returns the next message. A notifications/progress is first handed
// to progress, on this goroutine: go-sdk would deliver it on a goroutine
// of its own, where the result that the server sent after it can overtake
// it. Read in the order the server sent them, every progress of a call
// reaches its caller before the call's result does. On a connection that
// has extensions, what one of them takes (the tasks extension: the
// answers of its requests, the server's notifications/tasks) is taken out
// here, and never reaches go-sdk. Other messages cost a type switch.
func (c *envelopeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	for len(c.parts) > 0 {
		if err != nil {
			if ctx.Err() == nil {
				for _, p := range c.parts {
					p.End(err)
				}
			}
			return msg, err
		}
		if !c.taken(msg) {
			return c.progressed(msg, err)
		}
		// An extension's message is not go-sdk's (it may know no such
		// notification, and would refuse it).
		msg, err = c.Connection.Read(ctx)
	}
	return c.progressed(msg, err)
}

// taken reports whether an extension took msg.
func (c *envelopeConn) taken(msg jsonrpc.Message) bool {
	for _, p := range c.parts {
		if p.Take(msg) {
			return true
		}
	}
	return false
}

// progressed hands msg to progress when it is a notifications/progress,
// records the ack of the session's subscriptions/listen, and returns msg
// and err.
func (c *envelopeConn) progressed(msg jsonrpc.Message, err error) (jsonrpc.Message, error) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.IsCall() {
		return msg, err
	}
	switch req.Method {
	case methodProgress:
		if c.progress != nil {
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.progress(&p)
			}
		}
	case methodListenAck:
		c.ack.saw()
	}
	return msg, err
}

const (
	methodProgress  = "notifications/progress"
	methodListenAck = "notifications/subscriptions/acknowledged"
)

// Write sends msg, a notification with the envelope added. A call's
// write is noted in its sendState, when its ctx has one.
func (c *envelopeConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	var st *sendState
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.IsCall() {
			if c.traced {
				requestIDAttr(ctx, req.ID)
			}
			if c.envelope.Load() == nil {
				c.learn(req.Params)
			}
			if st = sendStateOf(ctx); st != nil {
				st.store(sendAttempted)
			}
			for _, p := range c.parts {
				p.Writing(ctx, req)
			}
		} else if env := c.envelope.Load(); env != nil {
			msg = enveloped(req, *env)
		}
	}
	err := c.Connection.Write(ctx, msg)
	if err != nil && st != nil && errors.Is(err, transport.ErrNotSent) {
		st.store(sendFailed)
	}
	return err
}

// A tool call's sendState says whether its request went to the transport:
// a call whose session ends before it was handed over, or whose transport
// says it was not sent, never reached the server and may wait for the
// next session. The call's context carries it (callContext).
const (
	sendNotAttempted int32 = iota
	sendAttempted          // handed to the transport: the server may have it
	sendFailed             // the transport could not send it
)

// sendState holds a call's send state: written by whatever writes the
// call's request (the session's connection, or the direct path), read by
// the call's goroutine once the request has returned.
type sendState struct{ v atomic.Int32 }

func (s *sendState) store(v int32) { s.v.Store(v) }
func (s *sendState) load() int32   { return s.v.Load() }

type sendStateKey struct{}

// sendStateOf is the sendState ctx carries, or nil.
func sendStateOf(ctx context.Context) *sendState {
	st, _ := ctx.Value(sendStateKey{}).(*sendState)
	return st
}

// callContext is a call's context, carrying its sendState without an
// allocation of its own: it lives inside the call.
type callContext struct {
	context.Context
	state *sendState
	// ext are the call's parts of the session's extensions, nil for none:
	// their context values (extension.CallPart.Value).
	ext []extension.CallPart
}

// Value returns the call's sendState for sendStateKey.
func (c *callContext) Value(key any) any {
	if key == (sendStateKey{}) {
		return c.state
	}
	for _, e := range c.ext {
		if v := e.Value(key); v != nil {
			return v
		}
	}
	return c.Context.Value(key)
}

// forget drops the envelope learnt from server/discover: the session is an
// older revision's (ConnectionConfig.LegacyFallback), whose requests carry
// no envelope to learn again, and whose notifications carry none either.
func (c *envelopeConn) forget() { c.envelope.Store(nil) }

// learn keeps the envelope of a request's params, if they carry one.
func (c *envelopeConn) learn(params json.RawMessage) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta[mcp.MetaKeyProtocolVersion] == nil {
		return
	}
	env := make(map[string]json.RawMessage, len(envelopeKeys))
	var key []byte
	for _, k := range envelopeKeys {
		if v, ok := p.Meta[k]; ok {
			env[k] = v
			key = append(append(append(key, k...), 0), v...)
		}
	}
	c.envelope.CompareAndSwap(nil, envelopes.Intern(string(key), &env))
}

// envelopes are the envelopes learnt so far, by their keys and values: the
// connections of one process send the same (one client, one protocol
// version), and share one copy.
var envelopes = intern.Table[*map[string]json.RawMessage]{Max: 64}

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
