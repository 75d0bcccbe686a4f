package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// descWidth is the column at which tool descriptions wrap.
const descWidth = 76

// printServers prints one aligned line per server of the file, in name
// order: its name, its transport, its state as [actors.State] prints it
// ("disabled" for a server the file disables) and, when it is not ready,
// why. Under each ready server, its tools by exposed name, each description
// indented and wrapped.
func printServers(out io.Writer, source string, servers *mcpconfig.Config, tb *toolbox.Toolbox) {
	names := servers.Names()
	noun := "servers"
	if len(names) == 1 {
		noun = "server"
	}
	fmt.Fprintf(out, "Discovered from %s (%d %s):\n", source, len(names), noun)

	tools := toolsByServer(tb)
	held := map[string][]toolbox.HeldTool{}
	for _, h := range tb.HeldTools() {
		held[h.Server] = append(held[h.Server], h)
	}
	status := tb.Status()
	lines := newServerLines(servers)
	for _, name := range names {
		fmt.Fprintln(out, lines.line(name, status[name], len(tools[name]), tb.ProtocolVersion(name)))
		for _, t := range tools[name] {
			fmt.Fprintf(out, "    %s\n", t.Name)
			for _, l := range wrap(t.Tool.Description, descWidth-6) {
				fmt.Fprintf(out, "      %s\n", l)
			}
		}
		for _, h := range held[name] {
			fmt.Fprintf(out, "    %s  held out: %s\n", h.Name, heldWhy(h))
		}
	}
}

// toolsByServer is the toolbox's exposed tools by server name.
func toolsByServer(tb *toolbox.Toolbox) map[string][]toolbox.Tool {
	tools := map[string][]toolbox.Tool{}
	for _, t := range tb.Tools() {
		tools[t.Server] = append(tools[t.Server], t)
	}
	return tools
}

// serverLines prints the servers' lines of a file, aligned on its longest
// name and transport.
type serverLines struct {
	servers      *mcpconfig.Config
	nameW, typeW int
}

func newServerLines(servers *mcpconfig.Config) serverLines {
	l := serverLines{servers: servers}
	for _, name := range servers.Names() {
		l.nameW = max(l.nameW, len(name))
		l.typeW = max(l.typeW, len(servers.Servers[name].Type))
	}
	return l
}

// currentRevision is the MCP revision a server speaks without the legacy
// fallback; the ready line names any other.
const currentRevision = "2026-07-28"

// line is the server's line: its name, its transport, its state (st, with
// its tool count when ready or known from a manifest, "disabled" for a
// server the file disables) and, when it is not ready, why. A server
// started at an older revision ("legacyFallback": true) says which:
// "ready (8 tools, MCP 2025-11-25)".
func (l serverLines) line(name string, st plugin.Status, tools int, revision string) string {
	s := l.servers.Servers[name]
	state, reason := "disabled", "in the file"
	if !s.Disabled {
		state, reason = st.State.String(), ""
		if st.LastError != nil {
			reason = st.LastError.Error()
		}
		switch st.State {
		case actors.Ready:
			count := toolCount(tools)
			if revision != "" && revision != currentRevision {
				count += ", MCP " + revision
			}
			state, reason = state+" ("+count+")", ""
		case actors.NotStarted:
			// A lazy server: its tools are known from its manifest.
			state, reason = state+" ("+toolCount(tools)+" from its manifest)", ""
		}
	}
	line := fmt.Sprintf("  %-*s  %-*s  %s", l.nameW, name, l.typeW, s.Type, state)
	if reason != "" {
		line += ": " + reason
	}
	return line
}

// heldWhy says why pinning holds a tool out.
func heldWhy(h toolbox.HeldTool) string {
	if h.New {
		return "new since the tools were pinned"
	}
	return "changed since it was pinned (" + strings.Join(h.Changed, ", ") + ")"
}

func toolCount(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

// notReady names the enabled servers that are not ready.
func notReady(servers *mcpconfig.Config, tb *toolbox.Toolbox) []string {
	var down []string
	status := tb.Status()
	for _, name := range tb.Servers() {
		if status[name].State != actors.Ready {
			down = append(down, name)
		}
	}
	return down
}

// wrap breaks text into lines of at most width columns, at spaces: each of
// its own lines is a paragraph whose runs of white space become one space;
// blank lines are kept, once. A word longer than width has a line of its
// own.
func wrap(text string, width int) []string {
	var out []string
	blank := false
	for _, para := range strings.Split(strings.TrimSpace(text), "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		line := words[0]
		for _, w := range words[1:] {
			if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
				out = append(out, line)
				line = w
				continue
			}
			line += " " + w
		}
		out = append(out, line)
	}
	return out
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
