// Command mcp is the plugin's example, end to end: a model calls a tool that
// an MCP server offers, the server computes the answer, and a second turn
// answers from it.
//
// It re-executes its own binary with --mcp-add-server as a stdio MCP server
// (built with the MCP go-sdk) offering one tool, add. It connects to it with
// [plugin.Connect], publishes the discovered tools in the request, and
// streams two turns through [client.Client] with the plugin registered:
//
//   - turn 1 asks "What is 21 + 21? Use the add tool."; the model calls add,
//     the plugin's OnStreamChunk hook replaces that call with the server's
//     result, and the example prints it;
//   - turn 2 asks the same question with the server's answer in the prompt
//     and prints the model's reply.
//
// Usage:
//
//	go run ./examples/mcp
//
// It talks to llama-server at http://localhost:1234/v1 by default. The
// environment retargets it at any OpenAI-compatible server:
//
//	CUCA_BASE_URL  base URL of the chat-completions API, e.g. http://localhost:11434/v1;
//	               "scripted" forces the built-in scripted endpoint
//	CUCA_MODEL     the model name (default google/gemma-4-12b-qat)
//	CUCA_API_KEY   a bearer token, for servers that need one
//
// With CUCA_BASE_URL unset and nothing answering at the default address, it
// says so in one line and runs against a built-in scripted endpoint on
// loopback instead: an OpenAI-compatible server that streams the real wire
// format (a tool_calls delta for add, its arguments in fragments) but
// follows a script, so the example works on a machine with no LLM. The
// MCP server, the plugin and the client are the real ones either way.
package main
