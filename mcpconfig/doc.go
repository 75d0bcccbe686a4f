// Package mcpconfig reads the files that list a host's MCP servers as each
// host reads them: the mcp.json of Claude Code (.mcp.json), Claude Desktop,
// Cursor, VS Code and Windsurf, Gemini CLI's settings.json (a "mcpServers",
// or VS Code's "servers", object of named servers, in JSON or JSONC), and
// Codex's config.toml ([mcp_servers.<name>] tables). It starts nothing: it
// has no actors and no MCP session. Package toolbox runs what it reads; it
// is for a host that reads or checks such a file itself.
//
//	cfg, err := mcpconfig.Load(".vscode/mcp.json", mcpconfig.WithInputs(prompt))
//	if err != nil {
//		log.Fatal(err) // not JSON, JSONC or TOML at all: ".vscode/mcp.json:7:19: ..."
//	}
//	for _, p := range cfg.Problems {
//		log.Print(p) // one per broken entry: mcp.json:9:5: server "search": url: must be an absolute http or https URL
//	}
//	tb, err := toolbox.Open(ctx, cfg) // the broken entries show as failed servers
//
// Each entry becomes a [Server]: a stdio "command" with "args", "env" and
// "cwd", or an HTTP "url" with "headers", plus what the hosts add (tool
// filters, a prefix, timeouts, trust and approval modes, "required",
// "lazy", a headersHelper, an envFile). The host, told by the file's name
// ([HostOf]) or given ([WithHost]), decides which variables are resolved
// and what an unresolved one becomes ([Host]); values come from the process
// environment or [WithVariables], VS Code's ${input:ID} from [WithInputs].
// One bad entry never sinks the file: it is one of [Config.Problems], the
// others load, unless [WithStrict]. [LoadLayers] merges a host's files in
// its order and keeps the servers of an untrusted layer waiting for the
// caller's approval. Errors are [*Error]s that point at the file, the line,
// the column and the server, like a compiler's, and never quote a value,
// which may be a secret.
//
// # Sections
//
//   - Reading: [Load], [Parse], [LoadLayers], [Layer], [Config], [Error].
//   - Options: [Option], [WithHost], [WithVariables], [WithWorkspaceFolder], [WithInputs],
//     [WithStrict], [WithApprove].
//   - Hosts: [Host] and its values, [HostOf], [Input].
//   - A server: [Server], [Server.Transport], [Server.ApprovalText], and the transport
//     types [TypeStdio], [TypeHTTP], [TypeSSE], [TypeWS].
//   - Approval: [ApprovalMode] and its values, [Tool], [Config.Approve].
package mcpconfig
