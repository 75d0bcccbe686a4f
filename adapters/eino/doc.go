// Package einomcp hands the tools of a toolbox (many MCP servers from one
// mcp.json) or of one plugin to eino (github.com/cloudwego/eino) as its
// own tools, for a ToolsNode or the ReAct agent.
//
//	tb, err := toolbox.Open(ctx, cfg)
//	if err != nil { ... }
//	defer tb.Close()
//	tools, err := einomcp.Tools(ctx, tb)
//	if err != nil { ... }
//	agent, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig:      compose.ToolsNodeConfig{Tools: tools},
//	})
//	msg, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("What is the weather in Oslo?")})
//
// Each tool is a [tool.InvokableTool] (github.com/cloudwego/eino/components/tool)
// under the toolbox's exposed name ("weather__forecast"). Its
// schema.ToolInfo carries the MCP tool's inputSchema keyword for keyword as
// the server sent it: eino's JSON Schema type takes the keywords it has
// fields for, and the others (draft-07 "definitions", "x-" annotations, a
// zero value sent on purpose) ride in its Extras, so a model adapter that
// encodes the schema sends the server's.
//
// A call runs as the toolbox's stream hook runs it, so the host controls
// apply: approval, the result cap, held (changed, pinned) tools, the
// rendering of results. A failure of any of those, or of the tool itself,
// is the call's result text, which the model reads; the run goes on. When
// the ctx of a run ends, the MCP call is cancelled on the server
// (notifications/cancelled) and the tool returns ctx's error, which ends
// the run. The call's id in approval requests and progress is eino's tool
// call id.
//
// eino ends a run with an error when the model calls a name the ToolsNode
// was not given. [UnknownTools] is a ToolsNodeConfig.UnknownToolsHandler
// that runs such a call through the toolbox instead: a tool that came after
// the agent was built, or a loaded tool called by its own name with tool
// search, runs; a held tool or a made-up name is result text saying so.
//
// # Tool search
//
// eino binds an agent's tools once, when the agent is built, so with a
// toolbox opened with toolbox.WithToolSearch [Tools] returns a fixed pair:
// the search tool and a call tool ("call_tool", [WithCallToolName]) that
// runs a loaded tool by its exposed name with its arguments, plus the
// tools of "alwaysLoad" servers. The search result lists the tools it
// loaded with their input schemas, which the model follows for the call
// tool's "arguments".
//
// # Progress
//
// With [WithProgress] every tool is a [tool.StreamableTool] too: in a
// streamed run, each notifications/progress the server sends for a call is
// a chunk of the tool's stream ahead of the result. A [Progress] connects
// the toolbox's progress handler to those streams.
//
// # Traces
//
// A call's spans (the toolbox's, given plugin.WithTracerProvider) are
// children of the span in the ctx eino runs the tool with. eino's tracing
// integrations are callback handlers that start a span in a tool's
// OnStart; eino hands the ctx they return to the tool, so the MCP spans
// nest under eino's tool span.
//
// # Sections
//
//   - Tools: [Tools], [Source], [Option], [WithCallToolName], [UnknownTools].
//   - Progress: [WithProgress], [Progress], [NewProgress], [Progress.Handle].
package einomcp
