package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/examples/demomodel"
	"github.com/cuca-go/mcpconnector/examples/demoserver"
	"github.com/cuca-go/mcpconnector/examples/observe"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// bundledConfig is the mcp.json used when none is given: the two demo
// servers, found through the variables startDemoServers sets.
//
//go:embed mcp.json
var bundledConfig []byte

// bundledName is how the output names the bundled file.
const bundledName = "mcp.json"

// question is asked on both turns.
const question = "What is 21 + 21?"

// config is what the command line and the environment can change.
type config struct {
	// model is where the model runs: CUCA_BASE_URL and CUCA_MODEL.
	model demomodel.Target
	// apiKey is CUCA_API_KEY, sent as a bearer token; empty sends none.
	apiKey string
	// mcpJSON is the path of the mcp.json to run, -config or the first
	// argument; empty means the bundled one.
	mcpJSON string
	// demo runs the two-turn story after the listing: the default for the
	// bundled file, -demo for a user's.
	demo bool
	// strict makes a server that is not ready an error (-strict).
	strict bool
	// call, if set, is the exposed name of the one tool to call (-call),
	// with args (-args) as its arguments, instead of the story.
	call, args string
	// toolSearch opens the toolbox with tool search (-tool-search): the
	// demo's first request carries only the search tool.
	toolSearch bool
	// resources adds the notes server to the toolbox and gives the model
	// the resource tools (-resources): the demo's model follows the
	// resource link of the notes server's tool instead of adding.
	resources bool
	// manifestDir keeps the servers' tool lists (-manifests); lazy makes
	// every server lazy (-lazy); pin pins their tools (-pin); changed makes
	// the bundled stdio server change its add tool's description (-changed).
	manifestDir        string
	lazy, pin, changed bool
	// accept names the server whose current tools to pin (-accept),
	// taking back what pinning held out of it; it implies pin.
	accept string

	// observe is CUCA_TRACE and CUCA_METRICS_ADDR.
	observe observe.Config
	// beforeExit, if set, runs while the metrics are still served, with
	// their URL (empty when off). Tests scrape there.
	beforeExit func(metricsURL string)
}

func configFromEnv() config {
	return config{
		model:   demomodel.Target{BaseURL: os.Getenv("CUCA_BASE_URL"), Model: os.Getenv("CUCA_MODEL")},
		apiKey:  os.Getenv("CUCA_API_KEY"),
		observe: observe.FromEnv(),
	}
}

// usage is the text of -h, before the flags.
const usage = `Usage: toolbox [flags] [mcp.json]

Opens every enabled server of an mcp.json (the bundled demo file when none
is given) as one toolbox and prints one line per server: its name, its
transport, its state (ready, failed, ...) and, when it is not ready, why;
under each, its tools by exposed name with their descriptions.

With -tool-search the toolbox defers its tools behind one search tool:
the demo's first request carries only that tool, the model searches, and
the tools it found join the second request, where it calls add.

With -resources the toolbox gets a third server, notes, and gives the
model list_mcp_resources and read_mcp_resource: the demo's model calls the
notes server's latest_note, whose result is a link to a resource, reads
the resource the link names, and answers from it.

-manifests DIR keeps the servers' tool lists; -lazy starts a server whose
list is kept only when a tool of it is called; -pin holds out tools that
change after their first run (-changed makes the bundled stdio server
change one), and -accept SERVER pins the server's current tools.

With the bundled file it then runs the two-turn demo: a model (llama-server
at http://localhost:1234/v1, or a built-in scripted one when nothing answers
there; CUCA_BASE_URL, CUCA_MODEL and CUCA_API_KEY retarget it) calls an add
tool through the toolbox, and a second turn answers from the result.

Exit status: 0 when every enabled server is ready or reported with its
reason; 1 for a file that cannot be read or parsed, with -strict when a
server is not ready, with -call when the call fails, or when the demo fails;
2 for bad flags.

Flags:
`

// parseArgs reads the command line into cfg. For -h it prints the usage to
// stdout and returns flag.ErrHelp; for a command line that makes no sense it
// says why on stderr and returns an error.
func parseArgs(args []string, stdout, stderr io.Writer, cfg *config) error {
	fs := flag.NewFlagSet("toolbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // -h prints the usage to stdout; a mistake, a hint to stderr
	fs.StringVar(&cfg.mcpJSON, "config", "", "the mcp.json to open (or give it as the only argument)")
	fs.BoolVar(&cfg.strict, "strict", false, "exit 1 when any enabled server is not ready")
	fs.StringVar(&cfg.call, "call", "", "call this tool (its exposed name, e.g. github__search_issues) and print what the model would read, instead of the demo")
	fs.StringVar(&cfg.args, "args", "", "the arguments of -call, a JSON object (default none)")
	fs.BoolVar(&cfg.toolSearch, "tool-search", false, "defer the tools behind one search tool: the demo's model searches first, then calls what it found")
	fs.BoolVar(&cfg.resources, "resources", false, "add the notes server and the model's resource tools: the demo's model follows a resource link")
	fs.StringVar(&cfg.manifestDir, "manifests", "", "keep each server's tool list in this directory (default: the user's cache directory when -lazy or -pin is given)")
	fs.BoolVar(&cfg.lazy, "lazy", false, "make every server lazy: once its tools are in a manifest, it starts only when a tool of it is called")
	fs.BoolVar(&cfg.pin, "pin", false, "pin the servers' tools on first use and hold out any tool that changes later")
	fs.StringVar(&cfg.accept, "accept", "", "pin this server's current tools, accepting what changed since they were pinned (implies -pin)")
	fs.BoolVar(&cfg.changed, "changed", false, "make the bundled stdio server change its add tool's description, as a server that turns on its users would")
	demo := fs.Bool("demo", false, "run the two-turn demo on a file of your own too (it needs a tool whose name ends in add)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage)
			fs.PrintDefaults()
			return err
		}
		fmt.Fprintln(stderr, hint)
		return err
	}
	switch rest := fs.Args(); {
	case len(rest) > 1:
		return usageError(fs, "at most one mcp.json, got %d arguments", len(rest))
	case len(rest) == 1 && cfg.mcpJSON != "" && rest[0] != cfg.mcpJSON:
		return usageError(fs, "two files: -config %s and %s", cfg.mcpJSON, rest[0])
	case len(rest) == 1:
		cfg.mcpJSON = rest[0]
	}
	if cfg.args != "" && cfg.call == "" {
		return usageError(fs, "-args needs -call")
	}
	if cfg.args != "" {
		// Checked here, before any server starts, not by the call.
		if err := checkArgs(cfg.args); err != nil {
			return usageError(fs, "-args: %v", err)
		}
	}
	cfg.demo = cfg.call == "" && (cfg.mcpJSON == "" || *demo)
	return nil
}

// checkArgs says what is wrong with -args, which must be one JSON object.
func checkArgs(args string) error {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(args))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			return fmt.Errorf("not valid JSON (%v at byte %d): %s", err, syntax.Offset, args)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("not valid JSON (it ends early): %s", args)
		}
		return fmt.Errorf("not a JSON object, such as {\"a\":1}: %s", args)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value: %s", args)
	}
	return nil
}

// hint follows every complaint about the command line.
const hint = "Run toolbox -h for the flags."

// errUsage marks a command line that makes no sense: exit status 2.
var errUsage = errors.New("usage")

func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "toolbox: "+format+"\n", args...)
	fmt.Fprintln(fs.Output(), hint)
	return errUsage
}

func main() {
	demoserver.ServeAddIfAsked()
	cfg := configFromEnv()
	switch err := parseArgs(os.Args[1:], os.Stdout, os.Stderr, &cfg); {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolbox example:", err)
		os.Exit(1)
	}
}

// run is the example: open every server of the mcp.json as one toolbox and
// list them; then call the one tool of -call, or let the model call an add
// tool and ask again with the server's answer in the prompt.
func run(ctx context.Context, out io.Writer, cfg config) error {
	stopDemoServers, err := startDemoServers()
	if err != nil {
		return err
	}
	defer stopDemoServers()

	unset, err := setChanged(cfg.changed)
	if err != nil {
		return err
	}
	// The file first, so that a mistake in it is the only thing said.
	servers, source, err := loadServers(cfg.mcpJSON)
	unset()
	if err != nil {
		return err
	}
	if cfg.resources {
		addNotesServer(servers) // resources.go
	}
	if cfg.accept != "" {
		if s := servers.Servers[cfg.accept]; s == nil || s.Disabled {
			return fmt.Errorf("-accept: %s has no enabled server %q", source, cfg.accept)
		}
	}

	var endpoint *demomodel.Endpoint
	if cfg.demo {
		if endpoint, err = demomodel.Choose(ctx, out, cfg.model); err != nil {
			return err
		}
		defer endpoint.Close()
	}

	tel, err := observe.Start(cfg.observe, out)
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	if tel.MetricsURL != "" {
		fmt.Fprintf(out, "Metrics for Prometheus at %s while the example runs\n", tel.MetricsURL)
	}

	// A server that fails to connect does not fail Open: Status reports it
	// and it keeps being retried while the story runs. The telemetry
	// options reach every server's plugin.
	opts := []toolbox.Option{toolbox.WithPluginOptions(
		plugin.WithTracerProvider(tel.TracerProvider), plugin.WithMeterProvider(tel.MeterProvider))}
	if cfg.toolSearch {
		opts = append(opts, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	}
	if cfg.resources {
		opts = append(opts, toolbox.WithResourceTools())
	}
	opts = append(opts, lifecycleOptions(cfg, servers)...)
	tb, err := toolbox.Open(ctx, servers, opts...)
	if err != nil {
		return fmt.Errorf("open the toolbox: %w", err)
	}
	// Deferred after stopDemoServers, so run first: the toolbox lets go of
	// the HTTP server before it shuts down.
	defer tb.Close()
	if cfg.beforeExit != nil {
		defer cfg.beforeExit(tel.MetricsURL)
	}

	if cfg.accept != "" {
		if err := tb.AcceptTools(cfg.accept); err != nil {
			return fmt.Errorf("-accept: %w", err)
		}
		fmt.Fprintf(out, "Accepted the current tools of %s: pinned again\n\n", cfg.accept)
	}
	printServers(out, source, servers, tb)
	if cfg.strict {
		if down := notReady(servers, tb); len(down) > 0 {
			return fmt.Errorf("-strict: not ready: %s", strings.Join(down, ", "))
		}
	}
	if cfg.call != "" {
		return callOne(ctx, out, tb, servers, cfg.call, cfg.args)
	}
	if !cfg.demo {
		return nil
	}

	if cfg.lazy {
		defer printAfter(out, servers, tb)
	}
	if cfg.resources {
		return resourceStory(ctx, out, endpoint, cfg.apiKey, tb)
	}
	if cfg.toolSearch {
		return searchStory(ctx, out, endpoint, cfg.apiKey, tb)
	}
	c, err := client.New(
		client.WithProvider(client.LlamaCpp),
		client.WithBaseURL(endpoint.BaseURL),
		client.WithModel(endpoint.Model),
		client.WithAPIKey(cfg.apiKey),
		client.WithPlugin(tb),
	)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 1: the model calls an MCP tool, the toolbox routes the call to its server")
	req := host.NewRequest(endpoint.Model).
		AddMessage(host.RoleUser, host.Text{Text: question + " Use the add tool."})
	for _, d := range tb.ToolDefinitions() {
		req.AddTool(d)
	}
	// The turn's span is the parent of the plugin's tools/call span.
	turnCtx, turn := tel.Tracer.Start(ctx, "turn 1")
	res, err := c.Stream(turnCtx, req)
	turn.End()
	if err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}
	answer, server, err := toolAnswer(out, res, tb)
	fmt.Fprintf(out, "  thinking blocks: %d\n", res.ThinkingBlocks)
	if err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 2: the same question, with the server's answer in the prompt")
	req = host.NewRequest(endpoint.Model).AddMessage(host.RoleUser, host.Text{Text: fmt.Sprintf(
		"%s The add tool on the MCP server %q answered %q. Reply in one sentence.", question, server, answer)})
	res, err = c.Stream(ctx, req)
	if err != nil {
		return fmt.Errorf("turn 2: %w", err)
	}
	label := "reply"
	if endpoint.Scripted {
		label = "reply (scripted)"
	}
	fmt.Fprintf(out, "  %s: %s\n", label, strings.TrimSpace(res.Text()))
	fmt.Fprintf(out, "  thinking blocks: %d\n", res.ThinkingBlocks)
	return nil
}

// loadServers reads the mcp.json at path, or the bundled one when path is
// empty, and returns it with the name the output gives it.
func loadServers(path string) (*mcpconfig.Config, string, error) {
	if path == "" {
		servers, err := mcpconfig.Parse(bundledConfig)
		if err != nil {
			return nil, "", fmt.Errorf("bundled %s: %w", bundledName, err)
		}
		return servers, bundledName, nil
	}
	servers, err := mcpconfig.Load(path, mcpconfig.WithStrict()) // a broken entry fails the run, as documented
	if err != nil {
		return nil, "", err
	}
	return servers, path, nil
}

// callOne calls the tool exposed as name with args through the toolbox's
// hook, as a model's tool call would go, and prints what the model would
// read; for a lazy server, its line again after the call, with the state
// the call left it in. A name no server exposes, a tool pinning holds out
// (saying what changed and how to accept it) and a call that fails are
// errors.
func callOne(ctx context.Context, out io.Writer, tb *toolbox.Toolbox, servers *mcpconfig.Config, name, args string) error {
	server := ""
	for _, t := range tb.Tools() {
		if t.Name == name {
			server = t.Server
		}
	}
	if server == "" {
		if h, ok := heldOut(tb, name); ok {
			return heldOutError(h)
		}
		return fmt.Errorf("-call: no server of the toolbox exposes a tool %q", name)
	}
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "call_1", Name: name, Arguments: raw}}}
	if err := tb.OnStreamChunk(ctx, chunk); err != nil {
		return err
	}
	res, ok := chunk.Blocks[0].(host.ToolResult)
	if !ok {
		return fmt.Errorf("-call: the toolbox left %q uncalled", name)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "Called %s: what the model reads\n", name)
	fmt.Fprintln(out, res.Content)
	if servers.Servers[server].Lazy {
		// The listing said "not started"; say what the call made of it.
		fmt.Fprintln(out)
		fmt.Fprintln(out, "After the call:")
		fmt.Fprintln(out, newServerLines(servers).line(server, tb.Status()[server], len(toolsByServer(tb)[server]), tb.ProtocolVersion(server)))
	}
	if res.IsError {
		// A lazy server's start can show that a pinned tool has changed.
		if h, ok := heldOut(tb, name); ok {
			return heldOutError(h)
		}
		return fmt.Errorf("-call: %s failed", name)
	}
	return nil
}

// heldOut finds the tool exposed as name among those pinning holds out.
func heldOut(tb *toolbox.Toolbox, name string) (toolbox.HeldTool, bool) {
	for _, h := range tb.HeldTools() {
		if h.Name == name {
			return h, true
		}
	}
	return toolbox.HeldTool{}, false
}

// heldOutError says that the tool h is held out, what changed, and how to
// accept it.
func heldOutError(h toolbox.HeldTool) error {
	what := "is new since the tools were pinned"
	if !h.New {
		what = "changed since it was pinned (" + strings.Join(h.Changed, ", ") + ")"
	}
	return fmt.Errorf("-call: %s is held out: tool %q of server %q %s; to accept the server's current tools, run the same command with -accept %s",
		h.Name, h.Tool, h.Server, what, h.Server)
}
