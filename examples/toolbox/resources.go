package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/examples/demomodel"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// notesServer is the name -resources gives the notes server.
const notesServer = "notes"

// noteQuestion is what the -resources demo asks.
const noteQuestion = "What does the latest note say?"

// addNotesServer adds the notes server this process serves
// (demoserver.NewNotesServer, at ${MCP_DEMO_NOTES_URL}) to servers.
func addNotesServer(servers *mcpconfig.Config) {
	if servers.Servers == nil {
		servers.Servers = map[string]*mcpconfig.Server{}
	}
	servers.Servers[notesServer] = &mcpconfig.Server{Name: notesServer, Type: mcpconfig.TypeHTTP, URL: os.Getenv(notesURLVar)}
}

// resourceStory is the demo with -resources: the notes server's tool
// answers with a resource link, which the toolbox renders with the tool
// and server that read it; the model follows it with read_mcp_resource,
// which the toolbox answers itself, and replies from what it read. Each
// turn is one request, carrying the turns before it.
func resourceStory(ctx context.Context, out io.Writer, endpoint *demomodel.Endpoint, apiKey string, tb *toolbox.Toolbox) error {
	c, err := client.New(
		client.WithProvider(client.LlamaCpp),
		client.WithBaseURL(endpoint.BaseURL),
		client.WithModel(endpoint.Model),
		client.WithAPIKey(apiKey),
		client.WithPlugin(tb),
	)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()

	history := []host.Message{{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: noteQuestion}}}}
	turn := func(n int, title string) (*client.Result, error) {
		fmt.Fprintln(out)
		fmt.Fprintf(out, "Turn %d: %s\n", n, title)
		req := host.NewRequest(endpoint.Model)
		req.Messages = append(req.Messages, history...)
		for _, d := range tb.ToolDefinitions() {
			req.AddTool(d)
		}
		res, err := c.Stream(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", n, err)
		}
		history = append(history, res.Messages()...)
		return res, nil
	}

	res, err := turn(1, "the model calls the notes tool; its result links to a resource")
	if err != nil {
		return err
	}
	if err := printToolResult(out, res, notesServer+"__"+demomodel.NoteToolSuffix); err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}
	res, err = turn(2, "the model follows the link with "+demomodel.ReadToolName)
	if err != nil {
		return err
	}
	if err := printToolResult(out, res, demomodel.ReadToolName); err != nil {
		return fmt.Errorf("turn 2: %w", err)
	}
	res, err = turn(3, "the model answers from what it read")
	if err != nil {
		return err
	}
	label := "reply"
	if endpoint.Scripted {
		label = "reply (scripted)"
	}
	fmt.Fprintf(out, "  %s: %s\n", label, strings.TrimSpace(res.Text()))
	return nil
}

// printToolResult prints the turn's result of the tool name, or says what
// the model did instead.
func printToolResult(out io.Writer, res *client.Result, name string) error {
	for _, r := range res.ToolResults() {
		if r.Name != name {
			continue
		}
		fmt.Fprintf(out, "  %s answered:\n", r.Name)
		for line := range strings.Lines(r.Content) {
			fmt.Fprintf(out, "    %s\n", strings.TrimSuffix(line, "\n"))
		}
		if r.IsError {
			return fmt.Errorf("%s failed: %s", r.Name, r.Content)
		}
		return nil
	}
	if calls := res.PendingToolCalls(); len(calls) > 0 {
		return fmt.Errorf("the model called %q, which no server offers", calls[0].Name)
	}
	return fmt.Errorf("the model did not call %s: %q", name, strings.TrimSpace(res.Text()))
}
