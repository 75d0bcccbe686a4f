package directcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/intern"
)

// Caller runs tools/call on a path of its own, beneath go-sdk's
// ClientSession: the request is sent and its answer matched on the
// transport's connection (a stdio line, or a POST with go-sdk's client and
// headers), and the result is decoded by [DecodeCallToolResult]. The
// session keeps everything else (discovery, tools/list, notifications,
// progress, which it reads as before).
//
// ClientSession.CallTool decodes each answer twice through go-sdk's JSON
// decoder, which reads every value into a new 32 KiB buffer: most of the
// bytes and much of the CPU of a call.
type Caller interface {
	// CallTool sends tools/call with params, whose Meta must already hold
	// what the call adds (progress token, trace context); the _meta
	// envelope go-sdk puts on every request is added. attempted is called
	// with the request's id just before the request is handed to the
	// wire. Its failures are go-sdk's: a *jsonrpc.Error wrapped as
	// CallTool wraps it, mcp.ErrConnectionClosed, the wire's own error
	// (transport.ErrNotSent for a message that never left), the context's
	// error; and [ErrCallOnSession] for a call it leaves to the session,
	// which the server has not run.
	CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error)
	// CallsDirect reports whether tool calls should take this path.
	CallsDirect() bool
}

// ErrCallOnSession is returned by a [Caller]'s CallTool that did not run
// the call and leaves it to the session's CallTool: the server has not run
// it. Over Streamable HTTP it answers an authorization challenge, which
// go-sdk's transport meets with its OAuth handler.
var ErrCallOnSession = errors.New("directcall: call left to the session")

const methodToolsCall = "tools/call"

// idBase is how far below zero direct calls' ids start: the k-th call's
// id is -(idBase + k). They never meet go-sdk's, which count up from 1, nor
// a small id a misbehaving server makes up (-1), and stay well inside the
// integers JSON numbers hold exactly.
const idBase = 1 << 40

// calls is what the direct calls of one connection share, whatever the
// wire: the ids given out, the _meta envelope learnt from go-sdk, and the
// connection's end. Its zero value is ready.
type calls struct {
	next atomic.Int64
	env  atomic.Pointer[envelope]
	// cached: a read's result had a TTL, so reads go to the session,
	// whose cache keeps it (read.go).
	cached atomic.Bool

	endMu   sync.Mutex
	endErr  error // once the connection ended: why
	endOnce sync.Once
	// halted ends when the connection does; made on first use.
	halted context.Context
	halt   context.CancelFunc

	// bg counts the goroutines calls leave behind them (a cancel's
	// notification, the drain of an answered stream), which halted ends.
	bg sync.WaitGroup
}

// background runs f on a goroutine of its own, counted in bg; f's halted
// ends when the connection does. Once the connection has ended, f runs at
// once, halted already: nothing is counted after the end, which Close's
// wait follows.
func (c *calls) background(f func(halted context.Context)) {
	c.endMu.Lock()
	halted, ended := c.haltedLocked(), c.endErr != nil
	if !ended {
		c.bg.Add(1)
	}
	c.endMu.Unlock()
	if ended {
		f(halted)
		return
	}
	go func() {
		defer c.bg.Done()
		f(halted)
	}()
}

// haltedLocked is halted, made if need be; endMu is held.
func (c *calls) haltedLocked() context.Context {
	if c.halted == nil {
		c.halted, c.halt = context.WithCancel(context.Background())
	}
	return c.halted
}

// id gives out the id of the next call.
func (c *calls) id() int64 { return -idBase - c.next.Add(1) }

// ours reports whether n is an id given out.
func (c *calls) ours(n int64) bool { return n <= -idBase-1 && n >= -idBase-c.next.Load() }

// doneChan is closed when the connection ends.
func (c *calls) doneChan() <-chan struct{} {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	return c.haltedLocked().Done()
}

// end fails every call waiting, and every later one, with err; the first
// end's err is kept.
func (c *calls) end(err error) {
	c.endOnce.Do(func() {
		c.endMu.Lock()
		c.endErr = err
		c.haltedLocked()
		c.halt()
		c.endMu.Unlock()
	})
}

// ended is why the connection ended, or nil.
func (c *calls) ended() error {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	return c.endErr
}

// closedError is go-sdk's error for a request of method on a connection
// that ended.
func closedError(method string, why error) error {
	return fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, method, why)
}

// learn takes the envelope from a call go-sdk writes.
func (c *calls) learn(req *jsonrpc.Request) {
	if c.env.Load() != nil {
		return
	}
	if env := envelopeOf(req); env != nil {
		c.env.CompareAndSwap(nil, env)
	}
}

// errCancelled is a wire's word that the call's context ended while it
// waited: the call is cancelled, and the server told.
var errCancelled = errors.New("directcall: cancelled")

// request is what a direct request sends: a tools/call (tool) or a
// resources/read (read).
type request struct {
	method string // methodToolsCall or methodReadResource
	tool   *mcp.CallToolParams
	read   *mcp.ReadResourceParams
}

// name is what the request's Mcp-Name header carries: the tool's name, or
// the resource's URI.
func (r request) name() string {
	if r.read != nil {
		return r.read.URI
	}
	return r.tool.Name
}

// appendTo appends the request of direct request n.
func (r request) appendTo(b []byte, n int64, env *envelope) ([]byte, error) {
	if r.read != nil {
		return appendRead(b, n, r.read, env)
	}
	return appendCall(b, n, r.tool, env)
}

// wire is one transport's round trip of a direct request.
type wire interface {
	// roundTrip sends direct request n (see request.appendTo), calling
	// markAttempted(attempted, n) just before it goes, and returns its
	// answer. It returns errCancelled when ctx ended while it waited.
	roundTrip(ctx context.Context, n int64, rq request, env *envelope, attempted func(id jsonrpc.ID)) (*jsonrpc.Response, error)
	// notify sends notifications/cancelled for call n (see
	// appendCancelled), off the caller's path.
	notify(ctx context.Context, n int64, reason string, env *envelope)
}

// call runs one direct tools/call on w.
func (c *calls) call(ctx context.Context, w wire, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	raw, err := c.exchange(ctx, w, request{method: methodToolsCall, tool: params}, attempted)
	if err != nil {
		return nil, err
	}
	if a := TaskAnswerOf(ctx); a != nil {
		a.Take(raw)
	}
	return DecodeCallToolResult(raw)
}

// exchange runs one direct request on w and returns its result: the same
// checks, id, cancellation and errors for every wire and method.
func (c *calls) exchange(ctx context.Context, w wire, rq request, attempted func(id jsonrpc.ID)) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.ended(); err != nil {
		return nil, closedError(rq.method, err)
	}
	n := c.id()
	env := c.env.Load()
	r, err := w.roundTrip(ctx, n, rq, env, attempted)
	if errors.Is(err, errCancelled) {
		// Cancel, then notify, off the caller's path as go-sdk does: a
		// server that reads nothing must not hold the caller past its
		// deadline.
		reason := ctx.Err().Error()
		c.background(func(halted context.Context) {
			nctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			defer cancel()
			stop := context.AfterFunc(halted, cancel)
			defer stop()
			w.notify(nctx, n, reason, env)
		})
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("calling %q: %w", rq.method, r.Error)
	}
	return r.Result, nil
}

// markAttempted calls attempted, if any, with the id of request n: a wire
// does, just before the request goes.
func markAttempted(attempted func(id jsonrpc.ID), n int64) {
	if attempted != nil {
		id, _ := jsonrpc.MakeID(float64(n))
		attempted(id)
	}
}

// envelope holds the _meta members go-sdk puts on every request: each
// one's name and value, and all of them as object members.
type envelope struct {
	version string // the protocol version, for the MCP-Protocol-Version header
	// versionHeader is version as a header's values, shared by the
	// requests that carry it (envelopeOf sets it).
	versionHeader []string
	names         []string
	members       [][]byte // "name":value
	all           []byte   // the members, comma-separated
}

var envelopeKeys = [...]string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities}

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
	env.versionHeader = []string{env.version}
	var ends [len(envelopeKeys)]int
	for _, k := range envelopeKeys {
		if v, ok := p.Meta[k]; ok {
			if len(env.all) > 0 {
				env.all = append(env.all, ',')
			}
			env.all = append(append(appendString(env.all, k), ':'), v...)
			ends[len(env.names)] = len(env.all)
			env.names = append(env.names, k)
		}
	}
	start := 0
	for i := range env.names { // each member is a part of all
		env.members = append(env.members, env.all[start:ends[i]:ends[i]])
		start = ends[i] + 1
	}
	return envelopes.Intern(env.version+"\x00"+string(env.all), env)
}

// envelopes are the envelopes learnt so far, by their members and version:
// the connections of one process send the same (one client, one protocol
// version), and share one copy.
var envelopes = intern.Table[*envelope]{Max: 64}

// appendCall appends the tools/call request of direct call n: params'
// name, arguments as written (compacted) and _meta, with env's members
// _meta does not have.
func appendCall(b []byte, n int64, params *mcp.CallToolParams, env *envelope) ([]byte, error) {
	b = appendCallHead(b, n, params.Name)
	switch a := params.Arguments.(type) {
	case nil:
		b = append(b, "{}"...)
	case json.RawMessage:
		var err error
		if b, err = appendRawArguments(b, a); err != nil {
			return b, err
		}
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

// appendCallHead appends the tools/call request of direct call n up to
// its arguments, which come next.
func appendCallHead(b []byte, n int64, name string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = appendString(b, name)
	return append(b, `,"arguments":`...)
}

// appendRawArguments appends arguments given as JSON text, compacted; none
// is {}.
func appendRawArguments(b []byte, a json.RawMessage) ([]byte, error) {
	if len(a) == 0 {
		return append(b, "{}"...), nil
	}
	buf := bytes.NewBuffer(b) // Compact appends to the line
	if err := json.Compact(buf, a); err != nil {
		return b, fmt.Errorf("marshaling arguments: %w", err)
	}
	return buf.Bytes(), nil
}

// Call is a tools/call as a mailbox posts it ([Poster]): the tool's name,
// its arguments as JSON text (none: {}), and its progress token ("" for
// none).
type Call struct {
	Name          string
	Arguments     json.RawMessage
	ProgressToken string
}

// appendPosted appends the tools/call request of direct call n, posted as
// c: the line appendCall makes of the same call.
func appendPosted(b []byte, n int64, c *Call, env *envelope) ([]byte, error) {
	b = appendCallHead(b, n, c.Name)
	b, err := appendRawArguments(b, c.Arguments)
	if err != nil {
		return b, err
	}
	if c.ProgressToken != "" || env != nil {
		b = append(b, `,"_meta":{`...)
		if c.ProgressToken != "" {
			b = appendString(append(b, `"progressToken":`...), c.ProgressToken)
			if env != nil {
				b = append(b, ',')
			}
		}
		if env != nil {
			b = append(b, env.all...)
		}
		b = append(b, '}')
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

// CallerOf hands over the direct tools/call path of t, a transport that
// transport.Stdio.Open or transport.StreamableHTTP.Open returned: nil
// when t has none (another transport, DisableDirectCalls, or
// MCPCONNECTOR_DIRECT_CALLS=0). The connection actor calls it once per
// connection attempt.
func CallerOf(t mcp.Transport) Caller {
	if h, ok := t.(interface{ DirectCaller() Caller }); ok {
		return h.DirectCaller()
	}
	return nil
}
