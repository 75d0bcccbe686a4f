// Command toolbox is SEED.md's two-turn story with many MCP servers behind
// one plugin: a [toolbox.Toolbox] opened from an mcp.json, the file Claude
// Desktop, Claude Code, Cursor, Gemini CLI and VS Code read.
//
// It reads the mcp.json named by its first argument, or a bundled one
// (mcp.json beside this file, embedded in the binary); opens every enabled
// server in parallel with [toolbox.Open]; prints the tools by server, each
// under its exposed name "<server>__<tool>", and the status of any server
// that is not ready; then streams two turns through [client.Client] with the
// toolbox registered as the plugin:
//
//   - turn 1 publishes every server's tools and asks "What is 21 + 21? Use
//     the add tool."; the model calls one of the add tools, the toolbox's
//     OnStreamChunk hook routes the call by its exposed name to the server
//     that has it and replaces it with that server's result, and the example
//     prints the result and the server;
//   - turn 2 asks the same question with the server's answer in the prompt
//     and prints the model's reply.
//
// A server that fails to connect, such as one whose command does not exist,
// does not stop the example: its status line shows the error, its tools are
// absent, and the toolbox keeps retrying it in the background while the
// story runs with the other servers' tools.
//
// Usage:
//
//	go run ./examples/toolbox             # the bundled mcp.json
//	go run ./examples/toolbox mcp.json    # your own
//
// # The bundled mcp.json
//
// It lists two demo servers, each with one tool, add, which answers a+b as
// text (from [demoserver.NewAddServer]):
//
//   - "local", a stdio server: "command": "${MCP_DEMO_SELF}" with
//     "args": ["--mcp-add-server"], this executable re-executed as the
//     server;
//   - "remote", a Streamable HTTP server: "url": "${MCP_DEMO_HTTP_URL}",
//     which the example serves itself, stateless, on a loopback port
//     (127.0.0.1:0) for as long as it runs. It sends
//     "Authorization": "Bearer ${MCP_DEMO_TOKEN:-not-a-secret}", a header
//     the demo server ignores, to show a default: the text after ":-" is
//     used when MCP_DEMO_TOKEN is unset or empty.
//
// JSON has no comments, so the file cannot say where its ${VAR}s come from:
// before reading any mcp.json the example starts the HTTP server and sets
// MCP_DEMO_SELF and MCP_DEMO_HTTP_URL in its own environment, and
// [toolbox.ParseConfig] expands them from there, as it expands a user's
// ${GITHUB_TOKEN}. Your own file may list the demo servers with the same
// variables next to yours.
//
// # The model
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
// loopback instead ([demomodel.Scripted]): an OpenAI-compatible server that
// streams the real wire format but follows a script, calling the first
// published tool whose name ends in "add" with {"a":21,"b":21}. The MCP
// servers, the toolbox and the client are the real ones either way.
package main
