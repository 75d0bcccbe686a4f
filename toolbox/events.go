package toolbox

import (
	"context"
	"encoding/json"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
)

// ServerStatus is a change of one server's status, as [WithStatusHandler]
// reports it: the server's name in the config (its key in mcpServers) and
// its plugin's [plugin.Status] (State, Restarts, LastError, ...).
type ServerStatus struct {
	// Server is the server's name in the config.
	Server string
	plugin.Status
}

// WithStatusHandler calls h on every change of a server's status, with
// the server's name: each status its plugin reports ([plugin.WithStatusHandler]),
// and, once during [Open], the failed status of each server that Open
// does not start (its transport is not supported, the policy denies it,
// its entry is a problem of the config, or it is untrusted). It runs on
// the server's actor goroutine (or Open's): it must return quickly and
// not block, nor call [Toolbox.Close]. [Toolbox.Status] may still show the
// state before the change when h runs. Handlers of
// plugin.WithStatusHandler given in [WithPluginOptions] are called too,
// without the server's name.
func WithStatusHandler(h func(ServerStatus)) Option {
	return optionFunc(func(o *options) { o.onStatus = h })
}

// Progress is a notifications/progress a server sent for a tool call, as
// [WithProgressHandler] reports it.
type Progress struct {
	// Server is the server's name in the config.
	Server string
	// Tool is the tool's exposed name, the one the model called;
	// ServerTool its name on the server.
	Tool, ServerTool string
	// CallID is the ID of the model's ToolCall block when the call came
	// through [Toolbox.OnStreamChunk], empty for [Toolbox.CallTool].
	CallID string
	// Progress is the server's count so far; Total is zero when the
	// server does not know it.
	Progress, Total float64
	// Message is the server's text, if any.
	Message string
}

// WithProgressHandler gives every tool call a progress token and passes
// each notifications/progress a server sends for it to h, with the
// server's name and the tool's exposed name, as [plugin.WithProgress]
// does (same ordering and same constraints: h must return quickly). It
// replaces a plugin.WithProgress given in [WithPluginOptions].
func WithProgressHandler(h func(Progress)) Option {
	return optionFunc(func(o *options) { o.onProgress = h })
}

// ApprovalRequest is a tool call awaiting the decision of
// [WithApprovalHandler]'s function, before it is sent.
type ApprovalRequest struct {
	// Server is the server's name in the config.
	Server string
	// Tool is the tool's exposed name, the one the model called;
	// ServerTool its name on the server.
	Tool, ServerTool string
	// CallID is the ID of the model's ToolCall block when the call comes
	// through [Toolbox.OnStreamChunk], empty for [Toolbox.CallTool].
	CallID string
	// Arguments is the JSON object that would be sent, or empty for none.
	Arguments json.RawMessage
}

// WithApprovalHandler has approve decide on the tool calls that need a
// decision, as [plugin.WithApproval]'s function does, with the server's
// name and the tool's exposed name: every call of a server whose entry
// sets no approval mode, and those the modes ask about (see
// mcpconfig.ApprovalMode). A nil error lets the call go; any other denies
// it with [plugin.ErrDenied]. It replaces a plugin.WithApproval given in
// [WithPluginOptions].
func WithApprovalHandler(approve func(ctx context.Context, req ApprovalRequest) error) Option {
	return optionFunc(func(o *options) { o.onApproval = approve })
}

// eventOptions are the plugin options that report the server sc's events
// to the toolbox's handlers, under its name and its tools' exposed names.
func (t *Toolbox) eventOptions(sc *mcpconfig.Server, o *options) []plugin.Option {
	var opts []plugin.Option
	name := sc.Name
	if h := o.onStatus; h != nil {
		opts = append(opts, plugin.WithStatusHandler(func(st plugin.Status) { h(ServerStatus{Server: name, Status: st}) }))
	}
	if h := o.onProgress; h != nil {
		opts = append(opts, plugin.WithProgress(func(p plugin.Progress) {
			h(Progress{Server: name, Tool: exposedOf(sc, p.Tool), ServerTool: p.Tool, CallID: p.CallID,
				Progress: p.Progress, Total: p.Total, Message: p.Message})
		}))
	}
	return opts
}

// exposedOf is the exposed name of the server sc's tool.
func exposedOf(sc *mcpconfig.Server, tool string) string {
	return ExposedName(serverrules.ToolPrefix(sc), tool)
}

// approvalHandler is [WithApprovalHandler]'s function as the host's
// approval function of the server sc.
func approvalHandler(sc *mcpconfig.Server, approve func(context.Context, ApprovalRequest) error) func(context.Context, plugin.ApprovalRequest) error {
	return func(ctx context.Context, req plugin.ApprovalRequest) error {
		return approve(ctx, ApprovalRequest{Server: sc.Name, Tool: exposedOf(sc, req.Tool), ServerTool: req.Tool,
			CallID: req.CallID, Arguments: req.Arguments})
	}
}

// reportNotStarted reports, to [WithStatusHandler]'s handler, the failed
// status of each server that Open did not start.
func (t *Toolbox) reportNotStarted() {
	h := t.opts.onStatus
	if h == nil {
		return
	}
	for _, name := range t.names {
		s := t.servers[name]
		t.mu.Lock()
		err := s.startErr
		t.mu.Unlock()
		if err != nil && s.plugin() == nil {
			h(ServerStatus{Server: name, Status: plugin.Status{State: actors.Failed, LastError: err}})
		}
	}
}
