package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Resources, resource templates and prompts ([messages.ServerRequest]):
// the connection runs each request on a goroutine other than its
// mailbox's (one that served a request before, if one waits for the next),
// and that goroutine answers the caller. A plugin sends a request
// straight to its connection while it is ready, as it sends a tool call,
// and to the supervisor otherwise, which holds requests while
// reconnecting, as it holds tool calls, for at most its ReconnectWait; a
// cancel goes to the supervisor, which passes it on. A request's deadline
// is an entry in the connection's deadlines, on the calls' one timer. These requests only read, so one the session ended under
// goes back to the supervisor to run on the next session.

// requestTable is the cancel functions of a connection's requests in
// flight, by ID; the requests' goroutines remove their own entries.
type requestTable struct {
	mu sync.Mutex
	m  map[uint64]context.CancelCauseFunc
}

// requestJob is one request for a worker, as serveRequest runs it.
type requestJob struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *deadline // on the connection's deadlines, or nil
	s      *mcp.ClientSession
	rd     directcall.Reader // the direct path of a read, or nil
	tail   transportext.StderrTail
	sender *actor.PID
	msg    *messages.ServerRequest
}

// requestWorkerIdle is how long a goroutine that served a call or a
// request waits for the next before it ends (or until the session ends,
// whichever comes first). A new goroutine's stack grows, by copies,
// to the depth of go-sdk's HTTP call and decoding on every request: about
// as much time as the plugin's actor hops together. A worker's stack has
// grown already. Short enough that nothing idles long past a Close.
const requestWorkerIdle = 50 * time.Millisecond

// pool hands jobs to workers that served one before and wait for the
// next: the connection's call and request workers. Only the connection's
// mailbox uses it; serve is set once, when the connection is made.
type pool[J any] struct {
	jobs  chan J // made on first use; closed by stop
	serve func(J)
}

// hand gives job to a worker waiting for one, or to a new worker.
func (p *pool[J]) hand(job J) {
	if p.jobs == nil {
		p.jobs = make(chan J)
	}
	select {
	case p.jobs <- job:
	default:
		go work(p.jobs, job, p.serve)
	}
}

// stop ends the idle workers at once, when the session ends, so that none
// outlives the connection by its idle wait.
func (p *pool[J]) stop() {
	if p.jobs != nil {
		close(p.jobs)
		p.jobs = nil
	}
}

// work serves job, and then each job that arrives on jobs while it waits,
// until none comes for requestWorkerIdle or jobs is closed (the session
// ended): the loop of the connection's call and request workers.
func work[J any](jobs <-chan J, job J, serve func(J)) {
	var idle *time.Timer
	for {
		serve(job)
		var zero J
		job = zero // the finished job is not kept while the worker waits
		if idle == nil {
			idle = time.NewTimer(requestWorkerIdle)
		} else {
			idle.Reset(requestWorkerIdle)
		}
		var ok bool
		select {
		case job, ok = <-jobs:
			if !ok {
				return
			}
		case <-idle.C:
			return
		}
	}
}

func (t *requestTable) add(id uint64, cancel context.CancelCauseFunc) {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[uint64]context.CancelCauseFunc{}
	}
	t.m[id] = cancel
	t.mu.Unlock()
}

func (t *requestTable) remove(id uint64) {
	t.mu.Lock()
	delete(t.m, id)
	t.mu.Unlock()
}

// cancel cancels request id, if it is in flight, and reports whether it was.
func (t *requestTable) cancel(id uint64) bool {
	t.mu.Lock()
	cancel, ok := t.m[id]
	delete(t.m, id)
	t.mu.Unlock()
	if ok {
		cancel(errCallerGaveUp)
	}
	return ok
}

// requestFailure is the reply failing msg with f, named for the request.
func requestFailure(msg *messages.ServerRequest, f *messages.Failure) *messages.ServerReply {
	f.Op = msg.Op()
	return &messages.ServerReply{ID: msg.ID, Failure: f}
}

// requestLimit names the limit that set msg's deadline.
func requestLimit(msg *messages.ServerRequest) string {
	if msg.Limit != "" {
		return msg.Limit
	}
	return "the request's deadline"
}

func (c *mcpConnection) onServerRequest(sender *actor.PID, msg *messages.ServerRequest) {
	if !msg.Deadline.IsZero() && !time.Now().Before(msg.Deadline) {
		c.reply(sender, requestFailure(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: "deadline exceeded before the request was sent: " + requestLimit(msg) + " passed"}))
		return
	}
	switch c.state {
	case connecting, ended:
		if c.supervised() {
			// A request that reached this connection before (or after) its
			// session: the supervisor holds it for the next one.
			c.system.Root.RequestWithCustomSender(c.parent, msg, sender)
			return
		}
		f := &messages.Failure{Kind: messages.FailureInternal, Message: "not connected yet"}
		if c.failure != nil {
			g := *c.failure
			f = &g
		}
		c.reply(sender, requestFailure(msg, f))
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	var timer *deadline
	if !msg.Deadline.IsZero() {
		// On the one timer of the connection's calls (deadlines.go).
		timer = &deadline{}
		c.deadlines.add(timer, msg.Deadline, cancel)
	}
	c.requests.add(msg.ID, cancel)
	c.wg.Add(1) // done by serveRequest
	var rd directcall.Reader
	if msg.Method == messages.MethodReadResource {
		rd = c.directReader()
	}
	c.requestWorkers.hand(requestJob{ctx: ctx, cancel: cancel, timer: timer, s: c.session, rd: rd, tail: c.tail, sender: sender, msg: msg})
}

// directReader is the direct read path of the connection's session
// (directcall.ReaderOf), or nil when reads go through the session: the
// transport has no direct path (turned off, SSE, a dialect without one),
// go-sdk is to drive input_required (the MRTR opt-in), or the connection
// records telemetry, whose spans go-sdk's sending middleware makes.
// Read on the mailbox, and asked of the transport once per session.
func (c *mcpConnection) directReader() directcall.Reader {
	if c.cfg.Telemetry != nil || !c.callsDirect(c.direct) {
		return nil
	}
	return c.reader
}

// streamDrainWait bounds how long a request's context outlives its
// answer: the time go-sdk has to read the rest of the answer's event
// stream (a server ends it at once), so that the HTTP connection stays
// alive for the next request. Past it the context ends, and with it a
// stream a server keeps open.
const streamDrainWait = 5 * time.Second

// serveRequest runs job on a worker: it sends the request on the job's
// session and answers the caller, or hands the request back to the
// supervisor when the session ended under it.
func (c *mcpConnection) serveRequest(job requestJob) {
	ctx, cancel, timer, s, tail, sender, msg := job.ctx, job.cancel, job.timer, job.s, job.tail, job.sender, job.msg
	defer c.wg.Done()
	answered := false
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if answered {
			// go-sdk reads the rest of the answer's event stream after
			// handing the answer over: ending ctx now would close the
			// body unread, and with it the keep-alive connection.
			time.AfterFunc(streamDrainWait, func() { cancel(nil) })
			return
		}
		cancel(nil)
	}()
	var reply *messages.ServerReply
	func() {
		defer func() {
			if r := recover(); r != nil {
				reply = requestFailure(msg, &messages.Failure{Kind: messages.FailureInternal, Message: fmt.Sprintf("panic: %v", r)})
			}
		}()
		res, err := sendRequest(ctx, s, job.rd, msg)
		if err == nil {
			answered = true
			reply = &messages.ServerReply{ID: msg.ID, Result: res}
			return
		}
		reply = c.requestFailed(ctx, s, tail, sender, msg, err)
	}()
	c.requests.remove(msg.ID)
	if reply != nil && !errors.Is(context.Cause(ctx), errCallerGaveUp) {
		c.cfg.deliver(c.system, sender, reply)
	}
}

// requestFailed is the answer to a request that failed with err, or nil
// when it is handed back to the supervisor for the next session.
func (c *mcpConnection) requestFailed(ctx context.Context, s *mcp.ClientSession, tail transportext.StderrTail,
	sender *actor.PID, msg *messages.ServerRequest, err error) *messages.ServerReply {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errCallerGaveUp):
		return nil
	case errors.Is(cause, context.DeadlineExceeded):
		return requestFailure(msg, &messages.Failure{Kind: messages.FailureInternal, Cause: messages.CauseDeadline,
			Message: "deadline exceeded: " + requestLimit(msg) + " passed"})
	case brokenTransport(err) || errors.Is(err, transport.ErrNotSent):
		c.system.Root.Send(c.self, &sessionEnded{err: err})
		if c.supervised() {
			c.system.Root.RequestWithCustomSender(c.parent, msg, sender)
			return nil
		}
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal,
			Message: withTail("connection lost: "+unwrapped(msg.Method, err.Error()), tail)}, err)
		if f.Cause == messages.CauseNone {
			f.Cause = messages.CauseConnectionLost
		}
		return requestFailure(msg, f)
	}
	text, ok := serverAnswered("", err)
	if !ok {
		text = unwrapped(msg.Method, err.Error())
	}
	return requestFailure(msg, causeOf(&messages.Failure{Kind: messages.FailureInternal, Message: text}, err))
}

// sendRequest runs msg's method on s, a read on rd when there is one (and
// it does not leave the read to the session). A list of what the server
// does not declare (no resources or prompts capability), or answers with
// "method not found", is an empty list.
func sendRequest(ctx context.Context, s *mcp.ClientSession, rd directcall.Reader, msg *messages.ServerRequest) (mcp.Result, error) {
	var caps *mcp.ServerCapabilities
	if r := s.InitializeResult(); r != nil {
		caps = r.Capabilities
	}
	noResources := caps == nil || caps.Resources == nil
	noPrompts := caps == nil || caps.Prompts == nil
	switch msg.Method {
	case messages.MethodListResources:
		if noResources {
			return &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}, nil
		}
		res, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: msg.Cursor})
		if notFound(err) || (err == nil && res.Resources == nil) {
			return &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}, nil
		}
		return res, err
	case messages.MethodListResourceTemplates:
		if noResources {
			return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}, nil
		}
		res, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: msg.Cursor})
		if notFound(err) || (err == nil && res.ResourceTemplates == nil) {
			return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}, nil
		}
		return res, err
	case messages.MethodListPrompts:
		if noPrompts {
			return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}, nil
		}
		res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: msg.Cursor})
		if notFound(err) || (err == nil && res.Prompts == nil) {
			return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}, nil
		}
		return res, err
	case messages.MethodReadResource:
		params := &mcp.ReadResourceParams{URI: msg.URI}
		if rd != nil {
			res, err := rd.ReadResource(ctx, params)
			switch {
			case err == nil:
				return res, nil
			case !errors.Is(err, directcall.ErrCallOnSession):
				return nil, err
			}
		}
		return s.ReadResource(ctx, params)
	case messages.MethodGetPrompt:
		return s.GetPrompt(ctx, &mcp.GetPromptParams{Name: msg.Name, Arguments: msg.Arguments})
	}
	return nil, fmt.Errorf("unknown method %q", msg.Method)
}

// notFound reports whether err is the server's "method not found".
func notFound(err error) bool {
	var re *jsonrpc.Error
	return errors.As(err, &re) && re.Code == jsonrpc.CodeMethodNotFound
}

// The supervisor's side.

// waitingRequest is a request held while the connection reconnects.
type waitingRequest struct {
	seq    uint64
	sender *actor.PID
	msg    *messages.ServerRequest
	timer  *time.Timer
}

// requestWaitExpired: request seq waited its ReconnectWait (or deadline).
type requestWaitExpired struct{ seq uint64 }

func (*requestWaitExpired) IgnoreDeadLetterLogging() {}

func (s *mcpSupervisor) onServerRequest(ctx actor.Context, msg *messages.ServerRequest) {
	if s.retrying() {
		f := *s.status.LastFailure
		f.Message = "the server has not come up: " + f.Message
		s.reply(ctx.Sender(), requestFailure(msg, &f))
		return
	}
	switch s.status.State {
	case Ready:
		ctx.Forward(s.child)
	case Connecting, Reconnecting:
		w := &waitingRequest{sender: ctx.Sender(), msg: msg}
		w.seq, w.timer = s.hold(msg.Deadline, func(seq uint64) any { return &requestWaitExpired{seq: seq} })
		s.requests = append(s.requests, w)
	default:
		f := *s.final()
		s.reply(ctx.Sender(), requestFailure(msg, &f))
	}
}

func (s *mcpSupervisor) onRequestWaitExpired(seq uint64) {
	i := slices.IndexFunc(s.requests, func(w *waitingRequest) bool { return w.seq == seq })
	if i < 0 {
		return
	}
	w := s.requests[i]
	s.requests = slices.Delete(s.requests, i, i+1)
	s.reply(w.sender, requestFailure(w.msg, s.holdExpired(requestLimit(w.msg))))
}

// dropRequest forgets the held request id of sender's (of any caller for
// a cancel without a sender, as the plugin sends it), and reports whether
// there was one.
func (s *mcpSupervisor) dropRequest(sender *actor.PID, id uint64) bool {
	i := slices.IndexFunc(s.requests, func(w *waitingRequest) bool { return w.msg.ID == id && cancels(sender, w.sender) })
	if i < 0 {
		return false
	}
	s.requests[i].timer.Stop()
	s.requests = slices.Delete(s.requests, i, i+1)
	return true
}

// sendRequests hands the held requests to the ready child, in order.
func (s *mcpSupervisor) sendRequests() {
	held := s.requests
	s.requests = nil
	for _, w := range held {
		w.timer.Stop()
		s.system.Root.RequestWithCustomSender(s.child, w.msg, w.sender)
	}
}

// failRequests answers every held request with f.
func (s *mcpSupervisor) failRequests(f *messages.Failure) {
	for _, w := range s.requests {
		w.timer.Stop()
		g := *f
		s.reply(w.sender, requestFailure(w.msg, &g))
	}
	s.requests = nil
}

// noTools reports whether s's server declares no tools capability.
func noTools(s *mcp.ClientSession) bool {
	r := s.InitializeResult()
	return r == nil || r.Capabilities == nil || r.Capabilities.Tools == nil
}
