package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/messages"
)

// Resources, resource templates and prompts: each request goes through the
// plugin's actors as a tool call does (the supervisor holds it while
// reconnecting, for at most WithReconnectWait; an open breaker fails it at
// once), bounded by ctx's deadline or else WithDefaultCallTimeout, and
// cancelled on the server when ctx ends. Lists are asked of the server on
// each call, a page at a time; WithListChangeHandler hears when they
// change. A facade over a cluster grain (grid.Connect) sends them through
// its link, in their wire forms.

// ErrResultTooLarge: a resource read whose contents (text bytes plus blob
// bytes) are over [WithMaxResultBytes]. Of kind Internal; the contents are
// not returned.
var ErrResultTooLarge = errors.New("result over the cap")

// ListChange names a list of the server's that changed
// ([WithListChangeHandler]).
type ListChange string

// The lists a server may say changed.
const (
	// ResourcesChanged: the server's resources or resource templates
	// (notifications/resources/list_changed).
	ResourcesChanged ListChange = "resources"
	// PromptsChanged: the server's prompts
	// (notifications/prompts/list_changed).
	PromptsChanged ListChange = "prompts"
)

// WithListChangeHandler subscribes to the server's resources/list_changed
// and prompts/list_changed (SEP-2575 subscriptions/listen, for the lists
// the server declares listChanged for) and calls h with the list that
// changed, each time the server says so: a program that shows or caches
// resources or prompts lists them again. The plugin keeps no copy of these
// lists, so nothing else changes; the subscription also clears go-sdk's
// copy of a list the server gave a ttlMs. A reconnection is no notice: the
// status handlers say it ([WithStatusHandler], ready again), and the new
// session's lists may differ. h runs on the goroutine that reads the
// server's notifications: it must return quickly and must not wait for a
// request to the same server (start one on a goroutine of its own). For a
// cluster's grains give it to the kind (grid.WithPluginOptions): the
// member hosting a grain subscribes and calls h there; a facade
// (grid.Connect) fails with [ErrValidation] for it.
func WithListChangeHandler(h func(ListChange)) Option {
	return newOption("WithListChangeHandler", connection, func(o *options) {
		if h == nil {
			o.Supervisor.Connection.OnListChanged = nil
			return
		}
		o.Supervisor.Connection.OnListChanged = func(list string) { h(ListChange(list)) }
	})
}

// ListResources returns one page of the server's resources: cursor is ""
// for the first page, else the NextCursor of the page before; the last
// page has no NextCursor. A server that does not offer resources gives an
// empty list, not an error. Errors are [*Error]s, as [Future.Await]'s.
func (p *McpPlugin) ListResources(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	return askServer[*mcp.ListResourcesResult](ctx, p, &messages.ServerRequest{Method: messages.MethodListResources, Cursor: cursor})
}

// ListResourceTemplates returns one page of the server's resource
// templates (URI templates a read may fill in), paginated as
// [McpPlugin.ListResources] is; empty for a server without resources.
func (p *McpPlugin) ListResourceTemplates(ctx context.Context, cursor string) (*mcp.ListResourceTemplatesResult, error) {
	return askServer[*mcp.ListResourceTemplatesResult](ctx, p, &messages.ServerRequest{Method: messages.MethodListResourceTemplates, Cursor: cursor})
}

// ReadResource reads the resource at uri: its contents, each text or
// blob (Blob holds the decoded bytes). With [WithMaxResultBytes], contents
// over the cap fail with [ErrResultTooLarge] rather than arrive cut. A
// server's refusal (an unknown URI) is a *jsonrpc.Error to errors.As.
func (p *McpPlugin) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	msg := &messages.ServerRequest{Method: messages.MethodReadResource, URI: uri}
	res, err := askServer[*mcp.ReadResourceResult](ctx, p, msg)
	if err != nil || p.maxResultBytes <= 0 {
		return res, err
	}
	n := 0
	for _, c := range res.Contents {
		if c != nil {
			n += len(c.Text) + len(c.Blob)
		}
	}
	if n > p.maxResultBytes {
		return nil, &Error{Kind: KindInternal, Server: p.server, Op: msg.Op(),
			Err: fmt.Errorf("%w: %s of contents, the cap is %s (%s)", ErrResultTooLarge, resourcetools.SizeOf(int64(n)), resourcetools.SizeOf(int64(p.maxResultBytes)), p.maxResultFrom())}
	}
	return res, nil
}

// askServer sends msg to the plugin's actor and waits for its result of
// type T, or an [*Error].
func askServer[T mcp.Result](ctx context.Context, p *McpPlugin, msg *messages.ServerRequest) (T, error) {
	var zero T
	fail := func(kind Kind, err error) (T, error) {
		return zero, &Error{Kind: kind, Server: p.server, Op: msg.Op(), Err: err}
	}
	if p.closed.Load() {
		return fail(KindInternal, errors.New("plugin is closed"))
	}
	msg.ID = p.nextID.Add(1)
	if d, ok := ctx.Deadline(); ok {
		msg.Deadline, msg.Limit = d, "the caller's deadline"
	} else if p.callTimeout > 0 {
		msg.Deadline, msg.Limit = time.Now().Add(p.callTimeout), p.callTimeoutLimit
	}
	var reply any
	switch l := p.conn.(type) {
	case *localLink:
		var err error
		if reply, err = p.askLocal(ctx, l, msg); err != nil {
			return zero, err
		}
	case serverRequester:
		// A facade over an actor elsewhere (grid.Connect): the link asks.
		// The wait ends with ctx, at the request's deadline (a member
		// that died answers nothing), or when the plugin closes.
		wctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		if !msg.Deadline.IsZero() {
			var stopTimer context.CancelFunc
			wctx, stopTimer = context.WithDeadline(wctx, msg.Deadline)
			defer stopTimer()
		}
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-p.done:
				cancel(errPluginClosed)
			case <-stop:
			}
		}()
		r, err := l.ServerRequest(wctx, msg)
		switch {
		case err == nil:
			reply = r
		case ctx.Err() != nil:
			return fail(KindInternal, callerLeft(ctx.Err()))
		case errors.Is(context.Cause(wctx), errPluginClosed):
			return fail(KindInternal, errors.New("plugin closed before the request was answered"))
		case errors.Is(wctx.Err(), context.DeadlineExceeded):
			if _, ok := ctx.Deadline(); ok {
				<-ctx.Done() // the same deadline: one clock, ctx's (see below)
				return fail(KindInternal, callerLeft(ctx.Err()))
			}
			return fail(KindInternal, fmt.Errorf("deadline exceeded: %s passed: %w", msg.Limit, context.DeadlineExceeded))
		default:
			return fail(KindInternal, err)
		}
	default:
		return fail(KindNotSupported, errors.New("this facade's link carries no resource or prompt requests"))
	}
	switch m := reply.(type) {
	case *messages.ServerReply:
		if m.Failure != nil {
			err := p.failure(m.Failure)
			if d, ok := ctx.Deadline(); ok && errors.Is(err, context.DeadlineExceeded) && !time.Now().Before(d) {
				// One deadline, one clock, as for a call: the request ended
				// for ctx's deadline by the connection's timer, which may
				// fire a moment before ctx's own; ctx says so by the time
				// the request returns, with ctx's error.
				<-ctx.Done()
				return fail(KindInternal, callerLeft(ctx.Err()))
			}
			return zero, err
		}
		if res, ok := m.Result.(T); ok && m.Result != nil {
			return res, nil
		}
		return fail(KindInternal, fmt.Errorf("%w: %T", errUnexpectedReply, m.Result))
	case *actor.DeadLetterResponse:
		return fail(KindInternal, errors.New("the connection actor is gone"))
	}
	return fail(KindInternal, fmt.Errorf("%w: %T", errUnexpectedReply, reply))
}

// errPluginClosed ends a request's wait when the plugin closes.
var errPluginClosed = errors.New("plugin closed")

// serverRequester is a link that carries resource and prompt requests to
// an actor elsewhere (internal/core/attach's, for grid.Connect).
type serverRequester interface {
	ServerRequest(ctx context.Context, msg *messages.ServerRequest) (*messages.ServerReply, error)
}

// askLocal sends msg to the actor the plugin spawned (straight to the
// connection while it is ready, as a tool call) and returns its reply; the
// error is the plugin's, when ctx ended or the plugin closed. The cancel
// goes to the top actor, which passes it on to the connection that has
// the request, or drops the request it holds.
func (p *McpPlugin) askLocal(ctx context.Context, l *localLink, msg *messages.ServerRequest) (any, error) {
	fail := func(err error) (any, error) {
		return nil, &Error{Kind: KindInternal, Server: p.server, Op: msg.Op(), Err: err}
	}
	f := &Future{p: p, id: msg.ID, name: msg.Op()}
	p.router.expect(f, nil)
	l.request(msg)
	select {
	case reply := <-f.ch:
		return reply, nil
	case <-ctx.Done():
		l.system.Root.Send(l.pid, &messages.CancelCall{ID: msg.ID})
		p.router.forget(msg.ID)
		return fail(callerLeft(ctx.Err()))
	case <-p.done:
		select {
		case reply := <-f.ch:
			return reply, nil
		default:
			p.router.forget(msg.ID)
			return fail(errors.New("plugin closed before the request was answered"))
		}
	}
}
