package toolbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
)

// ServerPolicy says which servers of a config may run, as the allowed and
// denied MCP servers of Claude Code's managed settings do. [Open] applies
// it ([WithServerPolicy]): a server it does not allow is not started, and
// its status says it was denied by policy, with the rule that matched.
//
// Deny wins: a server that any Deny rule matches is denied. Otherwise an
// empty Allow allows every server; a non-empty one allows only the servers
// one of its rules matches. As in Claude Code, a name is not enough where
// Allow says more: when Allow has rules with a Command, a stdio server must
// match one of those (its name matching a Name-only rule does not allow
// it), and when Allow has rules with a URL, so must an HTTP server match
// one of those. Thus an entry cannot keep an allowed name and swap the
// command it runs.
type ServerPolicy struct {
	// Allow lists the servers that may run; empty means all.
	Allow []ServerMatch
	// Deny lists the servers that may not run, whatever Allow says.
	Deny []ServerMatch
}

// ServerMatch is one rule of a [ServerPolicy]. Each field that is set must
// match; a rule with no field set matches no server.
type ServerMatch struct {
	// Name matches the server's name (its key in the file) exactly.
	Name string
	// Command matches a stdio server whose command followed by its args
	// (after variable expansion) is exactly this list.
	Command []string
	// URL matches a server's URL (after expansion), where '*' matches any
	// run of characters, none included, and every other character only
	// itself: "https://*.example.com/*". It never matches a stdio server.
	URL string
}

// empty reports whether m sets no field.
func (m ServerMatch) empty() bool {
	return m.Name == "" && len(m.Command) == 0 && m.URL == ""
}

// matches reports whether the rule matches the server s.
func (m ServerMatch) matches(s *mcpconfig.Server) bool {
	if m.empty() {
		return false
	}
	if m.Name != "" && m.Name != s.Name {
		return false
	}
	if len(m.Command) > 0 && (s.Type != mcpconfig.TypeStdio || !slices.Equal(m.Command, append([]string{s.Command}, s.Args...))) {
		return false
	}
	if m.URL != "" && (s.Type == mcpconfig.TypeStdio || s.URL == "" || !serverrules.MatchGlob(m.URL, s.URL)) {
		return false
	}
	return true
}

// String shows the rule as name "x", command ["a" "b"], url "y", leaving
// out the fields that are empty.
func (m ServerMatch) String() string {
	var parts []string
	if m.Name != "" {
		parts = append(parts, fmt.Sprintf("name %q", m.Name))
	}
	if len(m.Command) > 0 {
		parts = append(parts, fmt.Sprintf("command %q", m.Command))
	}
	if m.URL != "" {
		parts = append(parts, fmt.Sprintf("url %q", m.URL))
	}
	if len(parts) == 0 {
		return "empty rule"
	}
	return strings.Join(parts, ", ")
}

// PolicyDecision is what a [ServerPolicy] says of one server.
type PolicyDecision struct {
	// Allowed is whether the server may run.
	Allowed bool
	// List is "deny" or "allow": the list of the rule that decided; "" when
	// no rule did (an empty Allow allowed the server, or a non-empty one
	// had no rule that matched it).
	List string
	// Index is the rule's index in List; -1 when List is "".
	Index int
	// Rule is the rule that decided; the zero ServerMatch when List is "".
	Rule ServerMatch
}

// String reads "allowed by allow[0] (name "x")", "denied by policy:
// deny[1] (url "https://*")", "denied by policy: no allow rule matches", or
// "allowed (no allow rules)".
func (d PolicyDecision) String() string {
	switch {
	case d.List == "" && d.Allowed:
		return "allowed (no allow rules)"
	case d.List == "":
		return "denied by policy: no allow rule matches"
	case d.Allowed:
		return fmt.Sprintf("allowed by %s[%d] (%s)", d.List, d.Index, d.Rule)
	default:
		return fmt.Sprintf("denied by policy: %s[%d] (%s)", d.List, d.Index, d.Rule)
	}
}

// Decide says whether the server s may run, and which rule decided: the
// first Deny rule that matches it, else (with a non-empty Allow) the first
// Allow rule that matches it among those that count for it (see
// [ServerPolicy]).
func (p ServerPolicy) Decide(s *mcpconfig.Server) PolicyDecision {
	for i, m := range p.Deny {
		if m.matches(s) {
			return PolicyDecision{Allowed: false, List: "deny", Index: i, Rule: cloneMatch(m)}
		}
	}
	if len(p.Allow) == 0 {
		return PolicyDecision{Allowed: true, Index: -1}
	}
	// Where Allow has rules of the server's kind (commands for stdio, URLs
	// for the others), only those can allow it.
	kind := func(m ServerMatch) bool { return m.URL != "" }
	if s.Type == mcpconfig.TypeStdio {
		kind = func(m ServerMatch) bool { return len(m.Command) > 0 }
	}
	strict := slices.ContainsFunc(p.Allow, kind)
	for i, m := range p.Allow {
		if (!strict || kind(m)) && m.matches(s) {
			return PolicyDecision{Allowed: true, List: "allow", Index: i, Rule: cloneMatch(m)}
		}
	}
	return PolicyDecision{Allowed: false, Index: -1}
}

// cloneMatch copies m, so a decision does not share the policy's slices.
func cloneMatch(m ServerMatch) ServerMatch {
	m.Command = slices.Clone(m.Command)
	return m
}

// clone copies p, so the caller may change its slices after giving it.
func (p ServerPolicy) clone() ServerPolicy {
	out := ServerPolicy{}
	for _, m := range p.Allow {
		out.Allow = append(out.Allow, cloneMatch(m))
	}
	for _, m := range p.Deny {
		out.Deny = append(out.Deny, cloneMatch(m))
	}
	return out
}

// WithServerPolicy makes [Open] apply p to the config's enabled servers: a
// server p does not allow ([ServerPolicy.Decide]) is not started, and its
// status reports it as denied by policy, with the rule that matched. p is
// copied. Without it every server may run. Given twice, the last wins.
func WithServerPolicy(p ServerPolicy) Option {
	p = p.clone()
	return optionFunc(func(o *options) { o.policy = &p })
}
