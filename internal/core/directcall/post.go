package directcall

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/oauth2"
)

// errRejected is go-sdk's JSON-RPC error for a message its transport could
// not send, with its code and words.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

// errTerminated is go-sdk's error for a stream that ended without the
// call's answer.
var errTerminated = errors.New("request terminated without response")

const (
	summaryToolsCall  = `sending "tools/call"`
	protocolHeader    = "Mcp-Protocol-Version"
	sessionHeader     = "Mcp-Session-Id"
	standardHeadersAt = "2026-07-28" // the version from which go-sdk sends Mcp-Method and Mcp-Name
	// notifyCancelledTimeout bounds the POST of notifications/cancelled,
	// as go-sdk bounds it.
	notifyCancelledTimeout = 5 * time.Second
	// drainTimeout bounds the reading of what follows a direct call's
	// answer in its stream; a server ends the stream at once.
	drainTimeout = 5 * time.Second
	// maxDrain bounds what is read of it.
	maxDrain = 4 << 20
	// maxDiscard bounds what is read of an answer that is not one (an
	// HTTP error, a challenge) before it is discarded.
	maxDiscard = 64 << 10
)

// summary is go-sdk's words for the POST of a request of method.
func summary(method string) string {
	if method == methodToolsCall {
		return summaryToolsCall
	}
	return "sending " + strconv.Quote(method)
}

// roundTrip POSTs direct request n and reads its answer.
//
// The POST runs under ctx itself, the call's one cancel context: ending
// it while the call waits ends the POST, as go-sdk's does. An answer in a
// JSON body is read whole before roundTrip returns, so the connection
// goes back to the pool however soon ctx ends after. The rest of an
// answered event stream is read off the caller's path (drain) while ctx
// lasts: a caller that ends ctx as soon as the call returns cuts it, and
// with it that keep-alive connection (the connection actor's calls keep
// their context past a success; its requests, streamDrainWait longer).
func (c *HTTP) roundTrip(ctx context.Context, n int64, rq request, env *envelope, attempted func(id jsonrpc.ID)) (*jsonrpc.Response, error) {
	method := rq.method
	body, err := rq.appendTo(make([]byte, 0, 512), n, env)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	if !c.setHeaders(ctx, req.Header, method, rq.name(), env) {
		return nil, ErrCallOnSession
	}
	markAttempted(attempted, n)
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errCancelled
		}
		return nil, fmt.Errorf("calling %q: %s: %w: %w", method, summary(method), errRejected, err)
	}
	r, stream, err := c.answer(ctx, resp, n, method)
	if stream && err == nil && resp.ContentLength != 0 && ctx.Err() == nil {
		c.background(func(halted context.Context) { c.drain(halted, resp.Body) })
		return r, nil
	}
	_ = resp.Body.Close()
	return r, err
}

// Header values the POSTs share: a header map is made for each request
// (net/http's), its values are not. Every layer of transport that changes
// a request's headers clones it first, and Header.Add copies a value
// slice of cap 1, so none is written to.
var (
	headerJSON   = []string{"application/json"}
	headerAccept = []string{"application/json, text/event-stream"}
	headerCall   = []string{methodToolsCall}
	headerRead   = []string{methodReadResource}
)

// methodHeader is the Mcp-Method header of a request of method.
func methodHeader(method string) []string {
	switch method {
	case methodToolsCall:
		return headerCall
	case methodReadResource:
		return headerRead
	}
	return []string{method}
}

// setHeaders puts on h the headers go-sdk's streamable client puts on the
// POST of a request of method naming name (a tool, a resource's URI):
// false means the OAuth token could not be had, which go-sdk reports
// itself. The keys are in canonical form, as Header.Set would put them.
func (c *HTTP) setHeaders(ctx context.Context, h http.Header, method, name string, env *envelope) bool {
	h["Content-Type"] = headerJSON
	h["Accept"] = headerAccept
	if c.oauth != nil && !c.authorize(ctx, h) {
		return false
	}
	if env.version != "" {
		h[protocolHeader] = env.versionHeader
	}
	if sid := c.Connection.SessionID(); sid != "" {
		h[sessionHeader] = c.sessionHeader(sid)
	}
	if env.version >= standardHeadersAt {
		h["Mcp-Method"] = methodHeader(method)
		h["Mcp-Name"] = []string{name}
	}
	return true
}

// sessionHeader is the Mcp-Session-Id header of sid, made once per
// session id.
func (c *HTTP) sessionHeader(sid string) []string {
	if v := c.sid.Load(); v != nil && (*v)[0] == sid {
		return *v
	}
	v := []string{sid}
	c.sid.Store(&v)
	return v
}

// answer reads the answer of request n, of method, from resp; stream says
// it came in an event stream.
func (c *HTTP) answer(ctx context.Context, resp *http.Response, n int64, method string) (r *jsonrpc.Response, stream bool, err error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Not an answer transport made a JSON-RPC error of: the OAuth
		// handler's challenge, or a redirect not followed. The server has
		// not run the call; the session sends it and meets the answer as
		// go-sdk does.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDiscard))
		return nil, false, ErrCallOnSession
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		r, err = c.readJSON(ctx, resp, n, method)
	case "text/event-stream":
		r, err = c.readStream(ctx, resp, n, method)
		stream = true
	default:
		err = fmt.Errorf("%s: unsupported content type %q", summary(method), mt)
		c.end(err)
		err = fmt.Errorf("calling %q: %w", method, err)
	}
	return r, stream, err
}

// drain reads what is left of an answered stream, so its connection can
// serve the next POST, then closes it. The end of the POST's context, of
// the connection (halted) or of drainTimeout cuts it short.
func (c *HTTP) drain(halted context.Context, body io.ReadCloser) {
	var once sync.Once
	cut := func() { once.Do(func() { _ = body.Close() }) }
	t := time.AfterFunc(drainTimeout, cut)
	stop := context.AfterFunc(halted, cut)
	limit := int64(c.maxEvent)
	if limit <= 0 {
		limit = maxDrain
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, limit))
	t.Stop()
	stop()
	cut()
}

// mediaType is the media type of a Content-Type header value, lower-cased,
// without parameters: mime.ParseMediaType's, for the two types an answer
// comes in, without its map of parameters.
func mediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	switch {
	case strings.EqualFold(v, "application/json"):
		return "application/json"
	case strings.EqualFold(v, "text/event-stream"):
		return "text/event-stream"
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}

// authorize puts the OAuth handler's token on h, as go-sdk does; false
// means the token could not be had, which go-sdk reports itself.
func (c *HTTP) authorize(ctx context.Context, h http.Header) bool {
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

// answerDecoders are the decoders of answers' bodies and events.
var answerDecoders = sync.Pool{New: func() any { return new(Decoder) }}

// decodeAnswer decodes one message of a direct call's answer, whose
// memory is its own; when it is none, why says so in go-sdk's words.
func decodeAnswer(b []byte) (msg jsonrpc.Message, why string) {
	d := answerDecoders.Get().(*Decoder)
	msg, why = d.Decode(b, true)
	d.src = bytes.Buffer{}
	answerDecoders.Put(d)
	if msg != nil && tooDeep(b) {
		msg = nil // go-sdk refuses it, below
	}
	if msg == nil {
		if _, err := jsonrpc.DecodeMessage(b); err != nil {
			why = err.Error()
		}
	}
	return msg, why
}

// maxDepth is the nesting of a message beyond which go-sdk's decoding
// refuses it.
const maxDepth = 1000

// tooDeep reports whether b nests deeper than maxDepth, counted as go-sdk
// counts before it decodes a message.
func tooDeep(b []byte) bool {
	if bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) <= maxDepth {
		return false // too few openings, however nested (a fast count)
	}
	return NestedDeeperThan(b, maxDepth)
}

// NestedDeeperThan reports whether the JSON text b nests objects and
// arrays deeper than max, brackets within strings not counted. The stdio
// connection checks a line go-sdk cannot decode with it.
func NestedDeeperThan(b []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
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
func (c *HTTP) readJSON(ctx context.Context, resp *http.Response, n int64, method string) (*jsonrpc.Response, error) {
	var body []byte
	var err error
	switch {
	case c.maxBody > 0 && resp.ContentLength > c.maxBody:
		return nil, c.refused(method, resp.StatusCode)
	case resp.ContentLength > 0:
		body = make([]byte, resp.ContentLength)
		_, err = io.ReadFull(resp.Body, body)
	case c.maxBody > 0:
		body, err = io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
		if err == nil && int64(len(body)) > c.maxBody {
			return nil, c.refused(method, resp.StatusCode)
		}
	default:
		body, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, errCancelled
		}
		return nil, c.broken(method, fmt.Errorf("%s: failed to read body: %v", summary(method), err))
	}
	msg, why := decodeAnswer(body)
	if msg == nil {
		return nil, c.broken(method, fmt.Errorf("%s: failed to decode response: %s", summary(method), why))
	}
	if r, ok := isAnswer(msg, n); ok {
		return r, nil
	}
	c.hand(ctx, msg)
	select { // an answer that never comes: the context's end, or the connection's
	case <-ctx.Done():
		return nil, errCancelled
	case <-c.doneChan():
		return nil, closedError(method, c.ended())
	}
}

// refused is the error of a request of method whose JSON answer, of HTTP
// status, is over maxBody: a JSON-RPC error naming the limit, which fails
// the call alone, worded as the transport's bounding layer words it
// (RefusedMessage).
func (c *HTTP) refused(method string, status int) error {
	return fmt.Errorf("calling %q: %w", method, &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: RefusedMessage(c.tooLarge, status),
	})
}

// RefusedMessage is the message of the JSON-RPC error that answers a
// request whose HTTP answer, of status, was refused as over the limit
// tooLarge names: the direct path's and the transport's bounding layer's.
func RefusedMessage(tooLarge error, status int) string {
	return fmt.Sprintf("%v: HTTP %d response refused", tooLarge, status)
}

// broken fails the connection with err, as go-sdk's does when an answer
// cannot be read (the session's Read fails with it), and returns the
// error of the request of method, go-sdk's.
func (c *HTTP) broken(method string, err error) error {
	c.end(err)
	return fmt.Errorf("calling %q: %w", method, err)
}

// readers are the buffered readers of event streams.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// pooledReader is a reader of the pool over r, and the func that gives it
// back.
func pooledReader(r io.Reader) (*bufio.Reader, func()) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return br, func() {
		br.Reset(nil)
		readers.Put(br)
	}
}

// readStream reads an event stream until the call's answer: every other
// message goes to the session as it arrives. A stream that ends first
// fails the call as go-sdk's does; one resumed by go-sdk with
// Last-Event-ID is not resumed here. An event over the size limit fails
// the call alone.
func (c *HTTP) readStream(ctx context.Context, resp *http.Response, n int64, method string) (*jsonrpc.Response, error) {
	br, release := pooledReader(resp.Body)
	defer release()
	for {
		data, name, err := nextEvent(br, c.maxEvent)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, errCancelled
			case errors.Is(err, errEventTooLarge):
				return nil, fmt.Errorf("calling %q: %w", method, &jsonrpc.Error{
					Code:    jsonrpc.CodeInternalError,
					Message: fmt.Sprintf("%v: SSE event exceeded %d bytes without terminating", c.tooLarge, c.maxEvent),
				})
			case errors.Is(err, errMalformedEvent):
				return nil, c.broken(method, fmt.Errorf("%s: %v", summary(method), err))
			}
			return nil, fmt.Errorf("calling %q: %w", method, errTerminated)
		}
		if len(data) == 0 || name != "" && name != "message" {
			continue
		}
		msg, why := decodeAnswer(data)
		if msg == nil {
			return nil, c.broken(method, fmt.Errorf("%s: failed to decode event: %s", summary(method), why))
		}
		if r, ok := isAnswer(msg, n); ok {
			return r, nil
		}
		c.hand(ctx, msg)
	}
}

// notify sends notifications/cancelled for call n on go-sdk's connection,
// which POSTs it as it POSTs its own.
func (c *HTTP) notify(ctx context.Context, n int64, reason string, env *envelope) {
	if c.ended() != nil {
		return
	}
	ctx, stop := context.WithTimeout(ctx, notifyCancelledTimeout)
	defer stop()
	msg, why := decodeAnswer(appendCancelled(nil, n, reason, env))
	if msg == nil {
		panic("directcall: notifications/cancelled not JSON-RPC: " + why)
	}
	_ = c.Connection.Write(ctx, msg)
}
