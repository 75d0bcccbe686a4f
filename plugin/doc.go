// Package plugin is [McpPlugin], the "mcp-connector" plugin that runs a
// model's tool calls on one MCP server: it is for a program that talks to
// an MCP server, through a model or on its own. The host contract it
// implements ([host.Plugin], its hooks and content [host.Block]s) lives in
// package host, which imports nothing of this module. Many servers from an
// mcp.json are package toolbox's; servers across a cluster, package grid's.
//
// Connect once, publish the tools, register the plugin:
//
//	github, err := plugin.ConnectStdio(ctx, "github-mcp-server")
//	if err != nil { ... }
//	defer github.Close()
//	req := host.NewRequest(model)
//	for _, def := range github.ToolDefinitions() {
//		req.AddTool(def)
//	}
//	// the client calls github.OnStreamChunk on every chunk it streams.
//
// While an answer streams, [McpPlugin.OnStreamChunk] replaces each [host.ToolCall]
// naming a discovered tool with a [host.ToolResult]; the stream waits while the
// tool runs. [McpPlugin.CallTool] is the same call as a [Future].
//
// # Sections
//
//   - Connecting: [Connect], [ConnectStdio] and their [Option]s, whose doc
//     says where each takes effect.
//   - Older protocol revisions, opt-in: [WithLegacyFallback] starts a
//     server that refuses 2026-07-28 at the revision it speaks;
//     [McpPlugin.ProtocolVersion] says which.
//   - Calling: [McpPlugin.CallTool], [Future.Await], [RenderResult].
//   - Host controls, each off by default: [WithApproval], [WithProgress],
//     [WithIdleTimeout], [WithMaxResultBytes], [WithToolRefresh] (with
//     [McpPlugin.ToolsTTL], the list's ttlMs).
//   - Resources and prompts: [McpPlugin.ListResources],
//     [McpPlugin.ListResourceTemplates], [McpPlugin.ReadResource],
//     [McpPlugin.ListPrompts], [McpPlugin.GetPrompt], [PromptMessages].
//   - Resource tools for the model, opt-in: [WithResourceTools],
//     [ListResourcesTool], [ReadResourceTool], [McpPlugin.ResourceToolResult].
//   - Routing blocks (for facades over plugins): [McpPlugin.StartToolCall],
//     [Future.ToolResult].
//   - Errors: [Error] and its kinds [ErrIO], [ErrNotSupported],
//     [ErrValidation], [ErrDenied], [ErrInternal]; why, beside the kind:
//     context.DeadlineExceeded (every limit, named in the message),
//     context.Canceled, [ErrConnectionLost], [ErrProtocolVersion],
//     [ErrCircuitOpen], and go-sdk's *jsonrpc.Error by errors.As.
//   - Supervision: [WithBackoff], [WithRestartBudget],
//     [WithBreakerCoolDown], [WithReconnectWait], [WithRetryIdempotent]
//     (calls cut by a lost session, or over Streamable HTTP by a cut answer
//     stream, re-sent for tools safe to repeat), [McpPlugin.Reconnect],
//     [McpPlugin.Status].
//
// Behind the facade an McpConnection actor (package actors) owns the MCP
// session; the facade asks it and never blocks its mailbox.
package plugin
