package toolbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

func TestPolicyDecide(t *testing.T) {
	fs := &mcpconfig.Server{Name: "fs", Type: mcpconfig.TypeStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/srv"}}
	gh := &mcpconfig.Server{Name: "github", Type: mcpconfig.TypeHTTP, URL: "https://api.githubcopilot.com/mcp/"}
	internal := &mcpconfig.Server{Name: "wiki", Type: mcpconfig.TypeHTTP, URL: "https://wiki.corp.example.com/mcp"}
	fsCmd := []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv"}

	cases := []struct {
		name   string
		policy ServerPolicy
		server *mcpconfig.Server
		want   PolicyDecision
	}{
		{"no rules allow all", ServerPolicy{}, fs, PolicyDecision{Allowed: true, Index: -1}},
		{"deny by name", ServerPolicy{Deny: []ServerMatch{{Name: "x"}, {Name: "fs"}}}, fs,
			PolicyDecision{List: "deny", Index: 1, Rule: ServerMatch{Name: "fs"}}},
		{"deny of another name, empty allow", ServerPolicy{Deny: []ServerMatch{{Name: "x"}}}, fs, PolicyDecision{Allowed: true, Index: -1}},
		{"deny wins over allow", ServerPolicy{Allow: []ServerMatch{{Name: "fs"}}, Deny: []ServerMatch{{Command: fsCmd}}}, fs,
			PolicyDecision{List: "deny", Index: 0, Rule: ServerMatch{Command: fsCmd}}},
		{"allow by name", ServerPolicy{Allow: []ServerMatch{{Name: "other"}, {Name: "github"}}}, gh,
			PolicyDecision{Allowed: true, List: "allow", Index: 1, Rule: ServerMatch{Name: "github"}}},
		{"not in allow", ServerPolicy{Allow: []ServerMatch{{Name: "other"}}}, gh, PolicyDecision{Index: -1}},
		{"names are exact", ServerPolicy{Allow: []ServerMatch{{Name: "GitHub"}, {Name: "git*"}}}, gh, PolicyDecision{Index: -1}},
		{"allow by exact command", ServerPolicy{Allow: []ServerMatch{{Command: fsCmd}}}, fs,
			PolicyDecision{Allowed: true, List: "allow", Index: 0, Rule: ServerMatch{Command: fsCmd}}},
		{"a command prefix is not a match", ServerPolicy{Allow: []ServerMatch{{Command: []string{"npx", "-y"}}}}, fs, PolicyDecision{Index: -1}},
		{"other args are not a match", ServerPolicy{Deny: []ServerMatch{{Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/"}}}}, fs,
			PolicyDecision{Allowed: true, Index: -1}},
		{"a command rule never matches http", ServerPolicy{Deny: []ServerMatch{{Command: []string{""}}}}, &mcpconfig.Server{Name: "h", Type: mcpconfig.TypeHTTP, URL: "http://h"},
			PolicyDecision{Allowed: true, Index: -1}},
		{"deny by url wildcard", ServerPolicy{Deny: []ServerMatch{{URL: "https://*.example.com/*"}}}, internal,
			PolicyDecision{List: "deny", Index: 0, Rule: ServerMatch{URL: "https://*.example.com/*"}}},
		{"url wildcard needs the rest to match", ServerPolicy{Deny: []ServerMatch{{URL: "http://*.example.com/*"}}}, internal,
			PolicyDecision{Allowed: true, Index: -1}},
		{"exact url", ServerPolicy{Allow: []ServerMatch{{URL: "https://api.githubcopilot.com/mcp/"}}}, gh,
			PolicyDecision{Allowed: true, List: "allow", Index: 0, Rule: ServerMatch{URL: "https://api.githubcopilot.com/mcp/"}}},
		{"a url rule never matches stdio", ServerPolicy{Deny: []ServerMatch{{URL: "*"}}}, fs, PolicyDecision{Allowed: true, Index: -1}},
		{"url rule over sse", ServerPolicy{Deny: []ServerMatch{{URL: "*"}}}, &mcpconfig.Server{Name: "old", Type: mcpconfig.TypeSSE, URL: "http://h/sse"},
			PolicyDecision{List: "deny", Index: 0, Rule: ServerMatch{URL: "*"}}},
		// With command rules in Allow, a stdio server's name is not enough:
		// the entry could keep the name and swap the command.
		{"command rules make a stdio name insufficient", ServerPolicy{Allow: []ServerMatch{{Name: "fs"}, {Command: []string{"other"}}}},
			fs, PolicyDecision{Index: -1}},
		{"command rules leave http to names", ServerPolicy{Allow: []ServerMatch{{Name: "github"}, {Command: []string{"other"}}}},
			gh, PolicyDecision{Allowed: true, List: "allow", Index: 0, Rule: ServerMatch{Name: "github"}}},
		{"url rules make an http name insufficient", ServerPolicy{Allow: []ServerMatch{{Name: "github"}, {URL: "https://*.example.com/*"}}},
			gh, PolicyDecision{Index: -1}},
		{"url rules leave stdio to names", ServerPolicy{Allow: []ServerMatch{{Name: "fs"}, {URL: "https://*"}}},
			fs, PolicyDecision{Allowed: true, List: "allow", Index: 0, Rule: ServerMatch{Name: "fs"}}},
		{"every field of a rule must match", ServerPolicy{Allow: []ServerMatch{{Name: "wiki", URL: "https://api.*"}, {Name: "wiki", URL: "https://wiki.*"}}},
			internal, PolicyDecision{Allowed: true, List: "allow", Index: 1, Rule: ServerMatch{Name: "wiki", URL: "https://wiki.*"}}},
		{"an empty rule matches nothing", ServerPolicy{Deny: []ServerMatch{{}}}, fs, PolicyDecision{Allowed: true, Index: -1}},
		{"an empty allow rule allows nothing", ServerPolicy{Allow: []ServerMatch{{}}}, fs, PolicyDecision{Index: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.policy.Decide(c.server))
		})
	}
}

func TestPolicyDecisionString(t *testing.T) {
	fs := &mcpconfig.Server{Name: "fs", Type: mcpconfig.TypeStdio, Command: "npx", Args: []string{"srv"}}
	assert.Equal(t, "allowed (no allow rules)", ServerPolicy{}.Decide(fs).String())
	assert.Equal(t, "denied by policy: no allow rule matches", ServerPolicy{Allow: []ServerMatch{{Name: "x"}}}.Decide(fs).String())
	assert.Equal(t, `denied by policy: deny[0] (name "fs", command ["npx" "srv"])`,
		ServerPolicy{Deny: []ServerMatch{{Name: "fs", Command: []string{"npx", "srv"}}}}.Decide(fs).String())
	assert.Equal(t, `allowed by allow[0] (name "fs")`, ServerPolicy{Allow: []ServerMatch{{Name: "fs"}}}.Decide(fs).String())
	assert.Equal(t, `url "https://*"`, ServerMatch{URL: "https://*"}.String())
	assert.Equal(t, "empty rule", ServerMatch{}.String())
}

// Neither a decision nor the option shares the caller's slices.
func TestPolicyCopies(t *testing.T) {
	fs := &mcpconfig.Server{Name: "fs", Type: mcpconfig.TypeStdio, Command: "npx"}
	p := ServerPolicy{Deny: []ServerMatch{{Command: []string{"npx"}}}, Allow: []ServerMatch{{Name: "fs"}}}
	d := p.Decide(fs)
	d.Rule.Command[0] = "changed"
	assert.Equal(t, "npx", p.Deny[0].Command[0])

	var o options
	WithServerPolicy(p).apply(&o)
	p.Deny[0].Command[0] = "other"
	p.Allow[0].Name = "other"
	require.NotNil(t, o.policy)
	assert.Equal(t, ServerPolicy{Deny: []ServerMatch{{Command: []string{"npx"}}}, Allow: []ServerMatch{{Name: "fs"}}}, *o.policy)
	assert.False(t, o.policy.Decide(fs).Allowed)
}
