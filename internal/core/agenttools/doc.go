// Package agenttools is the framework-free core of the agent framework
// adapters (the modules under adapters/): what every adapter does the same
// way, whatever the framework's tool types.
//
// An adapter takes a [Source], the small interface that both a
// *plugin.McpPlugin and a *toolbox.Toolbox satisfy, and wraps it in a
// [Toolset]. The toolset lists the tools to hand the framework and runs the
// model's calls; the framework only converts types.
//
//   - Names are the source's exposed names; a tool's schema is the
//     InputSchema of its [host.ToolDefinition], the MCP tool's inputSchema
//     as the server sent it, handed on as raw JSON.
//   - [Toolset.Call] runs one call through the source's OnStreamChunk hook,
//     so the seed's rules apply unchanged: approval, the result cap, held
//     (changed, pinned) tools, the rendering of results and failures. A
//     failure is a [Result] with IsError, never an error that would abort a
//     framework's loop; ctx's end cancels the MCP call
//     (notifications/cancelled reaches the server); the toolbox's spans are
//     children of the span in ctx.
//
// # Tool search
//
// With a toolbox opened with toolbox.WithToolSearch, what the model sees
// depends on the conversation, and the toolbox alone decides it: its
// OnRequest hook publishes the search tool, the tools of "alwaysLoad"
// servers and the tools the conversation's messages have loaded (a search
// result listed them, or a call named them). The toolset keeps that rule by
// handing the conversation to OnRequest:
//
//   - A framework that takes a new tool list each turn (a hand-written loop
//     over a provider's SDK) calls [Toolset.Published] with the
//     conversation's tool calls and results as [host.Message] values, or
//     with [Conversation.Messages] when it keeps them in a [Conversation].
//   - A framework whose tool list is fixed when the agent is built gets
//     [Toolset.Fixed]: the search tool and one call tool
//     ([DefaultCallToolName]) that runs any exposed tool by name with its
//     arguments, plus the always-loaded tools. [Toolset.CallFixed] runs
//     both; its search results carry the loaded tools' input schemas, since
//     their definitions never reach the model as tools.
//   - A provider with its own tool search (defer_loading) gets [Toolset.All]
//     and [Toolset.Call]: every definition, deferred by the provider but
//     for [Toolset.AlwaysLoaded].
//
// Without tool search (or with a plugin) Published and Fixed give every
// tool, as All does.
//
// # Sections
//
//   - The source: [Source], [Toolset], [New], [Options].
//   - Listing: [Toolset.All], [Toolset.Published], [Toolset.Fixed],
//     [Toolset.SearchTool], [Toolset.AlwaysLoaded], [Toolset.Instructions].
//   - Calling: [Toolset.Call], [Toolset.CallEach], [Toolset.CallFixed], [Result], [Conversation].
package agenttools
