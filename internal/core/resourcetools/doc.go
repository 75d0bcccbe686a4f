// Package resourcetools is what the two model-facing resource tools share
// between package plugin (one server) and package toolbox (many): their
// names, definitions and arguments, and how a listing and a read render
// as the text a model reads. The tools list a server's resources
// (list_mcp_resources) and read one by its URI (read_mcp_resource), as
// Claude Code's ListMcpResourcesTool and ReadMcpResourceTool do. No user
// needs it: plugin.WithResourceTools and toolbox.WithResourceTools turn
// the tools on.
package resourcetools
