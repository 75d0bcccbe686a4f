package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/examples/demomodel"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// searchStory is the demo with tool search on: the host adds no tool
// definitions itself; the toolbox's OnRequest puts the search tool (and,
// once found, the tools it loaded) into each request.
func searchStory(ctx context.Context, out io.Writer, endpoint *demomodel.Endpoint, apiKey string, tb *toolbox.Toolbox) error {
	// Registered after the toolbox, it sees each request as the model will.
	seen := &requestTools{}
	c, err := client.New(
		client.WithProvider(client.LlamaCpp),
		client.WithBaseURL(endpoint.BaseURL),
		client.WithModel(endpoint.Model),
		client.WithAPIKey(apiKey),
		client.WithPlugin(tb),
		client.WithPlugin(seen),
	)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 1: the request carries only the search tool; the model searches")
	req := host.NewRequest(endpoint.Model).
		AddMessage(host.RoleUser, host.Text{Text: question + " Use the add tool."})
	res, err := c.Stream(ctx, req)
	if err != nil {
		return fmt.Errorf("turn 1: %w", err)
	}
	fmt.Fprintf(out, "  tools in the request: %s\n", strings.Join(seen.names, ", "))
	results := res.ToolResults()
	if len(results) == 0 || results[0].Name != demomodel.SearchToolName {
		return fmt.Errorf("turn 1: the model did not search: %q", strings.TrimSpace(res.Text()))
	}
	fmt.Fprintf(out, "  %s answered:\n", results[0].Name)
	for line := range strings.Lines(results[0].Content) {
		fmt.Fprintf(out, "    %s\n", strings.TrimSuffix(line, "\n"))
	}

	fmt.Fprintln(out)
	fmt.Fprintln(out, "Turn 2: the tools it found join the request; the model calls add")
	req = host.NewRequest(endpoint.Model)
	req.Messages = append(append(req.Messages, host.Message{Role: host.RoleUser,
		Blocks: []host.Block{host.Text{Text: question + " Use the add tool."}}}), res.Messages()...)
	res, err = c.Stream(ctx, req)
	if err != nil {
		return fmt.Errorf("turn 2: %w", err)
	}
	fmt.Fprintf(out, "  tools in the request: %s\n", strings.Join(seen.names, ", "))
	_, _, err = toolAnswer(out, res, tb)
	return err
}

// requestTools records the tool names of the latest request it saw.
type requestTools struct {
	host.Base
	names []string
}

func (r *requestTools) Name() string { return "request-tools" }

func (r *requestTools) OnRequest(_ context.Context, req *host.Request) error {
	r.names = r.names[:0]
	for _, d := range req.Tools {
		r.names = append(r.names, d.Name)
	}
	return nil
}
