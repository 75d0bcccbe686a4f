// Package anthropicmcp hands a toolbox (or one plugin) of package
// mcpconnector to github.com/anthropics/anthropic-sdk-go as its own tools:
// tools its beta tool runner executes, and tool params and results for a
// hand-written loop over the Messages API.
//
//	ts := anthropicmcp.Tools(box) // a *toolbox.Toolbox or a *plugin.McpPlugin
//	runner := client.Beta.Messages.NewToolRunner(ts.BetaTools(ctx), anthropic.BetaToolRunnerParams{
//		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: model, MaxTokens: 1024, Messages: msgs, Tools: ts.BetaToolParams(ctx)},
//	})
//	msg, err := runner.RunToCompletion(ctx)
//
// Each tool is the toolbox's exposed name with the MCP tool's inputSchema
// as the server sent it (not decoded into the SDK's schema struct). A call
// runs as the toolbox's hook runs it: approval, the result cap, held tools
// and the rendering of results apply, and a failure (the tool's error, a
// denied approval, a held tool) reaches the model as an is_error
// tool_result, never as an error that stops the loop. The ctx the runner
// (or your loop) passes cancels the MCP call when it ends, and the
// toolbox's spans are children of the span in it (the runner's
// anthropic.mcp_tool_use span).
//
// # Tool search
//
// With a toolbox opened with toolbox.WithToolSearch:
//
//   - A hand-written loop takes [Toolset.ToolParams] of its messages each
//     turn: the search tool and the tools the conversation loaded.
//   - The tool runner keeps its tools for the run (on a message thread they
//     cannot change), so [Toolset.BetaTools] is a fixed pair: the search
//     tool and a call tool ([DefaultCallToolName]) that runs a loaded tool
//     by name; the search result gives the loaded tools' input schemas.
//   - [WithProviderSearch] hands deferral to the API's own tool search
//     instead: every tool goes out with defer_loading and the tool search
//     tool (BM25) is added, so no definition takes context until found.
//
// # Sections
//
//   - Entry: [Tools], [Source], [Toolset], [Option], [WithProviderSearch], [WithCallToolName].
//   - Tool runner: [Toolset.BetaTools], [Toolset.BetaToolParams].
//   - Hand-written loop: [Toolset.ToolParams], [Toolset.ToolResults].
package anthropicmcp
