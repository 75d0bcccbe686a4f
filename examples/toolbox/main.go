package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/examples/internal/demomodel"
	"github.com/cuca-go/mcpconnector/examples/internal/demoserver"
	"github.com/cuca-go/mcpconnector/examples/internal/observe"
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
	// mcpJSON is the path of the mcp.json to run, the first argument;
	// empty means the bundled one.
	mcpJSON string

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

func main() {
	demoserver.ServeAddIfAsked()
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: toolbox [mcp.json]")
		os.Exit(2)
	}

	cfg := configFromEnv()
	if len(os.Args) == 2 {
		cfg.mcpJSON = os.Args[1]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolbox example:", err)
		os.Exit(1)
	}
}

// run is the example: open every server of the mcp.json as one toolbox, let
// the model call an add tool, then ask again with the server's answer in
// the prompt.
func run(ctx context.Context, out io.Writer, cfg config) error {
	stopDemoServers, err := startDemoServers()
	if err != nil {
		return err
	}
	defer stopDemoServers()

	// The file first, so that a mistake in it is the only thing said.
	servers, source, err := loadServers(cfg.mcpJSON)
	if err != nil {
		return err
	}

	endpoint, err := demomodel.Choose(ctx, out, cfg.model)
	if err != nil {
		return err
	}
	defer endpoint.Close()

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
	tb, err := toolbox.Open(ctx, servers, toolbox.WithPluginOptions(tel.Options...))
	if err != nil {
		return fmt.Errorf("open the toolbox: %w", err)
	}
	// Deferred after stopDemoServers, so run first: the toolbox lets go of
	// the HTTP server before it shuts down.
	defer tb.Close()
	if cfg.beforeExit != nil {
		defer cfg.beforeExit(tel.MetricsURL)
	}

	printServers(out, source, servers, tb)

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
	req := plugin.NewRequest(endpoint.Model).
		AddMessage(plugin.RoleUser, plugin.Text{Text: question + " Use the add tool."})
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
	req = plugin.NewRequest(endpoint.Model).AddMessage(plugin.RoleUser, plugin.Text{Text: fmt.Sprintf(
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
func loadServers(path string) (*toolbox.Config, string, error) {
	if path == "" {
		servers, err := toolbox.ParseConfig(bundledConfig)
		if err != nil {
			return nil, "", fmt.Errorf("bundled %s: %w", bundledName, err)
		}
		return servers, bundledName, nil
	}
	servers, err := toolbox.LoadConfig(path)
	if err != nil {
		return nil, "", err
	}
	return servers, path, nil
}
