package mcpconfig_test

import (
	"fmt"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// Codex's config.toml loads into the same Config as an mcp.json; its keys
// map onto the same fields.
func ExampleParse_codex() {
	cfg, err := mcpconfig.Parse([]byte(`
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
	fmt.Println("connect:", s.ConnectTimeout, "call:", s.Timeout, "required:", s.Required, "parallel:", *s.ParallelToolCalls)
	fmt.Println(s.Tools["resolve-library-id"].Approval, s.Approval)

	// One bad server is a problem of its own; the file's others still load.
	cfg, err = mcpconfig.Parse([]byte("[mcp_servers.docs]\ncommand = \"npx\"\ntool_timeout_sec = \"1m\"\n"))
	fmt.Println(err, cfg.Problems[0])
	// Output:
	// stdio npx [-y @upstash/context7-mcp]
	// connect: 20s call: 1m0s required: true parallel: false
	// auto writes
	// <nil> 3:20: server "docs": tool_timeout_sec: must be a number of seconds
}
