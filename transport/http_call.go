package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// The Streamable HTTP direct path: tools/call POSTed by this package, with
// the http.Client and OAuth handler go-sdk's transport has (so every header,
// the authorization hook with its token refresh and DPoP proofs, the rule
// of posts.go and the size limit of limit.go apply), its answer read as a
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

// ErrCallOnSession is returned by a [ToolCaller]'s CallTool that did not
// run the call and leaves it to the session's CallTool: the server has not
// run it. Over Streamable HTTP it answers an authorization challenge,
// which go-sdk's transport meets with its OAuth handler.
var ErrCallOnSession = errors.New("transport: call left to the session")

// httpTransport is go-sdk's Streamable HTTP client transport with direct
// tool calls: its connection is wrapped to learn the envelope and to take
// the messages of direct calls' streams.
type httpTransport struct {
	sdk  *mcp.StreamableClientTransport
	conn atomic.Pointer[httpConn]
	// repeatable is RetryCutStreams's; nil means no call is re-sent.
	repeatable atomic.Pointer[func(tool string) bool]
}

// CutStreamRetrier is a transport, as [StreamableHTTP.Open] returns it,
// whose direct tool calls may be re-sent once when the answer's event
// stream breaks before the answer (the server ended it, or the connection
// under it broke): with a new request id, the same arguments and _meta,
// when repeatable says the tool is safe to run again. Any other failure,
// and a second cut, fails the call as before. The plugin asks for it with
// plugin.WithRetryIdempotent, for tools annotated readOnlyHint or
// idempotentHint. Calls sent through go-sdk's session (DisableDirectCalls,
// MCPCONNECTOR_DIRECT_CALLS=0, the cases the direct path leaves to it) are
// never re-sent: go-sdk resumes a cut stream with Last-Event-ID instead,
// when the server gave its events ids.
type CutStreamRetrier interface {
	RetryCutStreams(repeatable func(tool string) bool)
}

// RetryCutStreams implements [CutStreamRetrier]; it applies to every
// connection of the transport, from the next call on.
func (t *httpTransport) RetryCutStreams(repeatable func(tool string) bool) {
	if repeatable == nil {
		t.repeatable.Store(nil)
		return
	}
	t.repeatable.Store(&repeatable)
}

// Connect connects go-sdk's transport and wraps its connection.
func (t *httpTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.sdk.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := newHTTPConn(inner, t.sdk)
	c.repeatable = &t.repeatable
	t.conn.Store(c)
	return c, nil
}

// StderrTail is empty: an HTTP server has no stderr here. It is what the
// connection actor looks for on a transport, beside the [ToolCaller].
func (t *httpTransport) StderrTail() []string { return nil }

// CallsDirect reports whether the next tool call can take the direct path:
// the connection is up, its envelope known, and no tool binds arguments to
// headers.
func (t *httpTransport) CallsDirect() bool {
	c := t.conn.Load()
	return c != nil && c.env.Load() != nil && !c.paramHeaders.Load()
}

// CallTool implements [ToolCaller] on the connection of the last Connect.
func (t *httpTransport) CallTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	c := t.conn.Load()
	if c == nil {
		return nil, fmt.Errorf("%w: not connected", ErrNotSent)
	}
	return c.callTool(ctx, params, attempted)
}

// httpConn is go-sdk's Streamable HTTP connection, which the session
// reads and writes as before, with the direct calls beside it.
type httpConn struct {
	mcp.Connection // go-sdk's

	url      string
	client   *http.Client
	oauth    sdkauth.OAuthHandler
	maxEvent int

	env          atomic.Pointer[envelope] // learnt from go-sdk's first request
	next         atomic.Int64             // direct calls made
	paramHeaders atomic.Bool              // a listed tool binds arguments to headers
	// repeatable is the transport's RetryCutStreams; nil in tests that
	// make a conn alone.
	repeatable *atomic.Pointer[func(tool string) bool]

	listMu sync.Mutex
	lists  map[int64]bool // ids of tools/list calls not answered yet
	listN  atomic.Int32   // len(lists)

	pumped chan readResult // go-sdk's connection's messages, read ahead by pump
	inject chan injected   // messages of direct calls' streams

	// Read's own, on the session's one reading goroutine.
	ack     chan struct{} // closed on the Read after an injected message
	readErr error

	failOnce sync.Once
	failErr  error
	failed   chan struct{} // the direct path broke the connection

	closeOnce sync.Once
	closed    chan struct{}
	stopPump  context.CancelFunc
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// injected is a message of a direct call's stream for the session; ack is
// closed when the session has taken it and asks for the next.
type injected struct {
	msg jsonrpc.Message
	ack chan struct{}
}

func newHTTPConn(inner mcp.Connection, sdk *mcp.StreamableClientTransport) *httpConn {
	client := sdk.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	c := &httpConn{
		Connection: inner,
		url:        sdk.Endpoint,
		client:     client,
		oauth:      sdk.OAuthHandler,
		maxEvent:   sdk.MaxEventSize,
		pumped:     make(chan readResult),
		inject:     make(chan injected),
		failed:     make(chan struct{}),
		closed:     make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.stopPump = cancel
	go c.pump(ctx)
	return c
}

// pump reads go-sdk's connection, so that Read can wait for its messages
// and for those of direct calls at once. It ends with the connection.
func (c *httpConn) pump(ctx context.Context) {
	for {
		msg, err := c.Connection.Read(ctx)
		select {
		case c.pumped <- readResult{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read returns the next message of go-sdk's connection or of a direct
// call's stream.
func (c *httpConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.ack != nil {
		close(c.ack)
		c.ack = nil
	}
	if c.readErr != nil {
		return nil, c.readErr
	}
	select {
	case r := <-c.pumped:
		if r.err != nil {
			c.readErr = r.err
			return nil, r.err
		}
		if c.listN.Load() > 0 {
			c.sawAnswer(r.msg)
		}
		return r.msg, nil
	case in := <-c.inject:
		c.ack = in.ack
		return in.msg, nil
	case <-c.failed:
		c.readErr = c.failErr
		return nil, c.failErr
	case <-c.closed:
		c.readErr = io.EOF
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes msg on go-sdk's connection, learning the envelope from the
// first call and noting tools/list calls, whose answers say whether a tool
// binds arguments to headers.
func (c *httpConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if c.env.Load() == nil {
			if env := envelopeOf(req); env != nil {
				c.env.CompareAndSwap(nil, env)
			}
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
func (c *httpConn) sawAnswer(msg jsonrpc.Message) {
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

// Close closes go-sdk's connection; the pump ends with it.
func (c *httpConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	err := c.Connection.Close()
	c.stopPump()
	return err
}

// fail breaks the connection as go-sdk's own does when an answer cannot
// be read: the session's Read fails with err.
func (c *httpConn) fail(err error) {
	c.failOnce.Do(func() {
		c.failErr = err
		close(c.failed)
	})
}

// ended is why the connection ended, or nil.
func (c *httpConn) ended() error {
	select {
	case <-c.closed:
		return errors.New("connection closed")
	case <-c.failed:
		return c.failErr
	default:
		return nil
	}
}

// hand gives the session msg, a message of a direct call's stream, and
// waits until the session has taken it in (its next Read), so that a
// progress notification reaches its caller before the call's result.
func (c *httpConn) hand(ctx context.Context, msg jsonrpc.Message) {
	ack := make(chan struct{})
	select {
	case c.inject <- injected{msg, ack}:
	case <-ctx.Done():
		return
	case <-c.closed:
		return
	case <-c.failed:
		return
	}
	select {
	case <-ack:
	case <-ctx.Done():
	case <-c.closed:
	}
}

// errRejected is go-sdk's JSON-RPC error for a message its transport could
// not send, with its code and words.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

const (
	methodToolsCall   = "tools/call"
	summaryToolsCall  = `sending "tools/call"`
	protocolHeader    = "Mcp-Protocol-Version"
	sessionHeader     = "Mcp-Session-Id"
	standardHeadersAt = "2026-07-28" // the version from which go-sdk sends Mcp-Method and Mcp-Name
	// notifyCancelledTimeout bounds the POST of notifications/cancelled,
	// as go-sdk bounds it.
	notifyCancelledTimeout = 5 * time.Second
)

// callTool POSTs tools/call and reads its answer; a call whose answer's
// stream was cut is POSTed once more, with a new id, when the transport's
// RetryCutStreams says its tool may run again.
func (c *httpConn) callTool(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	res, err := c.callOnce(ctx, params, attempted)
	if err == nil || !errors.Is(err, errTerminated) || ctx.Err() != nil || !c.mayRepeat(params.Name) {
		return res, err
	}
	res, err2 := c.callOnce(ctx, params, attempted)
	if err2 != nil && errors.Is(err2, errTerminated) {
		return nil, fmt.Errorf("%w (re-sent once, as the tool may run again; cut again)", err2)
	}
	return res, err2
}

// mayRepeat reports whether a call of tool whose stream was cut may be
// sent again.
func (c *httpConn) mayRepeat(tool string) bool {
	if c.repeatable == nil {
		return false
	}
	f := c.repeatable.Load()
	return f != nil && (*f)(tool)
}

// callOnce POSTs tools/call, with an id of its own, and reads its answer.
func (c *httpConn) callOnce(ctx context.Context, params *mcp.CallToolParams, attempted func(id jsonrpc.ID)) (*mcp.CallToolResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.ended(); err != nil {
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, methodToolsCall, err)
	}
	env := c.env.Load()
	if env == nil || c.paramHeaders.Load() {
		return nil, ErrCallOnSession
	}
	n := -directIDBase - c.next.Add(1)
	body, err := appendCall(make([]byte, 0, 512), n, params, env)
	if err != nil {
		return nil, err
	}
	// The POST ends with the call's context while the call waits; once
	// answered, the rest of its stream is read off the caller's path, so
	// that its connection is kept alive even when the caller's context
	// ends as soon as the call returns.
	rctx, endPost := context.WithCancel(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(ctx, endPost)
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		unhook()
		endPost()
		return nil, fmt.Errorf("calling %q: %w", methodToolsCall, err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.oauth != nil {
		if !c.authorize(ctx, h) {
			unhook()
			endPost()
			return nil, ErrCallOnSession
		}
	}
	if env.version != "" {
		h.Set(protocolHeader, env.version)
	}
	if sid := c.Connection.SessionID(); sid != "" {
		h.Set(sessionHeader, sid)
	}
	if env.version >= standardHeadersAt {
		h.Set("Mcp-Method", methodToolsCall)
		h.Set("Mcp-Name", params.Name)
	}

	if attempted != nil {
		id, _ := jsonrpc.MakeID(float64(n))
		attempted(id)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		unhook()
		endPost()
		if ctx.Err() != nil {
			return nil, c.cancelled(ctx, n)
		}
		return nil, fmt.Errorf("calling %q: %s: %w: %w", methodToolsCall, summaryToolsCall, errRejected, err)
	}
	answered := false
	defer func() {
		if answered && unhook() && resp.ContentLength != 0 {
			go drain(resp.Body, endPost)
			return
		}
		_ = resp.Body.Close()
		unhook()
		endPost()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Not an answer posts.go made a JSON-RPC error of: the OAuth
		// handler's challenge, or a redirect not followed. The server has
		// not run the call; the session sends it and meets the answer as
		// go-sdk does.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, ErrCallOnSession
	}
	var r *jsonrpc.Response
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		r, err = c.readJSON(ctx, resp, n)
	case "text/event-stream":
		r, err = c.readStream(ctx, resp, n)
	default:
		err = fmt.Errorf("%s: unsupported content type %q", summaryToolsCall, mt)
		c.fail(err)
		return nil, fmt.Errorf("calling %q: %w", methodToolsCall, err)
	}
	if err != nil {
		return nil, err
	}
	answered = mt == "text/event-stream"
	if r.Error != nil {
		return nil, fmt.Errorf("calling %q: %w", methodToolsCall, r.Error)
	}
	return DecodeCallToolResult(r.Result)
}

// drainTimeout bounds the reading of what follows a direct call's answer
// in its stream; a server ends the stream at once.
const drainTimeout = 5 * time.Second

// drain reads what is left of an answered stream, so its connection can
// serve the next POST, then ends the POST.
func drain(body io.ReadCloser, endPost context.CancelFunc) {
	t := time.AfterFunc(drainTimeout, endPost)
	_, _ = io.Copy(io.Discard, io.LimitReader(body, MaxMessageBytes))
	_ = body.Close()
	t.Stop()
	endPost()
}

// authorize puts the OAuth handler's token on h, as go-sdk does; false
// means the token could not be had, which go-sdk reports itself.
func (c *httpConn) authorize(ctx context.Context, h http.Header) bool {
	ts, err := c.oauth.TokenSource(ctx)
	if err != nil {
		return false
	}
	if ts == nil {
		return true
	}
	token, err := ts.Token()
	if err != nil {
		// go-sdk sends an invalid_grant without a token, to be challenged.
		var re *oauth2.RetrieveError
		return errors.As(err, &re) && re.ErrorCode == "invalid_grant"
	}
	if token != nil {
		h.Set("Authorization", "Bearer "+token.AccessToken)
	}
	return true
}

// lineDecoders are the decoders of answers' bodies and events.
var lineDecoders = sync.Pool{New: func() any { return new(lineDecoder) }}

// decodeAnswer decodes one message of a direct call's answer, whose
// memory is its own.
func decodeAnswer(b []byte) (jsonrpc.Message, string) {
	d := lineDecoders.Get().(*lineDecoder)
	msg, why := d.decode(b, true)
	d.src = bytes.Buffer{}
	lineDecoders.Put(d)
	return msg, why
}

// isAnswer reports whether msg is the answer to direct call n.
func isAnswer(msg jsonrpc.Message, n int64) (*jsonrpc.Response, bool) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return nil, false
	}
	id, ok := r.ID.Raw().(int64)
	return r, ok && id == n
}

// readJSON reads a JSON answer. Anything but the call's answer goes to the
// session, and the call waits, as go-sdk's would, until its context ends.
func (c *httpConn) readJSON(ctx context.Context, resp *http.Response, n int64) (*jsonrpc.Response, error) {
	var body []byte
	var err error
	if resp.ContentLength > 0 {
		body = make([]byte, resp.ContentLength)
		_, err = io.ReadFull(resp.Body, body)
	} else {
		body, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.cancelled(ctx, n)
		}
		return nil, c.broken(fmt.Errorf("%s: failed to read body: %v", summaryToolsCall, err))
	}
	msg, why := decodeAnswer(body)
	if msg == nil {
		return nil, c.broken(fmt.Errorf("%s: failed to decode response: %s", summaryToolsCall, why))
	}
	if r, ok := isAnswer(msg, n); ok {
		return r, nil
	}
	c.hand(ctx, msg)
	return nil, c.waitForNothing(ctx, n)
}

// waitForNothing is the end of a call whose answer never comes: its
// context's end, or the connection's.
func (c *httpConn) waitForNothing(ctx context.Context, n int64) error {
	select {
	case <-ctx.Done():
		return c.cancelled(ctx, n)
	case <-c.closed:
	case <-c.failed:
	}
	return fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, methodToolsCall, c.ended())
}

// broken fails the connection with err, as go-sdk's does, and returns the
// call's error.
func (c *httpConn) broken(err error) error {
	c.fail(err)
	return fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, methodToolsCall, err)
}

// readers are the buffered readers of event streams.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// readStream reads an event stream until the call's answer: every other
// message goes to the session as it arrives. A stream that ends first
// fails the call as go-sdk's does; one resumed by go-sdk with
// Last-Event-ID is not resumed here. An event over the size limit fails
// the call alone.
func (c *httpConn) readStream(ctx context.Context, resp *http.Response, n int64) (*jsonrpc.Response, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(resp.Body)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	for {
		data, name, err := nextEvent(br, c.maxEvent)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, c.cancelled(ctx, n)
			case errors.Is(err, errEventTooLarge):
				return nil, fmt.Errorf("calling %q: %w", methodToolsCall, &jsonrpc.Error{
					Code:    jsonrpc.CodeInternalError,
					Message: fmt.Sprintf("%v: SSE event exceeded %d bytes without terminating", ErrMessageTooLarge, c.maxEvent),
				})
			case errors.Is(err, errMalformedEvent):
				return nil, c.broken(fmt.Errorf("%s: %v", summaryToolsCall, err))
			}
			return nil, fmt.Errorf("calling %q: %w", methodToolsCall, errTerminated)
		}
		if len(data) == 0 || name != "" && name != "message" {
			continue
		}
		msg, why := decodeAnswer(data)
		if msg == nil {
			return nil, c.broken(fmt.Errorf("%s: failed to decode event: %s", summaryToolsCall, why))
		}
		if r, ok := isAnswer(msg, n); ok {
			return r, nil
		}
		c.hand(ctx, msg)
	}
}

// errTerminated is go-sdk's error for a stream that ended without the
// call's answer.
var errTerminated = errors.New("request terminated without response")

var (
	errEventTooLarge  = errors.New("SSE event too large")
	errMalformedEvent = errors.New("malformed SSE event")
)

// nextEvent reads the next event that has data or a name, as go-sdk reads
// events: "field: value" lines, data lines joined by newlines, lines
// starting with ':' ignored, an event ended by a blank line or the end of
// the stream; a line without ':' is malformed. An event's lines may take
// at most limit bytes (none when limit <= 0). At the end of the stream
// the error is io.EOF. The data is the event's own memory.
func nextEvent(br *bufio.Reader, limit int) (data []byte, name string, err error) {
	var buf []byte
	hasData, used := false, 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it, within the limit.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if limit > 0 && used+len(long) > limit {
					return nil, "", errEventTooLarge
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		used += len(line)
		if limit > 0 && used > limit {
			return nil, "", errEventTooLarge
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, "", err
		}
		eof := err != nil
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if hasData || name != "" {
				return buf, name, nil
			}
			if eof {
				return nil, "", io.EOF
			}
			used = 0
			continue
		}
		key, value, found := bytes.Cut(line, []byte{':'})
		if !found {
			return nil, "", fmt.Errorf("%w: malformed line in SSE stream: %q", errMalformedEvent, string(line))
		}
		switch string(key) {
		case "event":
			name = string(bytes.TrimSpace(value))
		case "data":
			if hasData {
				buf = append(buf, '\n')
			}
			buf = append(buf, bytes.TrimSpace(value)...)
			hasData = true
		}
		if eof {
			if hasData || name != "" {
				return buf, name, nil
			}
			return nil, "", io.EOF
		}
	}
}

// cancelled ends direct call n whose context ended: its POST is abandoned
// (which ends the request on the server), and notifications/cancelled
// follows, off the caller's path, as go-sdk sends it.
func (c *httpConn) cancelled(ctx context.Context, n int64) error {
	reason := ctx.Err().Error()
	go c.notifyCancelled(context.WithoutCancel(ctx), n, reason)
	return ctx.Err()
}

// notifyCancelled sends notifications/cancelled for direct call n on
// go-sdk's connection, which POSTs it as it POSTs its own.
func (c *httpConn) notifyCancelled(ctx context.Context, n int64, reason string) {
	if c.ended() != nil {
		return
	}
	ctx, stop := context.WithTimeout(ctx, notifyCancelledTimeout)
	defer stop()
	b := appendCancelled(nil, n, reason, c.env.Load())
	msg, why := decodeAnswer(b)
	if msg == nil {
		panic("transport: notifications/cancelled not JSON-RPC: " + why)
	}
	_ = c.Connection.Write(ctx, msg)
}
