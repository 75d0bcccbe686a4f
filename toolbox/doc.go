// Package toolbox runs many MCP servers from one mcp.json as one plugin:
// it is for a host that runs the servers a user configured, as the agents
// that read an mcp.json do.
//
// The file is the one Claude Desktop, Claude Code, Cursor, Gemini CLI and
// VS Code read: a "mcpServers" (or VS Code's "servers") object of named
// servers, each a stdio "command" with "args", "env" and "cwd", or an HTTP
// "url" with "headers". Package mcpconfig reads it ([mcpconfig.Load]),
// Codex's config.toml too, into a [mcpconfig.Config]; [Open] runs it.
//
//	cfg, err := mcpconfig.Load("mcp.json")
//	if err != nil { ... }
//	tb, err := toolbox.Open(ctx, cfg)
//	if err != nil { ... }
//	defer tb.Close()
//	req := host.NewRequest(model)
//	for _, def := range tb.ToolDefinitions() {
//		req.AddTool(def) // "github__search_issues", "files__read", ...
//	}
//	// register tb with the client: it is a host.Plugin.
//
// [Open] spawns one parent actor (toolbox/internal/toolboxactor), the parent of one
// supervised connection per enabled server; the servers connect in
// parallel. A server that fails does not fail Open (unless [WithStrict]):
// [Toolbox.Status] reports it, and its tools appear when it comes up.
//
// Each tool is exposed as <prefix><tool>, the prefix being "<server>__"
// unless the entry sets "prefix", made safe for OpenAI-compatible APIs:
// each character outside [A-Za-z0-9_-] becomes '_', and a name over 64
// bytes is cut to 55 followed by '_' and 8 hex digits of its hash. Two tools with one exposed name are an error,
// never one shadowing the other. [Toolbox.OnStreamChunk] routes each tool
// call by exposed name to its server, and [Toolbox.CallTool] does the same
// as a future; [Toolbox.Plugin] gives one server's [plugin.McpPlugin].
//
// Plugin options given with [WithPluginOptions] apply to every server; an
// entry's "timeout", "trust" (no approval for its calls),
// "maxResultBytes" (a cap on what the model reads of its results) and
// "tasks" (its tasks driven, [plugin.WithTasks]) are that server's own. A
// detached call's result is read back with [TaskResultTool]. A server whose tool list changes while it runs
// ([plugin.WithToolRefresh]) has its names checked for collisions again.
//
// # Tool search
//
// Ten servers put hundreds of tool definitions into every request. With
// [WithToolSearch] the toolbox publishes the tools itself, in
// [Toolbox.OnRequest]: one search tool whose description lists the
// deferred tools by name, plus the tools of servers marked "alwaysLoad" and
// those the conversation has loaded. The model searches with keywords (or
// exact names), or with the whole task, searched step by step;
// [Toolbox.OnStreamChunk] answers without a server round trip, loading
// the best matches, which join the next request. Loads are
// read back from the conversation's messages, so two conversations never
// see each other's, and a conversation resumed by another process keeps
// its own. The servers' instructions go along as one system message.
// The engine behind the search tool (its index, ranking, answers and
// loads) is internal; the toolbox hands it the exposed tools.
//
//	tb, err := toolbox.Open(ctx, cfg, toolbox.WithToolSearch(toolbox.ToolSearch{}))
//	// register tb with the client; do not add tb.ToolDefinitions() yourself.
//
// # Manifests, lazy servers and pinned tools
//
// [WithManifestDir] keeps each server's last tool list on disk, one file
// per entry (named by a digest of its type, command, args, url and the
// names of its env variables and headers), written atomically, mode 0600.
// A server marked "lazy": true is then not started by Open once its
// manifest exists: its tools are exposed from the manifest and its status
// is [actors.NotStarted]; the first call of one of them (or
// [Toolbox.Start]) starts it, once however many calls arrive together, and
// its real list replaces the manifest's. "stopWhenIdle": "10m" stops it
// again after that long without requests, never while one is under way
// (a call, its approval, a resource read). In a clustered toolbox
// (grid.OpenToolbox) a lazy server's grain is activated by the first call.
//
// [WithPinnedTools] trusts each server's first tool list and holds out, from
// then on, any tool whose description, title, schemas or annotations
// differ from its pin, and any new tool: they are not exposed, a call fails
// with [plugin.ErrDenied] wrapping [ErrToolChanged], and [Toolbox.Status]
// and [Toolbox.HeldTools] say what changed. [Toolbox.AcceptTools] pins the
// current list. With lazy servers or pins and no [WithManifestDir], the
// manifests go to os.UserCacheDir()/mcpconnector. The files (their layout, digests
// and atomic writes) are internal; the toolbox decides when to write them
// and what to hold out.
//
//	tb, err := toolbox.Open(ctx, cfg, toolbox.WithPinnedTools())
//	for _, h := range tb.HeldTools() {
//		fmt.Printf("%s changed: %v\n", h.Name, h.Changed) // ask the user, then tb.AcceptTools(h.Server)
//	}
//
// # What an entry asks
//
// An entry marked "required" fails [Open] when it is not ready, naming it
// ([ErrRequiredServer]), after the servers Open started are closed. An
// approval mode ("approval", per tool in "tools") says when a call asks
// the host's [plugin.WithApproval] function: auto, prompt, writes (unless
// the tool is annotated readOnlyHint) or approve (always); a mode that
// asks with no function set denies the call ([ErrApprovalHandlerMissing]).
// A server with "parallelToolCalls": false runs its calls of one chunk one
// after another, in the model's order, while other servers' run at once.
// [WithServerPolicy] keeps the servers it does not allow from starting;
// their status says which rule ([ErrDeniedByPolicy]). A lazy server's
// first call waits for its start at most the connect timeout (or its ctx);
// a start that failed opens its breaker until the cool-down, with no start
// in the background; and a lazy server whose manifest is older than the
// ttlMs its tools/list gave is started at Open to list again. An entry the
// config could not read (mcpconfig.Config.Problems) is a failed server
// naming its problem, the others starting; a server of an untrusted layer
// not approved starts nothing ([ErrUntrusted]); a "headersHelper" runs
// before the server is reached and again on a 401, within
// 10 seconds, its output never logged ([ErrHeadersHelper]).
//
// # Sections
//
//   - Server policy: [WithServerPolicy], [ServerPolicy], [ServerMatch], [PolicyDecision], [ErrDeniedByPolicy].
//   - Running: [Open], [Option], [Toolbox], [ErrRequiredServer], [ErrApprovalHandlerMissing],
//     [ErrUntrusted], [ErrHeadersHelper].
//   - Names: [ErrNameCollision], [ErrUnknownTool].
//   - Tool search: [WithToolSearch], [ToolSearch], [Toolbox.Search], [Toolbox.OnRequest].
//   - Lazy servers and pins: [WithManifestDir], [Toolbox.Start], [WithPinnedTools],
//     [Toolbox.HeldTools], [HeldTool], [Toolbox.AcceptTools], [ErrToolChanged], [ErrUnknownServer].
//   - Resources and prompts: [Toolbox.ListResources], [Toolbox.ListResourceTemplates], [Toolbox.ReadResource],
//     [Toolbox.ListPrompts], [Toolbox.GetPrompt], [Resource], [ResourceTemplate], [Prompt]; for the model,
//     [WithResourceTools].
package toolbox
