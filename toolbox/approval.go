package toolbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
)

// ErrApprovalHandlerMissing is wrapped by the denial of a call whose
// approval mode asks ([mcpconfig.ApprovalPrompt], [mcpconfig.ApprovalApprove], [mcpconfig.ApprovalWrites]
// for a tool not annotated readOnlyHint) when no approval handler is set
// ([plugin.WithApproval] in [WithPluginOptions]): the call is denied, as
// [plugin.ErrDenied], rather than run without the question.
var ErrApprovalHandlerMissing = errors.New("toolbox: the approval mode asks, and no approval handler is set")

// hasApprovalModes reports whether the entry says anything of approval:
// a mode for the server or one of its tools, or Gemini CLI's trust.
func hasApprovalModes(s *mcpconfig.Server) bool {
	if s.Approval != mcpconfig.ApprovalUnset || s.Trust {
		return true
	}
	for _, tc := range s.Tools {
		if tc.Approval != mcpconfig.ApprovalUnset {
			return true
		}
	}
	return false
}

// approval is the approval function of a server whose entry has approval
// modes: per call, the tool's mode ([serverrules.ToolApproval]) says
// whether host, the host's approval function, is asked. A tool with no
// mode is handled as before modes: host decides when set.
func (t *Toolbox) approval(sc *mcpconfig.Server, host func(context.Context, plugin.ApprovalRequest) error) func(context.Context, plugin.ApprovalRequest) error {
	return func(ctx context.Context, req plugin.ApprovalRequest) error {
		mode := serverrules.ToolApproval(sc, req.Tool)
		switch mode {
		case mcpconfig.ApprovalAuto:
			return nil
		case mcpconfig.ApprovalUnset:
			if host == nil {
				return nil
			}
			return host(ctx, req)
		case mcpconfig.ApprovalWrites:
			if req.Tool == resourcetools.ReadName || t.readOnly(sc.Name, req.Tool) { // a resource read writes nothing
				return nil
			}
		case mcpconfig.ApprovalPrompt, mcpconfig.ApprovalApprove:
		default:
			return fmt.Errorf("toolbox: tool %q of server %q: unknown approval mode %q", req.Tool, sc.Name, mode)
		}
		if host == nil {
			return fmt.Errorf("%w: tool %q of server %q has approval mode %q (set one with toolbox.WithApprovalHandler or plugin.WithApproval)",
				ErrApprovalHandlerMissing, req.Tool, sc.Name, mode)
		}
		return host(ctx, req)
	}
}

// readOnly reports whether the server's current list annotates its tool
// readOnlyHint.
func (t *Toolbox) readOnly(server, tool string) bool {
	s := t.servers[server]
	if s == nil {
		return false
	}
	p := s.plugin()
	if p == nil {
		return false
	}
	for _, tl := range p.Tools() {
		if tl.Name == tool {
			return tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		}
	}
	return false
}
