package toolbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/plugin"
)

// ErrNameCollision is wrapped by the error of two tools that would be
// exposed under the same name: at Open it fails Open, later it keeps the
// late server's tools out (see [Toolbox.Status]).
var ErrNameCollision = errors.New("toolbox: two tools have the same exposed name")

// ErrUnknownTool is wrapped by the error of a call to a name that no
// server exposes.
var ErrUnknownTool = errors.New("toolbox: no server exposes this tool")

// routeTable is the read-only map from exposed names to servers that the
// hooks consult without a lock; a change of any server's tools swaps in a
// new one.
type routeTable struct {
	byName map[string]*route
	tools  []Tool                  // sorted by exposed name
	defs   []plugin.ToolDefinition // in the same order
}

// route is where an exposed name goes: a server, and the tool's own name
// there.
type route struct {
	server *server
	tool   string
}

func (r *routeTable) definitions() []plugin.ToolDefinition { return r.defs }

// openTable builds the first table; any collision fails Open.
func (t *Toolbox) openTable() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if errs := t.rebuild(true); len(errs) > 0 {
		return errors.Join(errs...)
	}
	t.opened = true
	return nil
}

// rebuild makes a new route table from every server's current tools and
// swaps it in. Servers already admitted keep their names, in the order they
// came; a server whose tools would collide with theirs is held out whole,
// with the collision as its status. It returns the collisions. Called with
// t.mu held.
func (t *Toolbox) rebuild(opening bool) []error {
	order := make([]*server, 0, len(t.servers))
	for _, name := range t.names {
		if s := t.servers[name]; s.plugin != nil {
			order = append(order, s)
		}
	}
	// Admitted servers first, by turn; the rest by name (t.names is sorted
	// and the sort is stable).
	slices.SortStableFunc(order, func(a, b *server) int {
		return cmp.Compare(turn(a), turn(b))
	})

	rt := &routeTable{byName: map[string]*route{}}
	var errs []error
	for _, s := range order {
		tools := s.plugin.Tools()
		defs := s.plugin.ToolDefinitions() // sorted like tools
		mine := map[string]*route{}
		var clash error
		for i, tool := range tools {
			if !s.cfg.AllowsTool(tool.Name) {
				continue
			}
			exposed := ExposedName(s.cfg.ToolPrefix(), tool.Name)
			other, dup := mine[exposed]
			if !dup {
				other, dup = rt.byName[exposed]
			}
			if dup {
				clash = collision(exposed, other, &route{s, tool.Name})
				break
			}
			r := &route{s, tool.Name}
			mine[exposed] = r
			def := defs[i]
			def.Name = exposed
			rt.tools = append(rt.tools, Tool{Name: exposed, Server: s.cfg.Name, Tool: tool})
			rt.defs = append(rt.defs, def)
		}
		if clash != nil {
			// Drop what this server added to the lists before the clash.
			rt.tools, rt.defs = dropServer(rt.tools, rt.defs, s.cfg.Name)
			if s.heldOut == nil && !opening {
				t.logger.Warn("mcp server held out: tool name collision",
					zap.String("server", s.cfg.Name), zap.Error(clash))
			}
			s.heldOut = clash
			errs = append(errs, clash)
			continue
		}
		s.heldOut = nil
		for name, r := range mine {
			rt.byName[name] = r
		}
		if s.admittedAt == 0 && (len(mine) > 0 || s.plugin.Status().State == plugin.StateReady) {
			t.admitted++
			s.admittedAt = t.admitted
			if !opening {
				t.logger.Info("mcp server up; its tools appear",
					zap.String("server", s.cfg.Name), zap.Int("tools", len(mine)))
			}
		}
	}
	sortTable(rt)
	t.routes.Store(rt)
	return errs
}

// turn orders admitted servers before the others.
func turn(s *server) int {
	if s.admittedAt == 0 {
		return int(^uint(0) >> 1)
	}
	return s.admittedAt
}

func collision(exposed string, first, second *route) error {
	var msg string
	if first.server == second.server {
		msg = fmt.Sprintf("tools %q and %q of server %q are both exposed as %q",
			first.tool, second.tool, first.server.cfg.Name, exposed)
	} else {
		msg = fmt.Sprintf("%q is tool %q of server %q and tool %q of server %q",
			exposed, first.tool, first.server.cfg.Name, second.tool, second.server.cfg.Name)
	}
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", second.server.cfg.Name),
		Op: "toolbox", Err: fmt.Errorf("%w: %s", ErrNameCollision, msg)}
}

func dropServer(tools []Tool, defs []plugin.ToolDefinition, server string) ([]Tool, []plugin.ToolDefinition) {
	n := 0
	for i, tl := range tools {
		if tl.Server != server {
			tools[n], defs[n] = tl, defs[i]
			n++
		}
	}
	return tools[:n], defs[:n]
}

// sortTable orders the tools and their definitions by exposed name.
func sortTable(rt *routeTable) {
	idx := make([]int, len(rt.tools))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(rt.tools[a].Name, rt.tools[b].Name) })
	tools := make([]Tool, len(idx))
	defs := make([]plugin.ToolDefinition, len(idx))
	for i, j := range idx {
		tools[i], defs[i] = rt.tools[j], rt.defs[j]
	}
	rt.tools, rt.defs = tools, defs
}

// CallTool starts a call of the tool exposed as name and returns at once;
// args are as for [plugin.McpPlugin.CallTool]. A name no server exposes
// fails with [plugin.ErrInternal] wrapping [ErrUnknownTool] and reaches no
// server.
func (t *Toolbox) CallTool(ctx context.Context, name string, args any) *plugin.Future {
	r, ok := t.routes.Load().byName[name]
	if !ok {
		return plugin.FailedFuture(&plugin.Error{Kind: plugin.KindInternal, Op: fmt.Sprintf("tools/call %q", name), Err: ErrUnknownTool})
	}
	return r.server.plugin.CallTool(ctx, r.tool, args)
}

// OnStreamChunk replaces every [plugin.ToolCall] whose name is an exposed
// tool with a [plugin.ToolResult] of the same ID and name, carrying the
// rendered output ([plugin.RenderResult]) or the error text. Calls in one
// chunk run concurrently, whichever servers they go to; the hook returns
// when all have answered. Other blocks pass through untouched, without an
// actor hop or an allocation. It always returns nil.
func (t *Toolbox) OnStreamChunk(ctx context.Context, chunk *plugin.Chunk) error {
	if chunk == nil {
		return nil
	}
	byName := t.routes.Load().byName
	first := -1
	for i, b := range chunk.Blocks {
		if tc, ok := b.(plugin.ToolCall); ok {
			if _, known := byName[tc.Name]; known {
				first = i
				break
			}
		}
	}
	if first < 0 {
		return nil
	}
	type pending struct {
		i    int
		call plugin.ToolCall
		f    *plugin.Future
	}
	var buf [4]pending // most chunks call one tool; no allocation for up to four
	calls := buf[:0]
	for i := first; i < len(chunk.Blocks); i++ {
		tc, ok := chunk.Blocks[i].(plugin.ToolCall)
		if !ok {
			continue
		}
		r, known := byName[tc.Name]
		if !known {
			continue
		}
		calls = append(calls, pending{i, tc, r.server.plugin.CallTool(ctx, r.tool, tc.Arguments)})
	}
	for _, c := range calls {
		res, err := c.f.Await(ctx)
		out := plugin.ToolResult{ToolCallID: c.call.ID, Name: c.call.Name}
		if err != nil {
			out.Content, out.IsError = err.Error(), true
		} else {
			out.Content, out.IsError = plugin.RenderResult(res), res.IsError
		}
		chunk.Blocks[c.i] = out
	}
	return nil
}
