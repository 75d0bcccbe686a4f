package toolbox_test

import (
	"fmt"

	"github.com/cuca-go/mcpconnector/toolbox"
)

// Codex's config.toml loads into the same Config as an mcp.json; its keys
// map onto the same fields.
func ExampleParseConfig_codex() {
	cfg, err := toolbox.ParseConfig([]byte(`
model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
startup_timeout_sec = 20
tool_timeout_sec = 60
required = true
supports_parallel_tool_calls = false
default_tools_approval_mode = "writes"

[mcp_servers.docs.tools.resolve-library-id]
approval_mode = "auto"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := cfg.Servers["docs"]
	fmt.Println(s.Type, s.Command, s.Args)
	fmt.Println("connect:", s.ConnectTimeout, "call:", s.Timeout, "required:", s.Required, "serial:", s.SerialCalls())
	fmt.Println(s.ToolApproval("resolve-library-id"), s.ToolApproval("get-library-docs"))

	_, err = toolbox.ParseConfig([]byte("[mcp_servers.docs]\ncommand = \"npx\"\ntool_timeout_sec = \"1m\"\n"))
	fmt.Println(err)
	// Output:
	// stdio npx [-y @upstash/context7-mcp]
	// connect: 20s call: 1m0s required: true serial: true
	// auto writes
	// 3:20: server "docs": tool_timeout_sec: must be a number of seconds
}

// A policy as Claude Code's managed settings put it: deny wins, and an
// allow list with command rules needs a stdio server to match one of them.
func ExampleServerPolicy_Decide() {
	policy := toolbox.ServerPolicy{
		Allow: []toolbox.ServerMatch{{Command: []string{"npx", "-y", "@upstash/context7-mcp"}}, {URL: "https://*.example.com/*"}},
		Deny:  []toolbox.ServerMatch{{URL: "https://untrusted.example.com/*"}},
	}
	for _, s := range []*toolbox.ServerConfig{
		{Name: "docs", Type: toolbox.TypeStdio, Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"}},
		{Name: "docs2", Type: toolbox.TypeStdio, Command: "npx", Args: []string{"-y", "other"}},
		{Name: "wiki", Type: toolbox.TypeHTTP, URL: "https://wiki.example.com/mcp"},
		{Name: "bad", Type: toolbox.TypeHTTP, URL: "https://untrusted.example.com/mcp"},
	} {
		fmt.Printf("%s: %s\n", s.Name, policy.Decide(s))
	}
	// Output:
	// docs: allowed by allow[0] (command ["npx" "-y" "@upstash/context7-mcp"])
	// docs2: denied by policy: no allow rule matches
	// wiki: allowed by allow[1] (url "https://*.example.com/*")
	// bad: denied by policy: deny[0] (url "https://untrusted.example.com/*")
}
