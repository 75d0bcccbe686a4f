package directcall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Streamable HTTP direct path: tools/call POSTed by this package, with
// the http.Client and OAuth handler go-sdk's transport has (so every header,
// the authorization hook with its token refresh and DPoP proofs, and the
// round trippers transport puts under go-sdk apply), its answer read as a
// JSON body or an event stream here, and decoded by [DecodeCallToolResult].
// The request is the one go-sdk's streamable client would send: the same
// headers (Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id when
// there is one, Mcp-Method and Mcp-Name, the OAuth token) and the same body
// with the _meta envelope.
//
// What the answer's stream carries besides the result (progress, other
// notifications, a server's requests) is handed to the session, through
// its connection's Read, before the result is returned. A cancelled call
// ends its POST, as go-sdk's does, and is followed by notifications/cancelled.
//
// Cases the direct path leaves to the session, which then sends the call
// itself: a tool whose input schema binds arguments to headers
// (x-mcp-header, go-sdk's Mcp-Param- headers), an OAuth token that cannot
// be had, and an answer that is neither 2xx nor made one by posts.go (a 401
// or 403 for the OAuth handler, a redirect not followed). In none of them
// has the server run the call.

// HTTP is go-sdk's Streamable HTTP connection, which the session reads
// and writes as before, with the direct calls beside it: the transport's
// Connect wraps go-sdk's connection in it. Its zero value is not ready:
// use [NewHTTP].
type HTTP struct {
	mcp.Connection // go-sdk's
	calls

	url      string
	client   *http.Client
	maxBody  int64 // 0: unbounded here (the client bounds it)
	oauth    sdkauth.OAuthHandler
	maxEvent int
	tooLarge error
	// repeatable is HTTPConfig.Repeatable; nil means no call is re-sent.
	repeatable *atomic.Pointer[func(tool string) bool]

	paramHeaders atomic.Bool // a listed tool binds arguments to headers

	sid atomic.Pointer[[]string] // the last Mcp-Session-Id header sent

	// revision is HTTPConfig.Revision; initID is the id of the
	// initialize request written, while initPending says its answer is
	// awaited (see sawInitialized).
	revision    *atomic.Pointer[string]
	initMu      sync.Mutex
	initID      jsonrpc.ID
	initPending atomic.Bool

	listMu sync.Mutex
	lists  map[int64]bool // ids of tools/list calls not answered yet
	listN  atomic.Int32   // len(lists)

	// Messages of direct calls' streams wait in queued for the session's
	// Read, which reads go-sdk's connection itself (no goroutine between
	// them: go-sdk's stream reader hands each message straight to the
	// session's) under a context of its own, wake, that hand cancels to
	// have a queued message read.
	injMu  sync.Mutex
	queued []injected
	wake   context.CancelFunc // ends the Read's context; nil if none

	// Read's own, on the session's one reading goroutine.
	ack      chan struct{} // closed on the Read after an injected message
	readErr  error
	readCtx  context.Context // the Read's context while no message is queued
	readFrom context.Context // the ctx readCtx derives from
	stopHalt func() bool     // stops the halted AfterFunc of readCtx

	closeOnce sync.Once
}

// HTTPConfig is what the direct calls over Streamable HTTP take besides
// go-sdk's transport.
type HTTPConfig struct {
	// TooLarge is the error whose text names an event over the
	// transport's MaxEventSize, or a JSON body over MaxBody.
	TooLarge error
	// Client, if set, sends the direct POSTs instead of go-sdk's
	// transport's HTTPClient: the same client without a layer that reads
	// each JSON body whole before handing it on, which MaxBody then bounds
	// here, read once into the answer's buffer.
	Client *http.Client
	// MaxBody bounds a JSON answer's body when Client is set: one over it
	// fails its call alone, with a JSON-RPC error (code -32603) whose text
	// is TooLarge's and the HTTP status, as that layer refuses it.
	MaxBody int64
	// Repeatable, if set, holds which tools may run again: a call of one
	// whose answer's stream was cut before the answer is re-sent once,
	// with a new id. A nil pointer in it means none.
	Repeatable *atomic.Pointer[func(tool string) bool]
	// Revision, if set, is given the revision that the answer to an
	// initialize negotiated, when it is older than 2026-07-28 (a session
	// of plugin.WithLegacyFallback): the transport puts it in the
	// MCP-Protocol-Version header of every later request. The connection
	// then opens the revision's standalone GET stream (see [HTTP.Read]).
	Revision *atomic.Pointer[string]
}

// errClosed is why the calls of a closed connection fail, in go-sdk's
// words.
var errClosed = errors.New("client is closing")

// injected is a message of a direct call's stream for the session; ack is
// closed when the session has taken it and asks for the next.
type injected struct {
	msg jsonrpc.Message
	ack chan struct{}
}

// NewHTTP wraps inner, the connection sdk made, with direct calls POSTed
// with sdk's endpoint, client and OAuth handler.
func NewHTTP(inner mcp.Connection, sdk *mcp.StreamableClientTransport, cfg HTTPConfig) *HTTP {
	client := sdk.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	tooLarge := cfg.TooLarge
	if tooLarge == nil {
		tooLarge = errors.New("directcall: message too large")
	}
	var maxBody int64
	if cfg.Client != nil {
		client, maxBody = cfg.Client, cfg.MaxBody
	}
	c := &HTTP{
		Connection: inner,
		url:        sdk.Endpoint,
		client:     client,
		maxBody:    maxBody,
		oauth:      sdk.OAuthHandler,
		maxEvent:   sdk.MaxEventSize,
		tooLarge:   tooLarge,
		repeatable: cfg.Repeatable,
		revision:   cfg.Revision,
	}
	return c
}

// CallsDirect reports whether the next tool call can take the direct path:
// the envelope is known, and no tool binds arguments to headers.
func (c *HTTP) CallsDirect() bool { return c.env.Load() != nil && !c.paramHeaders.Load() }

// CallTool implements [Caller]: it POSTs tools/call and reads its answer;
// a call whose answer's stream was cut is POSTed once more, with a new
// id, when HTTPConfig.Repeatable says its tool may run again.
func (c *HTTP) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	if !c.CallsDirect() {
		return nil, ErrCallOnSession
	}
	res, err := c.call(ctx, c, params, attempted)
	if err == nil || !errors.Is(err, errTerminated) || ctx.Err() != nil || !c.mayRepeat(params.Name) {
		return res, err
	}
	res, err2 := c.call(ctx, c, params, attempted)
	if err2 != nil && errors.Is(err2, errTerminated) {
		return nil, fmt.Errorf("%w (re-sent once, as the tool may run again; cut again)", err2)
	}
	return res, err2
}

// mayRepeat reports whether a call of tool whose stream was cut may be
// sent again.
func (c *HTTP) mayRepeat(tool string) bool {
	if c.repeatable == nil {
		return false
	}
	f := c.repeatable.Load()
	return f != nil && (*f)(tool)
}

// Read returns the next message of go-sdk's connection, of a direct
// call's stream, or of the standalone GET stream of a session older than
// 2026-07-28. It reads go-sdk's connection on the caller's goroutine
// (the session's one reader), under a context that a message queued by
// hand, or the connection's end, cancels.
func (c *HTTP) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.ack != nil {
		close(c.ack)
		c.ack = nil
	}
	for {
		if c.readErr != nil {
			return nil, c.readErr
		}
		c.injMu.Lock()
		if len(c.queued) > 0 {
			in := c.queued[0]
			c.queued[0] = injected{}
			c.queued = c.queued[1:]
			c.injMu.Unlock()
			c.ack = in.ack
			return in.msg, nil
		}
		if c.readCtx == nil || c.readFrom != ctx || c.readCtx.Err() != nil {
			c.newReadCtxLocked(ctx)
		}
		rctx := c.readCtx
		c.injMu.Unlock()
		msg, err := c.Connection.Read(rctx)
		if err == nil {
			if c.listN.Load() > 0 {
				c.sawAnswer(msg)
			}
			if c.initPending.Load() {
				c.sawInitialized(msg)
			}
			return msg, nil
		}
		if rctx.Err() == nil {
			c.readErr = err // go-sdk's connection failed or closed
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		select {
		case <-c.doneChan():
			c.readErr = c.ended()
			if c.readErr == errClosed {
				c.readErr = io.EOF
			}
		default: // woken for a queued message
		}
	}
}

// newReadCtxLocked makes the Read's context from ctx, ended by the
// connection's end as well; injMu is held.
func (c *HTTP) newReadCtxLocked(ctx context.Context) {
	if c.stopHalt != nil {
		c.stopHalt()
		c.wake()
	}
	rctx, cancel := context.WithCancel(ctx)
	c.endMu.Lock()
	halted := c.haltedLocked()
	c.endMu.Unlock()
	c.stopHalt = context.AfterFunc(halted, cancel)
	c.readCtx, c.readFrom, c.wake = rctx, ctx, cancel
}

// Write writes msg on go-sdk's connection, learning the envelope from the
// first call and noting tools/list calls, whose answers say whether a tool
// binds arguments to headers.
func (c *HTTP) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.learn(req)
		if req.Method == methodInitialize {
			c.initMu.Lock()
			c.initID = req.ID
			c.initPending.Store(true)
			c.initMu.Unlock()
		}
		if req.Method == "tools/list" {
			if n, ok := req.ID.Raw().(int64); ok {
				c.listMu.Lock()
				if c.lists == nil {
					c.lists = map[int64]bool{}
				}
				c.lists[n] = true
				c.listN.Store(int32(len(c.lists)))
				c.listMu.Unlock()
			}
		}
	}
	return c.Connection.Write(ctx, msg)
}

// sawAnswer notes a tools/list answer naming x-mcp-header: go-sdk then
// sends Mcp-Param- headers with some calls, which the direct path leaves
// to it.
func (c *HTTP) sawAnswer(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	n, ok := r.ID.Raw().(int64)
	if !ok {
		return
	}
	c.listMu.Lock()
	list := c.lists[n]
	delete(c.lists, n)
	c.listN.Store(int32(len(c.lists)))
	c.listMu.Unlock()
	if list && bytes.Contains(r.Result, []byte("x-mcp-header")) {
		c.paramHeaders.Store(true)
	}
}

// Close closes go-sdk's connection, which ends the session's Read. It returns
// once what calls left behind them (a cancel's notification, a stream's
// drain), halted by the end, is done: no POST outlives the connection.
func (c *HTTP) Close() error {
	c.closeOnce.Do(func() { c.end(errClosed) })
	err := c.Connection.Close()
	c.bg.Wait()
	return err
}

// hand gives the session msg, a message of a direct call's stream, and
// waits until the session has taken it in (its next Read), so that a
// progress notification reaches its caller before the call's result. A
// message the session has not taken when ctx ends, or the connection,
// is dropped.
func (c *HTTP) hand(ctx context.Context, msg jsonrpc.Message) {
	ack := make(chan struct{})
	done := c.doneChan()
	c.injMu.Lock()
	c.queued = append(c.queued, injected{msg, ack})
	if c.wake != nil {
		c.wake()
	}
	c.injMu.Unlock()
	select {
	case <-ack:
		return
	case <-ctx.Done():
	case <-done:
	}
	c.injMu.Lock()
	for i, in := range c.queued {
		if in.ack == ack {
			c.queued = append(c.queued[:i], c.queued[i+1:]...)
			break
		}
	}
	c.injMu.Unlock()
}
