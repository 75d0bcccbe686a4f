// Package genkitmcp defines the tools of a toolbox (many MCP servers from
// one mcp.json) or of one plugin on a Genkit (github.com/firebase/genkit/go),
// for genkit.Generate.
//
//	g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{}))
//	tb, err := toolbox.Open(ctx, cfg)
//	if err != nil { ... }
//	defer tb.Close()
//	tools, loads, err := genkitmcp.Tools(ctx, g, tb)
//	if err != nil { ... }
//	resp, err := genkit.Generate(ctx, g,
//		ai.WithModelName("googleai/gemini-2.5-flash"),
//		ai.WithPrompt("What is the weather in Oslo?"),
//		ai.WithTools(tools...), ai.WithMiddleware(loads))
//
// [Tools] defines every exposed tool on g as a Genkit tool action, under
// its exposed name ("weather__forecast") and with the MCP tool's
// inputSchema, as the server sent it, as its input schema. It returns the
// tools a conversation starts with and a model middleware that sets the
// request's tools of the source on each turn.
//
// A call runs as the toolbox's stream hook runs it, so the host controls
// apply: approval, the result cap, held (changed, pinned) tools, the
// rendering of results. A failure of any of those, or of the tool itself,
// is the tool's output (a string), which the model reads; Generate goes
// on. The model's arguments go to the server as it sent them: Genkit's
// own check of a tool's input against its schema, which ends Generate on
// a mismatch, and its dropping of null members, are skipped (the actions
// are the adapter's, not genkit.DefineTool's), so the server's answer to
// wrong arguments is what the model reads. When the ctx of Generate ends,
// the MCP call is cancelled on the server (notifications/cancelled) and
// the tool fails with ctx's error, which ends Generate.
//
// # Tool search
//
// Genkit lets a model middleware change the request's tools between turns.
// With a toolbox opened with toolbox.WithToolSearch, the tools returned
// are the search tool and the tools of "alwaysLoad" servers, and the
// middleware adds, from the next turn on, the tools the conversation's
// searches loaded, read from the request's messages: two conversations
// never see each other's loads. Without the middleware the model only ever
// sees the first list.
//
// # Traces
//
// A call's spans (the toolbox's, given plugin.WithTracerProvider) nest
// under the span in the tool's ctx: Genkit's generate span. With
// [WithToolSpans] each call also runs in a Genkit span of the tool's
// action ("genkit:type" action, from the global OpenTelemetry tracer
// provider), as genkit.DefineTool's tools do, and the call's spans are its
// children; it is off by default for its cost (docs/adapters.md).
//
// # Sections
//
//   - Tools: [Tools], [Source], [ErrDefined], [Option], [WithToolSpans].
package genkitmcp
