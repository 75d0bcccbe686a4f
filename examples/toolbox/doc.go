// Command toolbox opens the MCP servers of an mcp.json (the file Claude
// Desktop, Claude Code, Cursor, Gemini CLI and VS Code read) as one
// [toolbox.Toolbox] and tells what is there: point it at your own file to
// see which servers come up, which fail and why, and what each tool is
// called and does; call one tool to see what a model would read. With no
// file it runs a two-turn demo on a bundled one.
//
// Usage:
//
//	go run ./examples/toolbox                          # the bundled mcp.json and the demo
//	go run ./examples/toolbox -config ~/.cursor/mcp.json  # your own: list the servers and tools
//	go run ./examples/toolbox mcp.json                 # the same, positional
//	go run ./examples/toolbox -config mcp.json -call github__search_issues -args '{"q":"leak"}'
//	go run ./examples/toolbox -tool-search             # the demo with tool search
//	go run ./examples/toolbox -resources               # the model follows a resource link
//	go build -o tb ./examples/toolbox && ./tb -lazy    # twice: the second run starts no child until the call
//	./tb -pin && ./tb -pin -changed                    # a pinned tool that changes is held out
//	./tb -pin -changed -call local__add -args '{"a":1,"b":2}'  # says it is held out, what changed, how to accept
//	./tb -changed -accept local                        # accept the change: pin local's current tools
//	go run ./examples/toolbox -strict mcp.json         # exit 1 unless every server is ready
//	go run ./examples/toolbox -h                       # the flags
//
// It opens every enabled server in parallel with [toolbox.Open] and prints
// one aligned line per server: its name, its transport, its state as
// [actors.State] prints it (ready, failed, ...; "disabled" for a server the
// file disables) and, when it is not ready, the reason. Under each ready
// server come its tools, by exposed name ("<server>__<tool>"), each
// description indented and wrapped. A server that fails to connect, such as
// one whose command does not exist, does not stop it: its line says why,
// and the toolbox keeps retrying it in the background.
//
// -call TOOL calls one tool by its exposed name, with -args JSON as its
// arguments (none by default), through the toolbox's hook as a model's tool
// call goes, and prints the text the model would read: the rendered result,
// or the error text. -args must be one JSON object; it is checked before any
// server starts (exit status 2 when it is not). A tool that pinning holds
// out is not called: the error says so, what changed, and that -accept
// SERVER takes the change. For a lazy server, the server's line is printed
// again after the call ("After the call:"), with the state the call left it
// in (the listing said "not started").
//
// Exit status: 0 when every enabled server is ready or reported with its
// reason; 1 for a file that cannot be read or parsed, with -strict when an
// enabled server is not ready, when the -call fails, or when the demo
// fails; 2 for a command line that makes no sense.
//
// # The demo
//
// With the bundled file (or with -demo on your own), it then streams two
// turns through [client.Client] with the toolbox registered as the plugin:
//
//   - turn 1 publishes every server's tools and asks "What is 21 + 21? Use
//     the add tool."; the model calls one of the add tools, the toolbox's
//     OnStreamChunk hook routes the call by its exposed name to the server
//     that has it and replaces it with that server's result, and the example
//     prints the result and the server;
//   - turn 2 asks the same question with the server's answer in the prompt
//     and prints the model's reply.
//
// With -tool-search the toolbox is opened with [toolbox.WithToolSearch]:
// the demo's first request carries only the search tool ("tool_search";
// the host adds no definitions itself, the toolbox's OnRequest does), the
// model searches for "add two numbers", the example prints the search's
// answer (the tools it loaded), and on the second turn the request carries
// the search tool plus the tools found, and the model calls add.
//
// With -resources the toolbox gets a third server, notes (a go-sdk server
// this process serves over loopback HTTP, [demoserver.NewNotesServer]), and
// is opened with [toolbox.WithResourceTools], which gives the model
// list_mcp_resources and read_mcp_resource. The demo then asks "What does
// the latest note say?" over three turns, each request carrying the ones
// before: the model calls notes__latest_note, whose result is a
// resource_link that the toolbox renders with the tool and server that read
// it ("[resource link: note:///sums (sums, text/plain); read it with
// read_mcp_resource, server "notes"]"); the model follows it with
// read_mcp_resource, which the toolbox answers itself with the resource's
// text; and the model replies from what it read.
//
// # Lazy servers and pinned tools
//
// -manifests DIR keeps each server's tool list in DIR ([toolbox.WithManifestDir];
// without it, the user's cache directory when -lazy or -pin is given). -lazy
// makes every server lazy: a run with no manifest yet starts them all, to
// learn their tools; the next run starts none of those whose entry is
// unchanged, prints them "not started" with their tools from the manifest,
// and the model's call of local__add starts the stdio server then ("After
// the run" says which servers ran). The bundled HTTP server listens on a
// new port each run, which makes it a new entry every time, so it always
// starts. A manifest is keyed by the entry's command, which for the bundled
// file is this executable: build it once (go build), since go run puts the
// binary somewhere new each time.
//
// -pin pins the tools on first use ([toolbox.WithPinnedTools]). -changed
// makes the bundled stdio server change its add tool's description (the
// bundled file passes MCP_DEMO_CHANGED_DESCRIPTION to it, empty unless
// -changed sets it; only the value changes, so the entry stays the same):
// with -pin, local__add is then printed "held out: changed since it was
// pinned (description)", it is not offered to the model, which calls
// remote__add instead, and a call to it would be denied; -accept local pins
// its current tools (with [toolbox.Toolbox.AcceptTools]; it implies -pin),
// after which local__add is offered again, changed. With -lazy too,
// the first run that sees the change is the call that starts the server:
// that call is denied (and the demo fails with the reason); later runs know
// from the manifest and never start it.
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
// [mcpconfig.Parse] expands them from there, as it expands a user's
// ${GITHUB_TOKEN}. Your own file may list the demo servers with the same
// variables next to yours.
//
// # The model
//
// The demo talks to llama-server at http://localhost:1234/v1 by default. The
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
