package plugin

// ToolListOf is the tool snapshot in force, to tell one listing from the
// next.
func ToolListOf(p *McpPlugin) any { return p.tools.Load() }

// Answered reports whether f's reply has reached it, not yet awaited.
func Answered(f *Future) bool { return len(f.ch) > 0 }
