package main

import (
	"context"
	"errors"
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
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// question is asked on both turns.
const question = "What is 21 + 21?"

// config is what the environment can change.
type config struct {
	// baseURL is CUCA_BASE_URL: an OpenAI-compatible base URL, used as is,
	// or "scripted". Empty means defaultBaseURL, falling back to the
	// scripted endpoint if nothing answers there (see demomodel.Target).
	baseURL string
	// model is CUCA_MODEL; empty means demomodel.DefaultModel.
	model string
	// apiKey is CUCA_API_KEY, sent as a bearer token; empty sends none.
	apiKey string

	// defaultBaseURL is probed when baseURL is empty; empty means
	// client.LlamaCppBaseURL. Tests point it at a closed port.
	defaultBaseURL string
	// script is the scripted endpoint's behaviour; nil means the default.
	script *demomodel.Scripted
	// serverCommand and serverArgs start the MCP server; an empty command
	// means this executable with demoserver.AddFlag.
	serverCommand string
	serverArgs    []string

	// observe is CUCA_TRACE and CUCA_METRICS_ADDR.
	observe observe.Config
	// beforeExit, if set, runs while the metrics are still served, with
	// their URL (empty when off). Tests scrape there.
	beforeExit func(metricsURL string)
}

func configFromEnv() config {
	return config{
		baseURL: os.Getenv("CUCA_BASE_URL"),
		model:   os.Getenv("CUCA_MODEL"),
		apiKey:  os.Getenv("CUCA_API_KEY"),
		observe: observe.FromEnv(),
	}
}

func main() {
	demoserver.ServeAddIfAsked()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, configFromEnv())
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp example:", err)
		os.Exit(1)
	}
}

// run is the example: connect to the add server, let the model call add,
// then ask again with the server's answer in the prompt.
func run(ctx context.Context, out io.Writer, cfg config) error {
	endpoint, err := demomodel.Choose(ctx, out, demomodel.Target{
		BaseURL: cfg.baseURL, Model: cfg.model, DefaultBaseURL: cfg.defaultBaseURL, Script: cfg.script,
	})
	if err != nil {
		return err
	}
	defer endpoint.Close()
	baseURL, model := endpoint.BaseURL, endpoint.Model

	command, args := cfg.serverCommand, cfg.serverArgs
	if command == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find this executable to run it as the MCP server: %w", err)
		}
		command, args = exe, []string{demoserver.AddFlag}
	}
	tel, err := observe.Start(cfg.observe, out)
	if err != nil {
		return err
	}
	defer func() { _ = tel.Shutdown(context.Background()) }()
	if tel.MetricsURL != "" {
		fmt.Fprintf(out, "Metrics for Prometheus at %s while the example runs\n", tel.MetricsURL)
	}

	// plugin.ConnectStdio(ctx, command) runs a command with no arguments;
	// the re-executed binary needs its flag, so the transport is spelled out.
	// Nil providers (CUCA_TRACE and CUCA_METRICS_ADDR unset) record nothing.
	mcpPlugin, err := plugin.Connect(ctx, transport.NewStdio(command, args...),
		plugin.WithTracerProvider(tel.TracerProvider), plugin.WithMeterProvider(tel.MeterProvider))
	if err != nil {
		return fmt.Errorf("connect to the MCP server: %w", err)
	}
	defer mcpPlugin.Close()
	if cfg.beforeExit != nil {
		defer cfg.beforeExit(tel.MetricsURL)
	}

	fmt.Fprintln(out, "Discovered over stdio, from tools/list:")
	for _, t := range mcpPlugin.Tools() {
		fmt.Fprintf(out, "  %s: %s\n", t.Name, t.Description)
	}

	c, err := client.New(
		client.WithProvider(client.LlamaCpp),
		client.WithBaseURL(baseURL),
		client.WithModel(model),
		client.WithAPIKey(cfg.apiKey),
		client.WithPlugin(mcpPlugin),
	)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 1: the model calls the MCP tool, the child process answers")
	req := host.NewRequest(model).
		AddMessage(host.RoleUser, host.Text{Text: question + " Use the add tool."})
	for _, d := range mcpPlugin.ToolDefinitions() {
		req.AddTool(d)
	}
	// The turn's span is the parent of the plugin's tools/call span.
	turnCtx, turn := tel.Tracer.Start(ctx, "turn 1")
	res, err := c.Stream(turnCtx, req)
	turn.End()
	if err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}
	answer, err := toolAnswer(out, res)
	fmt.Fprintf(out, "  thinking blocks: %d\n", res.ThinkingBlocks)
	if err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 2: the same question, with the server's answer in the prompt")
	req = host.NewRequest(model).AddMessage(host.RoleUser, host.Text{Text: fmt.Sprintf(
		"%s The add tool on the MCP server answered %q. Reply in one sentence.", question, answer)})
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

// toolAnswer prints what became of the model's tool call and returns the MCP
// server's answer.
func toolAnswer(out io.Writer, res *client.Result) (string, error) {
	// The first tool result (or, failing that, the first call no server
	// took) is the turn's outcome.
	if results := res.ToolResults(); len(results) > 0 {
		r := results[0]
		if r.IsError {
			fmt.Fprintf(out, "  tool error from the MCP server: %q\n", r.Content)
			return "", fmt.Errorf("the %s tool failed: %s", r.Name, r.Content)
		}
		fmt.Fprintf(out, "  tool result from the MCP server: %q\n", r.Content)
		return r.Content, nil
	}
	if calls := res.PendingToolCalls(); len(calls) > 0 {
		call := calls[0]
		fmt.Fprintf(out, "  the model called %q, which the MCP server does not offer (arguments %s)\n", call.Name, call.Arguments)
		return "", fmt.Errorf("the model called the unknown tool %q", call.Name)
	}
	fmt.Fprintf(out, "  the model answered without calling a tool: %q\n", strings.TrimSpace(res.Text()))
	return "", errors.New("the model did not call the add tool")
}
