package plugin

import (
	"time"
)

// supervision holds the options of reconnection; see [WithoutSupervision].
type supervision struct {
	unsupervised   bool
	onStatus       []func(Status)
	callTimeout    time.Duration
	callTimeoutSet bool
	toolTimeout    time.Duration
}

// defaultCallTimeout bounds a tool call whose ctx has no deadline.
const defaultCallTimeout = 5 * time.Minute

// WithDefaultCallTimeout sets the default bound of a tool call: it applies
// to every call whose ctx has no deadline of its own (default 5
// minutes), so that a server that never answers cannot hold a
// stream forever; a ctx with a deadline replaces it. Past it the call is
// cancelled on the server and fails with [ErrInternal], matching
// context.DeadlineExceeded and naming the limit. Zero or negative means no
// default bound: such a call waits for its ctx.
func WithDefaultCallTimeout(d time.Duration) Option {
	return newOption("WithDefaultCallTimeout", call, func(o *options) {
		o.callTimeout = d
		o.callTimeoutSet = true
	})
}

// WithCallTimeoutCap caps every tool call at d, whatever its ctx's
// deadline: the earlier of the two ends the call (cancelled on the server,
// [ErrInternal], matching context.DeadlineExceeded and naming the limit).
// It is the per-server "timeout" of an mcp.json. Zero or negative means no
// cap.
func WithCallTimeoutCap(d time.Duration) Option {
	return newOption("WithCallTimeoutCap", call, func(o *options) {
		o.toolTimeout = d
	})
}

// WithoutSupervision turns reconnection off: when the session ends, every
// later call fails with [ErrInternal] naming the cause: a failed call
// becomes the result's text, and nothing reconnects.
func WithoutSupervision() Option {
	return newOption("WithoutSupervision", local, func(o *options) {
		o.unsupervised = true
	})
}

// WithBackoff sets the wait before the first restart (default 100ms) and the
// cap it doubles up to (default 2s). Each wait of the schedule is
// stretched by a random part of up to a quarter of itself (jitter).
func WithBackoff(initial, max time.Duration) Option {
	return newOption("WithBackoff", connection, func(o *options) {
		o.Supervisor.InitialBackoff, o.Supervisor.MaxBackoff = initial, max
	})
}

// WithRestartBudget lets the connection restart at most n times within
// window (defaults: 9 in one minute), whether the server was up or never
// came up; past that the breaker opens: the plugin is failed, every call
// fails at once with [ErrCircuitOpen] and the last cause, and after the
// cool-down of [WithBreakerCoolDown] one reconnection is tried. A negative
// n never opens the breaker.
func WithRestartBudget(n int, window time.Duration) Option {
	return newOption("WithRestartBudget", connection, func(o *options) {
		o.Supervisor.MaxRestarts, o.Supervisor.RestartWindow = n, window
	})
}

// WithBreakerCoolDown sets how long the breaker stays open once the
// restart budget is spent before one reconnection is tried, during the
// outage's first minute (default 7.5s), and the cap of each cool-down
// past it, when a cool-down is twice the outage so far (default one hour).
// A success closes the breaker and starts the budget anew. So a server
// that comes back after an outage of any length serves again within one
// cool-down, and one that crashes at every start costs at most the budget
// plus one spawn per cool-down: with the defaults, 10s of outage cost at
// most 2.5s more, 60s at most 10s more, and a server that never returns is
// tried 19 times in its first hour (docs/guarantees.md has the table).
// Zero keeps a default.
func WithBreakerCoolDown(initial, max time.Duration) Option {
	return newOption("WithBreakerCoolDown", connection, func(o *options) {
		o.Supervisor.CoolDown, o.Supervisor.MaxCoolDown = initial, max
	})
}

// WithReconnectWait bounds how long a call that arrives while reconnecting
// waits for the connection (default 10s); the call's ctx may end it sooner.
func WithReconnectWait(d time.Duration) Option {
	return newOption("WithReconnectWait", connection, func(o *options) {
		o.Supervisor.ReconnectWait = d
	})
}

// WithRetryIdempotent lets a call that was in flight when the session died
// run again after reconnection, when its tool is annotated readOnlyHint or
// idempotentHint. Over Streamable HTTP it also re-sends such a call once,
// with a new request id, when the answer's event stream breaks before the
// answer while the session lives on (on the direct path only, which is the
// default; go-sdk's session resumes a cut stream with Last-Event-ID
// instead). Without it (the default) such calls fail and are never re-sent.
func WithRetryIdempotent() Option {
	return newOption("WithRetryIdempotent", connection, func(o *options) {
		o.Supervisor.Connection.RetryIdempotent = true
	})
}

// WithLegacyFallback lets a server that does not speak MCP 2026-07-28 start
// at an older revision (2025-11-25, 2025-06-18, 2025-03-26 or 2024-11-05,
// [actors.LegacyRevisions]): server/discover is sent first, and when the
// server refuses it, an initialize handshake negotiates the newest revision
// the server speaks; a restart initializes again. Its tool calls go through
// go-sdk's session, not the direct path. [McpPlugin.ProtocolVersion] says
// which revision a session speaks. Without it (the default) the plugin
// speaks only 2026-07-28, initialize never reaches the wire, and such a
// server fails Connect with [ErrProtocolVersion].
func WithLegacyFallback() Option {
	return newOption("WithLegacyFallback", connection, func(o *options) {
		o.Supervisor.Connection.LegacyFallback = true
	})
}

// WithStatusHandler calls h on every change of the plugin's [Status]. It
// runs on an actor's goroutine: it must return quickly and not block. Each
// handler given is called, in the order given.
func WithStatusHandler(h func(Status)) Option {
	return newOption("WithStatusHandler", call, func(o *options) {

		if h != nil {
			o.onStatus = append(o.onStatus, h)
		}
	})
}
