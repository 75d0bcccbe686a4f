// Package openaimcp hands a toolbox (or one plugin) of package mcpconnector
// to github.com/openai/openai-go as tool params of the Chat Completions and
// Responses APIs, and turns the model's function calls into the messages
// (or input items) that send their results back.
//
//	ts := openaimcp.Tools(box) // a *toolbox.Toolbox or a *plugin.McpPlugin
//	for {
//		params.Tools = ts.ChatCompletionTools(ctx, params.Messages)
//		completion, err := client.Chat.Completions.New(ctx, params)
//		if err != nil { ... }
//		msg := completion.Choices[0].Message
//		params.Messages = append(params.Messages, msg.ToParam())
//		results := ts.ToolMessages(ctx, msg)
//		if len(results) == 0 {
//			break // msg.Content is the answer
//		}
//		params.Messages = append(params.Messages, results...)
//	}
//
// Each tool is the toolbox's exposed name, and its parameters are the MCP
// tool's inputSchema as the server sent it: the SDK's map is filled for
// reading, and the request carries the server's JSON itself (the SDK's
// extra fields), so nothing of it is lost; Responses functions go out with
// "strict": false, since an MCP schema is rarely in strict mode's subset of
// JSON Schema. A call runs as the toolbox's
// hook runs it: approval, the result cap, held tools and the rendering of
// results apply, and a failure (the tool's error, a denied approval, a held
// tool) comes back as that call's result text, which the loop sends on like
// any other. ctx's end cancels the MCP call; the toolbox's spans are
// children of the span in ctx.
//
// # Tool search
//
// With a toolbox opened with toolbox.WithToolSearch, [Toolset.ChatCompletionTools]
// and [Toolset.ResponseTools] give the search tool and the tools the
// conversation has loaded, read from the messages (or input items) they are
// passed: pass the whole conversation, and with previous_response_id keep
// the earlier turns' function_call_output items in what you pass (they name
// the tool they answer, so the loads are found without the calls).
//
// [WithProviderSearch] hands deferral to the Responses API's own tool
// search: every function goes out with defer_loading and the tool_search
// tool is added, so the model's context holds no definition until found.
// The Chat Completions API has no such search; there the option leaves the
// toolbox's own search in place.
//
// # Sections
//
//   - Entry: [Tools], [Source], [Toolset], [Option], [WithProviderSearch].
//   - Chat Completions: [Toolset.ChatCompletionTools], [Toolset.ToolMessages].
//   - Responses: [Toolset.ResponseTools], [Toolset.FunctionCallOutputs].
package openaimcp
