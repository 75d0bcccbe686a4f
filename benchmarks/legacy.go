package benchmarks

import (
	"context"
	"fmt"
	"os"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// ScenarioHookLegacy is the stdio hook call on a session of an older MCP
// revision (plugin.WithLegacyFallback), beside the same call on a
// 2026-07-28 session of the same server code, and go-sdk's and mcp-go's
// clients on the older revision. The older-revision server is the bench
// server (testserver.NewServer, go-sdk v1.8.0) answering server/discover
// "Method not found", as the servers of the TypeScript SDK v1 do: every
// client then initializes it at 2025-11-25, and only the revision differs.
const ScenarioHookLegacy = "hook call, stdio, older revision"

// Subjects of ScenarioHookLegacy.
const (
	// SubjectLegacyHook is the plugin hook on the 2025-11-25 session.
	SubjectLegacyHook = "plugin hook, 2025-11-25"
	// SubjectLegacy2026Session is the plugin hook on a 2026-07-28 session
	// with tools/call through go-sdk's ClientSession (DisableDirectCalls).
	SubjectLegacy2026Session = "plugin hook, 2026-07-28, session tools/call"
	// SubjectLegacy2026Direct is the plugin's default on a 2026-07-28
	// session: tools/call on its own path.
	SubjectLegacy2026Direct = "plugin hook, 2026-07-28, direct tools/call"
	// SubjectLegacyGoSDK and SubjectLegacyMCPGo are go-sdk's and mcp-go's
	// clients on the older-revision server, at 2025-11-25.
	SubjectLegacyGoSDK = "go-sdk direct, 2025-11-25"
	SubjectLegacyMCPGo = "mcp-go client direct, 2025-11-25"
)

// legacyChildArg makes this executable the older-revision bench server
// ([RunLegacyIfChild]).
const legacyChildArg = "mcpconnector-bench-legacy-server"

// RunLegacyIfChild serves the older-revision bench server on stdio and
// exits when this process was started as one; otherwise it returns at
// once. A program that runs [Run] calls it first, beside
// testserver.RunBenchIfChild.
func RunLegacyIfChild() {
	if len(os.Args) < 2 || os.Args[1] != legacyChildArg {
		return
	}
	s := testserver.NewServer()
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "server/discover" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			return next(ctx, method, req)
		}
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// legacyStdio is the command that runs the older-revision bench server.
func legacyStdio() (transport.Stdio, error) {
	exe, err := os.Executable()
	if err != nil {
		return transport.Stdio{}, err
	}
	return transport.NewStdio(exe, legacyChildArg), nil
}

// connectMCPGoLegacy is [ConnectMCPGo] at 2025-11-25 (initialize).
func connectMCPGoLegacy(ctx context.Context, t transport.Stdio) (*mcpgoclient.Client, error) {
	c, err := mcpgoclient.NewStdioMCPClient(t.Command, append(transport.DefaultEnv(), t.Env...), t.Args...)
	if err != nil {
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcpgo.Implementation{Name: "bench-mcp-go", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// hookLegacy measures ScenarioHookLegacy, interleaved as the hook
// scenarios are.
func (r *runner) hookLegacy(ctx context.Context) error {
	srv, err := legacyStdio()
	if err != nil {
		return err
	}
	legacy, err := plugin.Connect(ctx, srv, plugin.WithLegacyFallback())
	if err != nil {
		return err
	}
	defer legacy.Close()
	if v := legacy.ProtocolVersion(); v != "2025-11-25" {
		return fmt.Errorf("the older-revision server negotiated %q", v)
	}
	session := r.stdio
	session.DisableDirectCalls = true
	onSession, err := plugin.Connect(ctx, session)
	if err != nil {
		return err
	}
	defer onSession.Close()
	direct, err := plugin.Connect(ctx, r.stdio)
	if err != nil {
		return err
	}
	defer direct.Close()
	// go-sdk's client with its defaults falls back to initialize.
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}})
	gs, err := client.Connect(ctx, CommandTransport(srv), nil)
	if err != nil {
		return err
	}
	defer gs.Close()
	if v := gs.InitializeResult().ProtocolVersion; v == actors.ProtocolVersion {
		return fmt.Errorf("go-sdk's client negotiated %q with the older-revision server", v)
	}
	if _, err := ListAllTools(ctx, gs); err != nil {
		return err
	}
	mg, err := connectMCPGoLegacy(ctx, srv)
	if err != nil {
		return err
	}
	defer mg.Close()

	subjects := []*Subject{PluginHook(legacy, InstantCall), PluginHook(onSession, InstantCall), PluginHook(direct, InstantCall),
		GoSDKDirect(gs, InstantCall), MCPGoDirect(mg, InstantCall)}
	for i, name := range []string{SubjectLegacyHook, SubjectLegacy2026Session, SubjectLegacy2026Direct, SubjectLegacyGoSDK, SubjectLegacyMCPGo} {
		subjects[i].Name = name
	}
	res, err := Interleave(ctx, subjects, r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	if st := legacy.Status(); st.Restarts > 0 {
		r.progress("%s: the 2025-11-25 session restarted %d times (last failure: %v)", ScenarioHookLegacy, st.Restarts, st.LastFailure)
	}
	r.add(ScenarioHookLegacy, res...)
	return nil
}

// legacyNote is the note of a ScenarioHookLegacy row: each against the
// plugin hook on the older revision.
func (r *Report) legacyNote(row *Row) string {
	l := r.find(row.Scenario, SubjectLegacyHook, 0)
	if l == nil || row.Subject == SubjectLegacyHook {
		return ""
	}
	return fmt.Sprintf("the plugin hook on 2025-11-25 against this: p50 %.2fx, CPU %.2fx, %+.1f allocs",
		float64(l.Latency.P50)/float64(row.Latency.P50), float64(l.CPUPerOp)/float64(row.CPUPerOp), l.AllocsPerOp-row.AllocsPerOp)
}

// legacyTargets are the goals for the older revisions: the hook
// call on an older revision's session within 1.1x of the same call on a
// 2026-07-28 session at p50 and CPU, and ahead of go-sdk's and mcp-go's
// clients on the same server.
func (r *Report) legacyTargets() []Target {
	l := r.find(ScenarioHookLegacy, SubjectLegacyHook, 0)
	d, s := r.find(ScenarioHookLegacy, SubjectLegacy2026Direct, 0), r.find(ScenarioHookLegacy, SubjectLegacy2026Session, 0)
	gs, mg := r.find(ScenarioHookLegacy, SubjectLegacyGoSDK, 0), r.find(ScenarioHookLegacy, SubjectLegacyMCPGo, 0)
	if l == nil || d == nil || s == nil || gs == nil || mg == nil {
		return nil
	}
	p50 := func(a, b *Row) float64 { return float64(a.Latency.P50) / float64(b.Latency.P50) }
	cpu := func(a, b *Row) float64 { return float64(a.CPUPerOp) / float64(b.CPUPerOp) }
	return []Target{
		{
			Goal: ScenarioHookLegacy + ": p50 and CPU within 1.1x of the 2026-07-28 session (its default, direct tools/call)",
			Got: fmt.Sprintf("p50 %.2fx, CPU %.2fx (of the session's own tools/call: p50 %.2fx, CPU %.2fx)",
				p50(l, d), cpu(l, d), p50(l, s), cpu(l, s)),
			Met: p50(l, d) <= 1.1 && cpu(l, d) <= 1.1,
		},
		{
			Goal: ScenarioHookLegacy + ": p50 and CPU below go-sdk's and mcp-go's clients at 2025-11-25",
			Got: fmt.Sprintf("p50 %.2fx / %.2fx, CPU %.2fx / %.2fx (of go-sdk / of mcp-go)",
				p50(l, gs), p50(l, mg), cpu(l, gs), cpu(l, mg)),
			Met: l.Latency.P50 < gs.Latency.P50 && l.Latency.P50 < mg.Latency.P50 && l.CPUPerOp < gs.CPUPerOp && l.CPUPerOp < mg.CPUPerOp,
		},
	}
}
