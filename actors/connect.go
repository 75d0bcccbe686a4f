package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/cuca-go/mcpconnector/actors/internal/legacy"
	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/extension"
	"github.com/cuca-go/mcpconnector/internal/core/logfield"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/tracelog"
	"github.com/cuca-go/mcpconnector/internal/core/transportext"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// ProtocolVersion is the only MCP revision this package speaks.
const ProtocolVersion = "2026-07-28"

// maxToolPages and maxTools bound tools/list pagination against a server
// that invents a new cursor forever: listing stops with an error, in bounded
// memory, well before the connect timeout.
const (
	maxToolPages = 10000
	maxTools     = 20000
)

// LegacyRevisions returns the older MCP revisions a connection with
// ConnectionConfig.LegacyFallback accepts from a server that refused
// server/discover, newest first (a copy: changing it changes nothing).
func LegacyRevisions() []string { return slices.Clone(legacyRevisions) }

// legacyRevisions are LegacyRevisions'.
var legacyRevisions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// dialectOf is the session dialect of cfg (extension.Dialect): the older
// revisions' with LegacyFallback, none without.
func dialectOf(cfg *ConnectionConfig) extension.Dialect {
	if cfg.LegacyFallback {
		return legacy.Dialect{Accepts: legacyRevisions}
	}
	return nil
}

// errLegacyRefused is what the sending middleware returns for initialize.
var errLegacyRefused = errors.New("legacy initialize refused: this client speaks only MCP " + ProtocolVersion)

// dialed is the outcome of one connection attempt.
type dialed struct {
	session *mcp.ClientSession
	conn    *envelopeConn // what the session runs on
	ready   *messages.Ready
	tail    transportext.StderrTail
	direct  directcall.Caller // the transport's direct tools/call path, if any
	post    directcall.Poster // its calls posted from the mailbox (stdio), if any
	reader  directcall.Reader // its resource reads on the direct path, if any
}

// sessionHooks are what a connection hears from its session besides the
// replies to its calls: progress for its calls, and changes of the
// server's tool list (asked for with ConnectionConfig.ToolRefresh). They
// run on go-sdk's goroutine for the session's notifications, one at a time.
type sessionHooks struct {
	progress     func(*mcp.ProgressNotificationParams)
	toolsChanged func(*mcp.ClientSession)
	// opened, if set, is given the attempt's transport once it is open,
	// so that an attempt past its time can be aborted.
	opened func(mcp.Transport)
	// supervised and failed are the session's, for its extensions
	// (extension.Session).
	supervised bool
	failed     func(error)
}

// dial is one connection attempt, recorded as a connect span (whose
// children are server/discover and tools/list) when telemetry is on.
func dial(ctx context.Context, cfg *ConnectionConfig, hooks sessionHooks, p peer) (*dialed, *messages.Failure) {
	if cfg.Telemetry == nil {
		return dialSession(ctx, cfg, hooks, p)
	}
	ctx, span := cfg.Telemetry.startConnect(ctx, p, cfg.restarts)
	d, f := dialSession(ctx, cfg, hooks, p)
	tools, version := 0, ""
	if d != nil {
		tools, version = len(d.ready.Tools), d.ready.ProtocolVersion
	}
	endConnect(span, tools, version, f)
	return d, f
}

// dialSession opens the transport, connects with server/discover only, and
// lists every tool. On failure it leaves nothing running.
func dialSession(ctx context.Context, cfg *ConnectionConfig, hooks sessionHooks, p peer) (*dialed, *messages.Failure) {
	dialect := dialectOf(cfg)
	if _, sse := cfg.Transport.(transport.SSE); sse && dialect == nil {
		// NotSupported: a final failure, never retried.
		return nil, transportFailure("connect", fmt.Errorf("%w: %s is the HTTP+SSE transport of MCP 2024-11-05; it needs plugin.WithLegacyFallback",
			transport.ErrNotSupported, cfg.Transport), nil)
	}
	tr, err := cfg.Transport.Open(cfg.Logger)
	if err != nil {
		return nil, transportFailure("connect", err, nil)
	}
	tail, _ := tr.(transportext.StderrTail)
	if hooks.opened != nil {
		hooks.opened(tr)
	}

	log := logfield.Server(cfg.Logger, named.LabelOf(cfg.Transport))
	opts, exts, declared := clientOptions(cfg, log, hooks)
	client := mcp.NewClient(cfg.ClientInfo, opts)
	if len(cfg.Roots) > 0 {
		client.AddRoots(cfg.Roots...)
	}
	// go-sdk puts the _meta envelope on requests; envelopeTransport puts it
	// on notifications too, which no sending middleware sees.
	conn := &envelopeConn{log: cfg.Logger}
	var ext *extSession
	if len(exts) > 0 {
		ext = &extSession{conn: conn, cfg: cfg, log: log, supervised: hooks.supervised, failed: hooks.failed}
		if cfg.Telemetry != nil {
			ext.tel = cfg.Telemetry.forExtensions(p)
		}
	}
	var discoverErr error
	client.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "initialize", "notifications/initialized":
				if dialect == nil {
					return nil, errLegacyRefused
				}
				// The dialect's session: its messages carry no
				// 2026-07-28 envelope.
				conn.forget()
				if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
					dialect.Initialize(p, declared)
				}
			}
			res, err := next(ctx, method, req)
			if method == "server/discover" && err != nil {
				discoverErr = err
			}
			return res, err
		}
	})

	if cfg.Telemetry != nil {
		client.AddSendingMiddleware(cfg.Telemetry.middleware(p, cfg.Logger))
	}

	session, err := client.Connect(ctx, envelopeTransport{Transport: tr, traced: cfg.Telemetry != nil, progress: hooks.progress, conn: conn, exts: exts, session: ext}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, connectFailure(ctx, cfg, err, discoverErr, tr, tail)
	}
	d := &dialed{session: session, conn: conn, tail: tail, direct: directcall.CallerOf(tr)}
	fail := func(method string, err error) (*dialed, *messages.Failure) {
		_ = session.Close()
		f := transportFailure("connect", err, tail)
		f.Message = withTail(failed(method, err), tail)
		return nil, causeOf(f, err)
	}
	ir := session.InitializeResult()
	dialected := ir != nil && dialect != nil && slices.Contains(dialect.Revisions(), ir.ProtocolVersion)
	if dialected && !dialect.Direct(cfg.Transport, ir.ProtocolVersion) {
		d.direct = nil // the dialect's calls go through the session
	} else if dialected && d.direct != nil {
		d.direct = sessionCaller{Caller: d.direct, session: session}
	}
	if d.direct != nil {
		d.post, d.reader = directcall.PosterOf(tr), directcall.ReaderOf(tr)
	}
	if ir == nil || (ir.ProtocolVersion != ProtocolVersion && !dialected) {
		got := ""
		if ir != nil {
			got = ir.ProtocolVersion
		}
		_ = session.Close()
		return nil, &messages.Failure{Kind: messages.FailureInternal, Op: "server/discover", Cause: messages.CauseProtocolVersion,
			Message: fmt.Sprintf("server negotiated protocol %q; this client speaks only MCP %s", got, ProtocolVersion)}
	}
	if !dialected && listensFor(opts, ir.Capabilities) {
		// go-sdk sent subscriptions/listen without waiting for the server
		// to take it: a change made before then is announced to no one.
		// Listed once the server has acknowledged it, the tools miss
		// nothing between the list and the announcements that follow.
		// An ack later than listenAckWait has them listed again.
		late := func() {
			if cfg.ToolRefresh && hooks.toolsChanged != nil {
				hooks.toolsChanged(session)
			}
		}
		if acked, ended := conn.ack.wait(ctx, listenAckWait, late); !acked && !ended && ctx.Err() == nil {
			log.Info("mcp subscriptions/listen not acknowledged in time; listing the tools without it",
				zap.Duration("waited", listenAckWait))
		}
	}
	tools, hints, err := listTools(ctx, session, log)
	if err != nil {
		return fail("tools/list", err)
	}
	d.ready = &messages.Ready{Tools: tools, ServerInfo: ir.ServerInfo, ProtocolVersion: ir.ProtocolVersion, ToolsTTL: hints.ttl, ToolsCacheScope: hints.scope,
		Instructions: ir.Instructions}
	return d, nil
}

// listenAckWait bounds the wait for a server's acknowledgment of
// subscriptions/listen before the tools are listed: the protocol's first
// message on the stream, it comes within a round trip from a server that
// keeps to it.
const listenAckWait = time.Second

// listensFor reports whether go-sdk, with opts, sent subscriptions/listen
// to a 2026-07-28 server that declared caps: as it does, when a list_changed
// handler is set for a list the server says it announces changes of.
func listensFor(opts *mcp.ClientOptions, caps *mcp.ServerCapabilities) bool {
	if caps == nil {
		return false
	}
	return opts.ToolListChangedHandler != nil && caps.Tools != nil && caps.Tools.ListChanged ||
		opts.PromptListChangedHandler != nil && caps.Prompts != nil && caps.Prompts.ListChanged ||
		opts.ResourceListChangedHandler != nil && caps.Resources != nil && caps.Resources.ListChanged
}

// sessionCaller is the direct path of a dialect's session: its
// calls' requests name the session (callDirect), whose revision their
// spans record.
type sessionCaller struct {
	directcall.Caller
	session *mcp.ClientSession
}

// clientOptions declares no capability we do not implement and switches off
// go-sdk's automatic multi-round-trip handling, so input_required surfaces.
// The hooks go before handlers of the same notifications in
// cfg.ClientOptions, which still run.
//
// It also returns the extensions of cfg that take part in the session,
// each having declared itself in the options, and the keys they added to
// the capabilities' extensions.
func clientOptions(cfg *ConnectionConfig, log *zap.Logger, hooks sessionHooks) (*mcp.ClientOptions, []extension.Extension, []string) {
	var opts mcp.ClientOptions
	if cfg.ClientOptions != nil {
		opts = *cfg.ClientOptions
	}
	if opts.Capabilities == nil {
		opts.Capabilities = &mcp.ClientCapabilities{}
	}
	if opts.MultiRoundTrip == nil {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	var before map[string]any
	if opts.Capabilities != nil {
		before = opts.Capabilities.Extensions
	}
	exts := declare(cfg, &opts)
	var declared []string
	if opts.Capabilities != nil {
		for k := range opts.Capabilities.Extensions {
			if _, ok := before[k]; !ok {
				declared = append(declared, k)
			}
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(zapslog.NewHandler(log.Core()))
	}
	//lint:ignore SA1019 logging is deprecated as of 2026-07-28 (SEP-2577); older revisions' servers send it
	if opts.LoggingMessageHandler == nil {
		// The server's notifications/message (deprecated by 2026-07-28,
		// sent by older revisions' servers) go to the logger at Debug,
		// whatever their level, which is a field: the server's words are
		// not the host's warnings.
		//lint:ignore SA1019 as above
		opts.LoggingMessageHandler = func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if p := req.Params; p != nil {
				log.Debug("mcp server log", zap.String("level", string(p.Level)),
					zap.String("logger", p.Logger), zap.Any("data", p.Data))
			}
		}
	}
	// Progress for our calls is taken as it is read (envelopeConn.Read);
	// a ProgressNotificationHandler of cfg.ClientOptions still runs.
	if h := hooks.toolsChanged; h != nil && cfg.ToolRefresh {
		// go-sdk opens a subscriptions/listen stream (SEP-2575) for this
		// handler when the server declares tools.listChanged.
		theirs := opts.ToolListChangedHandler
		opts.ToolListChangedHandler = func(ctx context.Context, req *mcp.ToolListChangedRequest) {
			h(req.Session)
			if theirs != nil {
				theirs(ctx, req)
			}
		}
	}
	listChangedHandlers(cfg, &opts)
	return &opts, exts, declared
}

// listHints are a tool list's cache hints (SEP-2549), over all its pages:
// ttl is the smallest positive ttlMs, zero if none has one; scope is
// "private" when any page said so, else "public" when one said so, else "".
type listHints struct {
	ttl   time.Duration
	scope string
}

// note folds one page's hints into h.
func (h *listHints) note(c mcp.Cacheable) {
	if d := time.Duration(c.TTLMs) * time.Millisecond; d > 0 && (h.ttl == 0 || d < h.ttl) {
		h.ttl = d
	}
	switch c.CacheScope {
	case "private":
		h.scope = "private"
	case "public":
		if h.scope == "" {
			h.scope = "public"
		}
	}
}

// listTools follows every nextCursor. A cursor seen twice is an error, not a
// loop; duplicate names keep their first definition.
func listTools(ctx context.Context, s *mcp.ClientSession, logger *zap.Logger) (tools []*mcp.Tool, hints listHints, err error) {
	seenCursor := map[string]bool{}
	seenName := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, listHints{}, fmt.Errorf("more than %d pages", maxToolPages)
		}
		res, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil && page == 0 && noTools(s) && ctx.Err() == nil {
			// A server of resources or prompts only, which declares no
			// tools, may refuse tools/list: it has none.
			return []*mcp.Tool{}, listHints{}, nil
		}
		if err != nil {
			return nil, listHints{}, err
		}
		hints.note(res.Cacheable)
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			if seenName[t.Name] {
				logger.Warn("mcp server listed a tool twice; keeping the first", append(tracelog.Fields(ctx), zap.String("tool", t.Name))...)
				continue
			}
			seenName[t.Name] = true
			tools = append(tools, t)
		}
		if len(tools) > maxTools {
			return nil, listHints{}, fmt.Errorf("more than %d tools; refusing to hold an endless list", maxTools)
		}
		if res.NextCursor == "" {
			return tools, hints, nil
		}
		if seenCursor[res.NextCursor] {
			return nil, listHints{}, fmt.Errorf("server repeated cursor %q: pagination would never end", res.NextCursor)
		}
		seenCursor[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// exitWait bounds the wait for a child's exit status after its output
// ended: a child that closed stdout is usually gone a moment later.
const exitWait = 200 * time.Millisecond

// connectFailure says, in its own words, why Connect failed with err
// (discoverErr: how server/discover failed, if it did): the server does not
// speak 2026-07-28 (the only failure that mentions the version), the
// command could not be started, the child exited before answering (its exit
// status), no answer within the connect timeout, or the transport failed.
func connectFailure(ctx context.Context, cfg *ConnectionConfig, err, discoverErr error, tr mcp.Transport, tail transportext.StderrTail) *messages.Failure {
	if errors.Is(err, errLegacyRefused) {
		// go-sdk falls back to initialize whenever server/discover fails;
		// only the server's own refusal is about the version.
		if discoverErr == nil {
			return versionFailure("its server/discover offers no MCP " + ProtocolVersion)
		}
		if answered, ok := discoverRefusal(discoverErr, endpointOf(cfg)); ok {
			f := versionFailure(answered)
			f.Err = kept(discoverErr)
			return f
		}
		err = discoverErr
	}
	var spawn *transport.SpawnError
	switch {
	case errors.As(err, &spawn):
		return &messages.Failure{Kind: messages.FailureIO, Op: "connect", Cause: messages.CauseNotStarted, Message: err.Error(), Err: kept(err)}
	case errors.Is(err, transport.ErrNotSupported):
		return &messages.Failure{Kind: messages.FailureNotSupported, Op: "connect", Message: err.Error(), Err: kept(err)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return connectTimeout(cfg, tail)
	}
	if ce, ok := tr.(transportext.ChildExit); ok {
		if st := ce.ChildExit(exitWait); st != "" {
			return &messages.Failure{Kind: messages.FailureInternal, Op: "connect", Exit: st,
				Message: withTail("the server exited before answering server/discover ("+st+")", tail), Err: kept(err)}
		}
	}
	f := &messages.Failure{Kind: messages.FailureInternal, Op: "connect",
		Message: withTail(failed("server/discover", err), tail)}
	return causeOf(f, err)
}

// connectTimeout is the failure of a server that did not answer within the
// connect timeout.
func connectTimeout(cfg *ConnectionConfig, tail transportext.StderrTail) *messages.Failure {
	return &messages.Failure{Kind: messages.FailureInternal, Op: "connect", Cause: messages.CauseDeadline,
		Message: withTail(fmt.Sprintf("no answer within the connect timeout of %s", cfg.ConnectTimeout), tail)}
}

// versionFailure is the failure of a server that does not speak MCP
// 2026-07-28; why says how it showed.
func versionFailure(why string) *messages.Failure {
	return &messages.Failure{Kind: messages.FailureInternal, Op: "connect", Cause: messages.CauseProtocolVersion,
		Message: "the server does not speak MCP " + ProtocolVersion + ": " + why +
			"; it may speak only older revisions, and this client speaks only MCP " + ProtocolVersion}
}

// discoverRefusal says what the server answered, when err says that it
// refused server/discover, which is how a server of an older revision
// answers a method it does not know: any JSON-RPC error it sent (gopls
// answers code 0 "invalid during session initialization"), or over HTTP an
// answer of a status in the 4xx range that says "not this request" (400
// "Server not initialized" or "No valid session ID", 404, 405, 406, 415).
// It is no refusal when err is none of these: go-sdk's own codes for a
// broken connection, an oversized message, an HTTP status that asks for
// credentials or patience (401, 403, 407, 408, 429) or says the server
// failed (5xx), or no answer at all.
//
// A 404 names url, the endpoint asked (its query left out): a web server
// that is no MCP server, or an MCP server asked at the wrong path, answers
// so, and the path is what to check.
func discoverRefusal(err error, url string) (answered string, ok bool) {
	var re *jsonrpc.Error
	if !errors.As(err, &re) {
		return "", false
	}
	switch {
	case re.Code == codeClientClosing || re.Code == codeServerClosing || re.Code == codeRejectedByTransport:
		return "", false
	case tooLargeStandIn(re.Message), tooDeepStandIn(re.Message):
		return "", false
	}
	if status := transportext.HTTPStatusOf(re); status != 0 {
		switch {
		case status >= 500, status == 401, status == 403, status == 407, status == 408, status == 429:
			return "", false
		}
		said := shortQuote(strings.TrimPrefix(re.Message, "transport: "))
		if status == 404 && url != "" {
			return "it answered the server/discover POST to " + url + " with " + said +
				": no MCP endpoint is at that URL; check its path (often /mcp)", true
		}
		return "it answered the server/discover POST with " + said, true
	}
	return fmt.Sprintf("it answered server/discover with error %d %s", re.Code, shortQuote(re.Message)), true
}

// endpointOf is the URL of cfg's HTTP server, its query left out (it may
// hold credentials); "" for a server that is no HTTP endpoint.
func endpointOf(cfg *ConnectionConfig) string {
	switch t := cfg.Transport.(type) {
	case transport.StreamableHTTP:
		return transportext.RedactURL(t.URL)
	case *transport.StreamableHTTP:
		return transportext.RedactURL(t.URL)
	}
	return ""
}

// maxQuote bounds what a message quotes of a server's answer.
const maxQuote = 160

// shortQuote is s quoted on one line, cut at maxQuote bytes.
func shortQuote(s string) string {
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)), " ")
	if len(s) > maxQuote {
		s = strings.ToValidUTF8(s[:maxQuote], "") + "…"
	}
	return strconv.Quote(s)
}

// transportFailure classifies err: a child that could not be spawned is IO
// (CauseNotStarted), one that cannot be used (transport.ErrNotSupported:
// SSE without the bridge) is NotSupported, everything else Internal.
// The child's stderr tail, when there is one, says why.
func transportFailure(op string, err error, tail transportext.StderrTail) *messages.Failure {
	kind, cause := messages.FailureInternal, messages.CauseNone
	var spawn *transport.SpawnError
	switch {
	case errors.As(err, &spawn):
		kind, cause = messages.FailureIO, messages.CauseNotStarted
	case errors.Is(err, transport.ErrNotSupported):
		kind = messages.FailureNotSupported
	}
	return &messages.Failure{Kind: kind, Op: op, Message: withTail(err.Error(), tail), Cause: cause, Err: kept(err)}
}

// An error carries the first line of the server's stderr that reads as an
// error (transportext.ReadsAsError), when it is not among the last lines, and
// the last tailLines lines, at most tailBytes in all: the whole tail goes
// to the logger at debug level instead (McpConnection.logTail).
const (
	tailLines = 3
	tailBytes = 512
)

func withTail(msg string, tail transportext.StderrTail) string {
	if tail == nil {
		return msg
	}
	if t := shortTail(tail.StderrTail()); t != "" {
		return msg + " (server stderr: " + t + ")"
	}
	return msg
}

// escapeSequence matches ANSI escape sequences: CSI (colours, cursor
// moves), OSC (titles, links) and two-byte escapes.
var escapeSequence = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-_])`)

// shortTail is the stderr lines an error quotes, without control
// sequences, joined with " | ": the first that reads as an error, when it
// is not among the last tailLines non-blank lines (cut to half of
// tailBytes), then those, cut from the front to what is left of tailBytes.
// "…" stands for what is left out.
func shortTail(lines []string) string {
	var clean []string
	for _, l := range lines {
		if c := cleanLine(l); c != "" {
			clean = append(clean, c)
		}
	}
	n := max(0, len(clean)-tailLines)
	last := strings.Join(clean[n:], " | ")
	first := slices.IndexFunc(clean[:n], transportext.ReadsAsError)
	if first < 0 {
		return cutFront(last, tailBytes)
	}
	head, sep := cutBack(clean[first], tailBytes/2), " | … | "
	if first == n-1 {
		sep = " | "
	}
	return head + sep + cutFront(last, tailBytes-len(head)-len(sep))
}

// cleanLine is l without escape sequences and control characters, trimmed.
func cleanLine(l string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control) {
			return ' '
		}
		return r
	}, escapeSequence.ReplaceAllString(l, "")))
}

// cutFront is s cut from the front to at most n bytes, "…" first.
func cutFront(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + strings.ToValidUTF8(s[len(s)-n+len("…"):], "")
}

// cutBack is s cut from the back to at most n bytes, "…" last.
func cutBack(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n-len("…")], "") + "…"
}
