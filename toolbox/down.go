package toolbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
)

// ErrServerDown is wrapped by the error of a call to a name that no
// server exposes now but that carries the tool prefix of a server whose
// tools are absent because it is not ready (it failed to start, is
// failed, or is still connecting): the error says the server is down, in
// which state, and why (its last error, which errors.Is and errors.As
// reach too). It wraps [ErrUnknownTool] as well: no server exposes the
// name now. The model reads the same sentence as the call's result.
var ErrServerDown = errors.New("toolbox: the tool's server is down")

// downPrefix is a server with no tool in a route table, and the start
// its tools' exposed names would have: a call to a name that starts so
// is that server's.
type downPrefix struct {
	prefix string
	server *server
}

// setDown records in rt the servers with no route in it, by prefix: a
// call to one of their names is answered as the server being down (when
// it is not ready then). A server whose prefix is empty is left out: no
// name can be told to be its.
func (t *Toolbox) setDown(rt *routeTable) {
	has := map[*server]bool{}
	for _, r := range rt.byName {
		has[r.server] = true
	}
	for _, r := range rt.denied {
		has[r.server] = true
	}
	for _, name := range t.names {
		s := t.servers[name]
		if has[s] {
			continue
		}
		prefix := serverrules.ToolPrefix(s.cfg)
		if prefix == "" {
			continue
		}
		prefix = exposedName(prefix, "")
		if len(prefix) > maxNameLength-hashSuffixLength {
			prefix = prefix[:maxNameLength-hashSuffixLength] // a long name is cut there
		}
		rt.down = append(rt.down, downPrefix{prefix: prefix, server: s})
	}
}

// downError is the error of a call to name when it carries the prefix
// of a server of rt with no tools in it that is not ready now (the
// longest such prefix wins); nil otherwise.
func (t *Toolbox) downError(rt *routeTable, name string) error {
	if len(rt.down) == 0 {
		return nil
	}
	var found *downPrefix
	for i := range rt.down {
		d := &rt.down[i]
		if strings.HasPrefix(name, d.prefix) && (found == nil || len(d.prefix) > len(found.prefix)) {
			found = d
		}
	}
	if found == nil {
		return nil
	}
	t.mu.Lock()
	st := t.statusOf(found.server)
	t.mu.Unlock()
	if (st.State == actors.Ready || st.State == actors.NotStarted) && st.LastError == nil {
		return nil // up with no such tool, or lazy and not started: an unknown name
	}
	if st.State == actors.Ready {
		st.State = actors.Failed // held out whole (a name collision)
	}
	srv := found.server.cfg.Name
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", srv), Op: messages.CallOp(name),
		Err: &serverDown{server: srv, tool: name, state: st.State, cause: st.LastError}}
}

// serverDown is why a call to a down server's tool is not sent.
type serverDown struct {
	server, tool string
	state        actors.State
	cause        error
}

func (e *serverDown) Error() string {
	msg := fmt.Sprintf("server %q is down (%s), so its tool %q cannot be called now", e.server, e.state, e.tool)
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

func (e *serverDown) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrServerDown, ErrUnknownTool}
	}
	return []error{ErrServerDown, ErrUnknownTool, e.cause}
}

// firstDown is the index of the first call of blocks that downError
// answers, -1 if none.
func (t *Toolbox) firstDown(rt *routeTable, blocks []host.Block) int {
	if len(rt.down) == 0 {
		return -1
	}
	for i, b := range blocks {
		if tc, ok := b.(host.ToolCall); ok {
			if _, known := rt.hooks[tc.Name]; !known && t.downError(rt, tc.Name) != nil {
				return i
			}
		}
	}
	return -1
}

// downResult is the result of a call of a down server's tool: the
// sentence saying so, for the model.
func downResult(tc host.ToolCall, err error) host.ToolResult {
	var down *serverDown
	text := err.Error()
	if errors.As(err, &down) {
		text = down.Error()
	}
	return host.ToolResult{ToolCallID: tc.ID, Name: tc.Name, Content: text, IsError: true}
}
