package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// printServers lists the toolbox's tools by server, in the file's servers'
// name order, and says why a server has none: disabled in the file, or not
// ready, with its error.
func printServers(out io.Writer, source string, servers *toolbox.Config, tb *toolbox.Toolbox) {
	names := servers.Names()
	noun := "servers"
	if len(names) == 1 {
		noun = "server"
	}
	fmt.Fprintf(out, "Discovered from %s (%d %s):\n", source, len(names), noun)

	tools := map[string][]toolbox.Tool{}
	for _, t := range tb.Tools() {
		tools[t.Server] = append(tools[t.Server], t)
	}
	status := tb.Status()
	for _, name := range names {
		s := servers.Servers[name]
		fmt.Fprintf(out, "  %s (%s):\n", name, s.Type)
		if s.Disabled {
			fmt.Fprintln(out, "    disabled in the file")
			continue
		}
		if st := status[name]; st.State != plugin.StateReady {
			line := "    status: " + st.State.String()
			if st.LastError != nil {
				line += ": " + st.LastError.Error()
			}
			fmt.Fprintln(out, line)
		}
		for _, t := range tools[name] {
			fmt.Fprintf(out, "    %s: %s\n", t.Name, t.Tool.Description)
		}
		if len(tools[name]) == 0 && status[name].State == plugin.StateReady {
			fmt.Fprintln(out, "    no tools")
		}
	}
}

// toolAnswer prints what became of the model's tool call and returns the MCP
// server's answer and the name of the server that gave it.
func toolAnswer(out io.Writer, res *client.Result, tb *toolbox.Toolbox) (answer, server string, err error) {
	serverOf := map[string]string{}
	for _, t := range tb.Tools() {
		serverOf[t.Name] = t.Server
	}
	// The first tool result (or, failing that, the first call no server
	// took) is the turn's outcome.
	if results := res.ToolResults(); len(results) > 0 {
		r := results[0]
		server = serverOf[r.Name]
		if r.IsError {
			fmt.Fprintf(out, "  tool error from the MCP server: %q (server %q)\n", r.Content, server)
			return "", server, fmt.Errorf("the %s tool failed: %s", r.Name, r.Content)
		}
		fmt.Fprintf(out, "  tool result from the MCP server: %q (server %q)\n", r.Content, server)
		return r.Content, server, nil
	}
	if calls := res.PendingToolCalls(); len(calls) > 0 {
		call := calls[0]
		fmt.Fprintf(out, "  the model called %q, which no server of the toolbox offers (arguments %s)\n", call.Name, call.Arguments)
		return "", "", fmt.Errorf("the model called the unknown tool %q", call.Name)
	}
	fmt.Fprintf(out, "  the model answered without calling a tool: %q\n", strings.TrimSpace(res.Text()))
	return "", "", errors.New("the model did not call an add tool")
}
