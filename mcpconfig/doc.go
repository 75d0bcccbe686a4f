// Package mcpconfig reads the file that lists a host's MCP servers: the
// mcp.json of Claude Desktop, Claude Code, Cursor, Gemini CLI and VS Code (a
// "mcpServers", or VS Code's "servers", object of named servers), and
// Codex's config.toml ([mcp_servers.<name>] tables). It starts nothing: it
// has no actors and no MCP session. Package toolbox runs what it reads.
//
//	cfg, err := mcpconfig.Load("mcp.json")
//	if err != nil {
//		log.Fatal(err) // mcp.json:7:19: server "search": url: must be an absolute http or https URL
//	}
//	for _, name := range cfg.Enabled() {
//		s := cfg.Servers[name]
//		fmt.Println(name, s.Type, s.Command, s.URL)
//	}
//	tb, err := toolbox.Open(ctx, cfg)
//
// Each entry becomes a [Server]: a stdio "command" with "args", "env" and
// "cwd", or an HTTP "url" with "headers", plus what the hosts add (tool
// filters, a prefix, timeouts, trust and approval modes, "required",
// "lazy"). ${VAR}, ${VAR:-default} and VS Code's ${env:VAR} are expanded
// from the process environment. Errors are [*Error]s that point at the
// file, the line, the column and the server, like a compiler's, and never
// quote a value, which may be a secret.
//
// # Sections
//
//   - Reading: [Load], [Parse], [Config], [Error].
//   - A server: [Server], [Server.Transport], [Server.AllowsTool], [Server.ToolPrefix],
//     [MatchGlob], and the transport types [TypeStdio], [TypeHTTP], [TypeSSE], [TypeWS].
//   - Approval: [ApprovalMode] and its values, [Tool], [Server.ToolApproval].
package mcpconfig
