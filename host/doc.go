// Package host is the contract between an LLM client and its plugins: the
// [Plugin] hooks a client calls around every request it streams, the content
// [Block]s of a model's messages ([Text], [Thinking], [ToolCall],
// [ToolResult]), and the [Request], [Chunk] and [Response] the hooks see.
//
// It imports nothing but the standard library, so a client builds against
// it without pulling in what a plugin is made of (package client imports
// host alone of this module).
// It is for the writer of a client or a plugin; a program that only uses
// packages client and plugin meets its types in their signatures.
//
// A plugin embeds [Base] and overrides the hooks it acts on:
//
//	type upper struct{ host.Base }
//
//	func (upper) Name() string { return "upper" }
//
//	func (upper) OnStreamChunk(_ context.Context, c *host.Chunk) error {
//		for i, b := range c.Blocks {
//			if t, ok := b.(host.Text); ok {
//				c.Blocks[i] = host.Text{Text: strings.ToUpper(t.Text)}
//			}
//		}
//		return nil
//	}
//
// # Sections
//
//   - Hooks: [Plugin], [Base].
//   - Blocks: [Block], [Text], [Thinking], [ToolCall], [ToolResult], [Chunk].
//   - Conversation: [Request], [NewRequest], [Message], [Role],
//     [ToolDefinition], [Response].
//   - Routing: [FirstToolCall], the pass-through test of a hook.
package host
