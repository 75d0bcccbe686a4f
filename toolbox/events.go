package toolbox

import (
	"context"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
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

// WithProgressHandler gives every tool call a progress token and passes
// each notifications/progress a server sends for it to h, as
// [plugin.WithProgress] does (same ordering and same constraints: h must
// return quickly), with the progress's Server the server's name in the
// config and its Tool the tool's name on the server (the model's ToolCall
// with CallID has its exposed name; [Toolbox.Tools] maps one to the
// other). It replaces a plugin.WithProgress given in [WithPluginOptions].
func WithProgressHandler(h func(plugin.Progress)) Option {
	return optionFunc(func(o *options) { o.onProgress = h })
}

// WithApprovalHandler has approve decide on the tool calls that need a
// decision, as [plugin.WithApproval]'s function does, with the request's
// Server the server's name in the config and its Tool the tool's name on
// the server (as in [WithProgressHandler]): every call of a server whose entry
// sets no approval mode, and those the modes ask about (see
// mcpconfig.ApprovalMode). A nil error lets the call go; any other denies
// it with [plugin.ErrDenied]. It replaces a plugin.WithApproval given in
// [WithPluginOptions].
func WithApprovalHandler(approve func(ctx context.Context, req plugin.ApprovalRequest) error) Option {
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
			p.Server = name
			h(p)
		}))
	}
	return opts
}

// approvalHandler is [WithApprovalHandler]'s function as the host's
// approval function of the server sc.
func approvalHandler(sc *mcpconfig.Server, approve func(context.Context, plugin.ApprovalRequest) error) func(context.Context, plugin.ApprovalRequest) error {
	return func(ctx context.Context, req plugin.ApprovalRequest) error {
		req.Server = sc.Name
		return approve(ctx, req)
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
