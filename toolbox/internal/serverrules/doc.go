// Package serverrules is what package toolbox reads of an mcp.json entry
// (an mcpconfig.Server) beyond its fields: the approval mode of one of its
// tools, whether its calls of one turn run one after another, the prefix
// of its tools' names, and its tool filters with their glob. They are
// functions over the entry's exported fields; no user needs them.
package serverrules
