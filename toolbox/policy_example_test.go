package toolbox_test

import (
	"fmt"

	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A policy as Claude Code's managed settings put it: deny wins, and an
// allow list with command rules needs a stdio server to match one of them.
func ExampleServerPolicy_Decide() {
	policy := toolbox.ServerPolicy{
		Allow: []toolbox.ServerMatch{{Command: []string{"npx", "-y", "@upstash/context7-mcp"}}, {URL: "https://*.example.com/*"}},
		Deny:  []toolbox.ServerMatch{{URL: "https://untrusted.example.com/*"}},
	}
	for _, s := range []*mcpconfig.Server{
		{Name: "docs", Type: mcpconfig.TypeStdio, Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"}},
		{Name: "docs2", Type: mcpconfig.TypeStdio, Command: "npx", Args: []string{"-y", "other"}},
		{Name: "wiki", Type: mcpconfig.TypeHTTP, URL: "https://wiki.example.com/mcp"},
		{Name: "bad", Type: mcpconfig.TypeHTTP, URL: "https://untrusted.example.com/mcp"},
	} {
		fmt.Printf("%s: %s\n", s.Name, policy.Decide(s))
	}
	// Output:
	// docs: allowed by allow[0] (command ["npx" "-y" "@upstash/context7-mcp"])
	// docs2: denied by policy: no allow rule matches
	// wiki: allowed by allow[1] (url "https://*.example.com/*")
	// bad: denied by policy: deny[0] (url "https://untrusted.example.com/*")
}
