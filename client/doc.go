// Package client is a small LLM client that streams chat completions from an
// OpenAI-compatible server (llama.cpp's llama-server, vLLM, Ollama, LM
// Studio, OpenAI) and runs plugins' hooks around each answer, the host side
// of the [host.Plugin] contract. It is for a program that drives a model
// itself; a host that has a client of its own needs only the plugins.
//
// It is built on the official openai-go SDK, which speaks the wire format
// and decodes the server-sent events; this package assembles the streamed
// deltas into [host.Block] values and drives the hooks.
//
//	tools, err := plugin.ConnectStdio(ctx, "my-mcp-server")
//	if err != nil { ... }
//	defer tools.Close()
//
//	c, err := client.New(
//		client.WithProvider(client.LlamaCpp), // http://localhost:1234/v1
//		client.WithModel("google/gemma-4-12b-qat"),
//		client.WithPlugin(tools),
//	)
//	if err != nil { ... }
//
//	req := host.NewRequest("").AddMessage(host.RoleUser, host.Text{Text: "What is 21 + 21?"})
//	for _, d := range tools.ToolDefinitions() {
//		req.AddTool(d)
//	}
//	res, err := c.Stream(ctx, req)
//	// res.ToolResults() holds what the MCP server answered.
//
// # From deltas to blocks
//
// A server streams an answer as deltas: pieces of reasoning (the delta's
// reasoning_content or reasoning field), of visible text (content), and of
// tool calls (tool_calls, whose arguments arrive in fragments, several calls
// told apart by their index). Deltas of one kind come in runs; a block is
// complete when a delta of another kind or another tool call begins, or
// when the server sends its finish_reason. A complete Thinking or Text block
// is handed to the hooks at once, as a [host.Chunk] of its own. Complete
// tool calls wait for the end of their run (the calls streamed one after
// another, in practice all the calls of a turn) and are handed over
// together, in one chunk in the model's order, so a plugin that runs a
// chunk's calls concurrently (the MCP plugin and the toolbox do) runs the
// turn's calls at once. A plugin always sees a tool call with all its
// arguments, and the stream waits while the hooks run.
//
// [Result.ThinkingBlocks] counts reasoning deltas, one per delta; the
// Thinking blocks in [Result.Blocks] merge each run of them into one.
//
// # Sections
//
//   - Configuration: [New], [Option], [Provider], [WithProvider],
//     [WithBaseURL], [WithModel], [WithAPIKey], [WithPlugin].
//   - Streaming and hook order: [Client.Stream].
//   - The answer: [Result], [Result.Messages] to continue a conversation.
//   - Errors: [ErrConfig], [ErrRequest], [ErrIncompleteStream],
//     [ErrMalformedStream], [ErrHook], [StatusError].
package client
