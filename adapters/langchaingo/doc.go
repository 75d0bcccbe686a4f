// Package langchainmcp hands the tools of a toolbox (many MCP servers from
// one mcp.json) or of one plugin to langchaingo (github.com/tmc/langchaingo)
// as its own tools, for its agents and their executor.
//
//	tb, err := toolbox.Open(ctx, cfg)
//	if err != nil { ... }
//	defer tb.Close()
//	tools, err := langchainmcp.Tools(ctx, tb)
//	if err != nil { ... }
//	agent := agents.NewOpenAIFunctionsAgent(llm, tools)
//	answer, err := chains.Run(ctx, agents.NewExecutor(agent), "What is the weather in Oslo?")
//
// Each tool is a [tools.Tool] (github.com/tmc/langchaingo/tools) under the
// toolbox's exposed name ("weather__forecast").
//
// # What the agent sends
//
// A langchaingo tool takes one string, and its agents describe a tool to
// the model by name and description only (OpenAIFunctionsAgent gives every
// function a single string parameter, "__arg1"). So a tool's input is its
// arguments as one JSON object, such as {"city": "Oslo"}, and its
// description ends with "Input: a JSON object of the arguments, with this
// JSON Schema: " and the MCP tool's inputSchema as the server sent it,
// which the model follows. The input may be padded, wrapped in a Markdown
// code fence, or a JSON string that holds the object (as models writing
// "Action Input:" lines send it); empty means no arguments.
//
// A call runs as the toolbox's stream hook runs it, so the host controls
// apply: approval, the result cap, held (changed, pinned) tools, the
// rendering of results. A failure of any of those, of the tool itself, or
// an input that is not a JSON object, is the tool's output, the
// observation the model reads; the executor goes on. When the ctx of the
// run ends, the MCP call is cancelled on the server (notifications/cancelled)
// and Call returns ctx's error, which ends the run.
//
// # Tool search
//
// langchaingo's executor takes an agent's tools once, so with a toolbox
// opened with toolbox.WithToolSearch [Tools] returns a fixed pair: the
// search tool and a call tool ("call_tool", [WithCallToolName]) whose
// input is {"name": "<exposed name>", "arguments": {...}}, plus the tools
// of "alwaysLoad" servers. The search result lists the tools it loaded
// with their input schemas.
//
// # Traces
//
// langchaingo records no spans of its own; a call's spans (the toolbox's,
// given plugin.WithTracerProvider) are children of the span in the ctx the
// run was given.
//
// # Sections
//
//   - Tools: [Tools], [Source], [Option], [WithCallToolName].
package langchainmcp
