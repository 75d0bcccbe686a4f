package plugin

// ToolListOf is the tool snapshot in force, to tell one listing from the
// next.
func ToolListOf(p *McpPlugin) any { return p.tools.Load() }
