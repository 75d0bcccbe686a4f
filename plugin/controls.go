package plugin

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cuca-go/mcpconnector/host"
)

// The host controls: approval before a call, progress and an idle timeout
// during it, a cap on what the model reads of its result, and a tool list
// kept live. Each is off until its option is given, and then costs nothing
// on the calls it does not touch.

// controls holds the options of this file.
type controls struct {
	approve        func(context.Context, ApprovalRequest) error
	onProgress     func(Progress)
	idleTimeout    time.Duration
	maxResultBytes int
	// maxResultSource names where maxResultBytes came from, for errors;
	// "" means WithMaxResultBytes (a toolbox entry names its own).
	maxResultSource string
	onToolUI        func(context.Context, host.ToolResult, *ToolUI, error) // WithToolUIHandler (apps.go)
	resourceTools   resourceTools                                          // WithResourceTools (resourcetools.go)
	detach          *detacher                                              // WithTasks's DetachAfter: hook calls may detach (detach.go)
}

// ApprovalRequest is what [WithApproval]'s function decides on: one tool
// call, before anything of it reaches the server.
type ApprovalRequest struct {
	// Server names the server as errors do ([McpPlugin.Server]), e.g.
	// `stdio "srv"`, or `server "github" (stdio "npx")` in a toolbox; a
	// toolbox's own handler (toolbox.WithApprovalHandler) gets the
	// server's name in the config, "github".
	Server string
	// Tool is the server's own name of the tool (in a toolbox, not the
	// exposed name).
	Tool string
	// CallID is the ID of the model's ToolCall block when the call comes
	// from [McpPlugin.OnStreamChunk] (or a toolbox's), empty for CallTool.
	CallID string
	// Arguments is the JSON object that would be sent, or empty for none.
	Arguments json.RawMessage
}

// WithApproval has approve decide on every tool call before it is sent,
// from the hook and from CallTool alike. A nil error lets the call go; any
// other error denies it: nothing reaches the server, the hook's ToolResult
// carries the reason with IsError, and the Future fails with [ErrDenied]
// wrapping the error. approve may block (a person deciding) but must
// return when ctx, the call's context, ends; a call whose ctx ended while
// it decided fails as any abandoned call does ([ErrInternal] wrapping
// ctx's error) and is not sent. The time spent deciding counts against
// ctx's deadline but not against [WithDefaultCallTimeout] or [WithCallTimeoutCap],
// which bound the server's part. approve may run on several goroutines at
// once, one per call (calls in one chunk are decided concurrently). A nil
// approve turns approval off, e.g. after a host-wide one for a trusted
// server.
func WithApproval(approve func(ctx context.Context, req ApprovalRequest) error) Option {
	return newOption("WithApproval", call, func(o *options) {
		o.approve = approve
		o.Approve = nil
		if approve != nil {
			o.Approve = func(ctx context.Context, server, tool, callID string, args json.RawMessage) error {
				return approve(ctx, ApprovalRequest{Server: server, Tool: tool, CallID: callID, Arguments: args})
			}
		}
	})
}

// Progress is one notifications/progress of the server for a call.
type Progress struct {
	// Server, Tool and CallID are as in [ApprovalRequest] (a toolbox's
	// handler, toolbox.WithProgressHandler, gets the server's name in the
	// config).
	Server, Tool, CallID string
	// Progress is the server's count so far; Total is zero when the
	// server does not know it.
	Progress, Total float64
	// Message is the server's text, if any.
	Message string
}

// WithProgress gives every tool call a progress token and passes each
// notifications/progress the server sends for it to h, in the order sent:
// every progress sent before the call's result reaches h before the call
// returns (through a toolbox and across a cluster too). Progress that the
// server sends after the call's result is dropped. h runs on the goroutine
// that reads the session's messages, one at a time; it must return quickly
// (every reply of the session waits for it) and must not close the plugin,
// whose Close waits for those replies. Across a cluster (grid.Connect) the
// progress travels to the facade's member as a message, ahead of the
// result.
func WithProgress(h func(Progress)) Option {
	return newOption("WithProgress", call, func(o *options) {
		o.onProgress = h
	})
}

// WithIdleTimeout fails a tool call with [ErrInternal] ("idle timeout")
// and cancels it on the server once d passes without progress from the
// server: from the call's start, and again from each notifications/progress
// for it. Every call then carries a progress token. The call's ctx deadline
// (or [WithDefaultCallTimeout], [WithCallTimeoutCap]) stays the hard limit however
// often the server reports progress. Zero or negative means no idle
// timeout (the default).
func WithIdleTimeout(d time.Duration) Option {
	return newOption("WithIdleTimeout", call, func(o *options) {
		o.idleTimeout = max(d, 0)
	})
}

// WithMaxResultBytes caps the text the model reads of a tool call (the
// ToolResult's Content, rendered or error text) at n bytes: a longer text
// is cut at a UTF-8 character boundary and ends with a marker such as
// "[… 1.2 MiB more cut]" saying how much was cut, marker included in the n
// bytes. n smaller than the marker leaves the marker alone. Zero or
// negative renders whole, as by default. CallTool's result is not cut;
// [Future.ToolResult] and the hook are.
func WithMaxResultBytes(n int) Option {
	return newOption("WithMaxResultBytes", call, func(o *options) {
		o.maxResultBytes, o.maxResultSource = max(n, 0), ""
	})
}

// maxResultFrom names where the result cap came from: its source (a
// pluginopt.ResultCapSource's, a toolbox entry's "maxResultBytes"), or the
// option.
func (c *controls) maxResultFrom() string {
	if c.maxResultSource != "" {
		return c.maxResultSource
	}
	return "WithMaxResultBytes"
}

// WithToolRefresh keeps the tool list live. The connection subscribes to
// the server's tools/list_changed (SEP-2575 subscriptions/listen, when the
// server declares tools.listChanged; the first list is taken once the
// server has acknowledged it) and lists the tools again on each; and when
// a tools/list result carries a TTL (ttlMs > 0), the first use of the
// plugin after it expires (Tools, HasTool, ToolDefinitions, a hook,
// CallTool) starts a new listing without waiting for it. The new list
// replaces the old one atomically: a hook sees one or the other, never a
// mix. Tools added and removed are logged and reported to the status
// handlers ([Status] ToolsAdded, ToolsRemoved). A listing that fails
// keeps the list in force and is tried again after another TTL. For a
// cluster grain, give it to the grain's kind too (the hosting member
// subscribes) and to the facade (which watches the grain's list).
func WithToolRefresh() Option {
	return newOption("WithToolRefresh", common, func(o *options) {
		o.Supervisor.Connection.ToolRefresh = true
	})
}
