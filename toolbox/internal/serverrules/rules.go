package serverrules

import (
	"slices"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// ToolApproval returns the approval mode of the server's tool (its own,
// unprefixed name): the tool's own mode when s.Tools gives one, else the
// server's Approval, else mcpconfig.ApprovalAuto when Trust is set, else
// mcpconfig.ApprovalUnset.
func ToolApproval(s *mcpconfig.Server, tool string) mcpconfig.ApprovalMode {
	if m := s.Tools[tool].Approval; m != mcpconfig.ApprovalUnset {
		return m
	}
	if s.Approval != mcpconfig.ApprovalUnset {
		return s.Approval
	}
	if s.Trust {
		return mcpconfig.ApprovalAuto
	}
	return mcpconfig.ApprovalUnset
}

// SerialCalls reports whether the server's calls of one turn must run one
// after another: ParallelToolCalls is set to false.
func SerialCalls(s *mcpconfig.Server) bool {
	return s.ParallelToolCalls != nil && !*s.ParallelToolCalls
}

// ToolPrefix returns what goes before each of the server's tool names:
// *Prefix when the file sets one, else Name+"__". It is not sanitised;
// the toolbox's exposed name does that.
func ToolPrefix(s *mcpconfig.Server) string {
	if s.Prefix != nil {
		return *s.Prefix
	}
	return s.Name + "__"
}

// AllowsTool reports whether the server's tool (its own name, unprefixed)
// passes the filters: it must match one of IncludeTools when that is not
// empty, and none of ExcludeTools, which wins over IncludeTools.
func AllowsTool(s *mcpconfig.Server, tool string) bool {
	matches := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return MatchGlob(p, tool) })
	}
	if len(s.IncludeTools) > 0 && !matches(s.IncludeTools) {
		return false
	}
	return !matches(s.ExcludeTools)
}
