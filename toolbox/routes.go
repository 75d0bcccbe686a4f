package toolbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox/internal/serverrules"
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
	tools  []Tool                // sorted by exposed name
	defs   []host.ToolDefinition // in the same order
	// hooks is what OnStreamChunk answers: byName, plus the search tool's
	// name (searchRoute) when tool search is on, plus the tools pinning
	// holds out (routes with deny set).
	hooks map[string]*route
	// denied are the tools pinning holds out, by exposed name.
	denied map[string]*route
	// own are the toolbox's own tools (WithResourceTools), sorted by
	// name; allDefs are defs with theirs, sorted (resources.go).
	own     []Tool
	allDefs []host.ToolDefinition
	// down are the servers with no tool in the table, by prefix
	// (down.go).
	down []downPrefix
	searchTableState
}

// route is where an exposed name goes: a server, and the tool's own name
// there.
type route struct {
	server *server
	tool   string
	name   string // the exposed name
	deny   error  // a tool pinning holds out: every call fails with it
}

func (r *routeTable) definitions() []host.ToolDefinition { return r.allDefs }

// openTable builds the first table; any collision fails Open. From its
// start, a server's status change rebuilds the table too: a change while
// it reads is not lost.
func (t *Toolbox) openTable() error {
	t.opened.Store(true)
	if errs := t.rebuild(true, true); len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

// rebuild makes a new route table from one snapshot of each server's
// tools and swaps it in, in one pass. It reads each server's list under
// that server's listMu only, never t.mu: a server slow to read holds up
// no other server's calls, nor Status, nor the table. With wait it waits
// for a server whose list another rebuild is reading; without, it uses
// the list that server's latest read produced and has the reader read
// again before it lets go (its read may have begun before the change
// this rebuild is for). It then builds the table and swaps it in under
// t.mu, briefly: when a server's list was read again in the meantime, or
// another table went in, the table is built again there from each
// server's latest list. So the table that goes in last has every
// server's list as read after its latest change, however many rebuilds
// race.
//
// Servers already admitted keep their names, in the order they came; a
// server whose tools would collide with theirs is held out whole, with
// the collision as its status. A name has one owner, the server the table
// in force routes it to, and keeps it while that server still offers it:
// when a server's list changes and a tool it adds takes a name another
// server owns, the server that changed is held out, even if it came
// first. It returns the collisions of the table it swapped in.
func (t *Toolbox) rebuild(opening, wait bool) []error {
	t.mu.Lock()
	base := t.routes.Load()
	order := t.order(nil)
	t.mu.Unlock()
	lists := make(map[*server]*serverTools, len(order))
	for _, s := range order {
		lists[s] = t.read(s, wait)
	}
	b := t.build(order, lists, base.byName)

	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.order(lists)
	same := t.routes.Load() == base && slices.Equal(now, order)
	for _, s := range now {
		if latest := s.last.Load(); latest != lists[s] {
			lists[s], same = latest, false
		}
	}
	if !same {
		b = t.build(now, lists, t.routes.Load().byName)
	}
	t.commit(b, now, opening)
	return b.errs
}

// order is the servers a table has room for (those with a plugin, and
// lazy ones), admitted ones first by turn, the rest by name; only those
// of read, when it is not nil. Under t.mu.
func (t *Toolbox) order(read map[*server]*serverTools) []*server {
	order := make([]*server, 0, len(t.servers))
	for _, name := range t.names {
		s := t.servers[name]
		if read != nil {
			if read[s] != nil {
				order = append(order, s)
			}
		} else if s.plugin() != nil || s.lazy {
			order = append(order, s)
		}
	}
	// t.names is sorted and the sort is stable.
	slices.SortStableFunc(order, func(a, b *server) int {
		return cmp.Compare(turn(a), turn(b))
	})
	return order
}

// read reads s's list for a rebuild (see Toolbox.rebuild), under s.listMu.
func (t *Toolbox) read(s *server, wait bool) *serverTools {
	if !s.listMu.TryLock() {
		last := s.last.Load()
		if wait || last == nil {
			s.listMu.Lock()
		} else {
			s.readAgain.Store(true)
			if !s.listMu.TryLock() {
				return last // the reader reads again, below
			}
		}
	}
	for {
		s.readAgain.Store(false)
		st := t.toolsOf(s)
		if h := t.test; h != nil && h.read != nil {
			h.read(s.cfg.Name)
		}
		s.last.Store(st)
		s.listMu.Unlock()
		// A rebuild that found listMu taken meanwhile took the list that
		// was there before this read began: read again, unless another
		// reader has the lock, whose read began after that.
		if !s.readAgain.Load() || !s.listMu.TryLock() {
			return st
		}
	}
}

// serverTools is one server's tools and their definitions, by name, from
// one snapshot of its list (see Toolbox.toolsOf), and the tools pinning
// holds out. Read-only once made.
type serverTools struct {
	tools []*mcp.Tool
	defs  map[string]host.ToolDefinition
	held  map[string]HeldTool
}

// built is a table: the table, each server's collision (nil if admitted)
// and how many names it got.
type built struct {
	rt    *routeTable
	clash map[*server]error
	count map[*server]int
	errs  []error
}

// exposes reports whether s's list offers exposed as its tool tool.
func exposes(lists map[*server]*serverTools, s *server, tool string) bool {
	if lists[s] == nil {
		return false
	}
	if !serverrules.AllowsTool(s.cfg, tool) {
		return false
	}
	if _, ok := lists[s].defs[tool]; !ok {
		return false
	}
	for _, t := range lists[s].tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

// build makes the table from lists, servers in order; prev (the table in
// force) names each name's owner.
func (t *Toolbox) build(order []*server, lists map[*server]*serverTools, prev map[string]*route) built {
	b := built{rt: &routeTable{byName: map[string]*route{}, denied: map[string]*route{}}, clash: map[*server]error{}, count: map[*server]int{}}
	for _, s := range order {
		mine, clash := t.serverRoutes(s, lists, prev, b.rt.byName)
		if clash != nil {
			b.clash[s] = clash
			b.errs = append(b.errs, clash)
			continue
		}
		for _, m := range mine {
			b.rt.byName[m.r.name] = m.r
			def := lists[s].defs[m.r.tool]
			def.Name = m.r.name
			b.rt.tools = append(b.rt.tools, Tool{Name: m.r.name, Server: s.cfg.Name, Tool: m.tool})
			b.rt.defs = append(b.rt.defs, def)
		}
		for _, h := range lists[s].held {
			b.rt.denied[h.Name] = &route{server: s, tool: h.Tool, name: h.Name, deny: h.err()}
		}
		b.count[s] = len(mine)
	}
	sortTable(b.rt)
	t.setHooks(b.rt)
	t.setDown(b.rt)
	return b
}

// serverRoutes gives the routes of s's tools that its filters let
// through, in its list's order, or the collision that keeps them all out:
// with the search tool, with a name of its own or of taken (the servers
// before it), or with a name prev gave to a server that still offers it.
func (t *Toolbox) serverRoutes(s *server, lists map[*server]*serverTools, prev, taken map[string]*route) ([]routed, error) {
	var mine []routed
	byName := map[string]*route{}
	for _, tool := range lists[s].tools {
		if _, ok := lists[s].defs[tool.Name]; !ok || !serverrules.AllowsTool(s.cfg, tool.Name) {
			continue
		}
		exposed := exposedName(serverrules.ToolPrefix(s.cfg), tool.Name)
		r := &route{server: s, tool: tool.Name, name: exposed}
		if t.search != nil && exposed == t.search.Name {
			return nil, searchCollision(exposed, r)
		}
		if err := t.ownCollision(exposed, r); err != nil {
			return nil, err
		}
		other, dup := byName[exposed]
		if !dup {
			other, dup = taken[exposed]
		}
		if dup {
			return nil, collision(exposed, other, r)
		}
		if was := prev[exposed]; was != nil && was.server != s && exposes(lists, was.server, was.tool) {
			// The name is another server's, which still offers it:
			// s has just taken it up, and s is the one to stay out.
			return nil, collision(exposed, was, r)
		}
		byName[exposed] = r
		mine = append(mine, routed{r: r, tool: tool})
	}
	return mine, nil
}

// routed is a route with the tool it exposes.
type routed struct {
	r    *route
	tool *mcp.Tool
}

// setHooks makes what OnStreamChunk answers: the routes, the tools pinning
// holds out that no route took, and the search tool.
func (t *Toolbox) setHooks(rt *routeTable) {
	maps.DeleteFunc(rt.denied, func(name string, _ *route) bool { return rt.byName[name] != nil })
	rt.hooks = rt.byName
	if t.search != nil || len(rt.denied) > 0 || t.opts.resourceTools {
		rt.hooks = maps.Clone(rt.byName)
		maps.Copy(rt.hooks, rt.denied)
		if t.search != nil {
			rt.hooks[t.search.Name] = searchRoute
		}
	}
	t.addOwnRoutes(rt)
}

// commit swaps in b's table and records, logs and admits what it says of
// each server.
func (t *Toolbox) commit(b built, order []*server, opening bool) {
	for _, s := range order {
		if clash := b.clash[s]; clash != nil {
			if s.heldOut == nil && !opening {
				t.logger.Warn("mcp server held out: tool name collision",
					zap.String("mcp_server", s.cfg.Name), zap.Error(clash))
			}
			s.heldOut = clash
			continue
		}
		if s.heldOut != nil && !opening {
			t.logger.Info("mcp server back in: its tool names are free",
				zap.String("mcp_server", s.cfg.Name), zap.Int("tools", b.count[s]))
		}
		s.heldOut = nil
		if p := s.plugin(); s.admittedAt == 0 && (b.count[s] > 0 || p != nil && p.Status().State == actors.Ready) {
			t.admitted++
			s.admittedAt = t.admitted
			if !opening {
				t.logger.Info("mcp server up; its tools appear",
					zap.String("mcp_server", s.cfg.Name), zap.Int("tools", b.count[s]))
			}
		}
	}
	t.routes.Store(b.rt)
	if h := t.test; h != nil && h.committed != nil {
		h.committed(b.rt)
	}
}

// testHooks are the package tests' rendezvous points.
type testHooks struct {
	// read runs when a rebuild has read a server's list, before it lets
	// go of the server's listMu.
	read func(server string)
	// committed runs when a table has gone in, under Toolbox.mu.
	committed func(rt *routeTable)
	// serialHeld runs when a call to a server not safe for parallel calls
	// has been sent and the server's next call of the chunk waits for it.
	serialHeld func(server string)
}

// turn orders admitted servers before the others.
func turn(s *server) int {
	if s.admittedAt == 0 {
		return int(^uint(0) >> 1)
	}
	return s.admittedAt
}

// searchCollision is the error of a tool exposed under the search tool's
// name.
func searchCollision(exposed string, r *route) error {
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", r.server.cfg.Name), Op: "toolbox",
		Err: fmt.Errorf("%w: %q is tool search's name and tool %q of server %q", ErrNameCollision, exposed, r.tool, r.server.cfg.Name)}
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

// sortTable orders the tools and their definitions by exposed name.
func sortTable(rt *routeTable) {
	idx := make([]int, len(rt.tools))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(rt.tools[a].Name, rt.tools[b].Name) })
	tools := make([]Tool, len(idx))
	defs := make([]host.ToolDefinition, len(idx))
	for i, j := range idx {
		tools[i], defs[i] = rt.tools[j], rt.defs[j]
	}
	rt.tools, rt.defs = tools, defs
}

// CallTool starts a call of the tool exposed as name and returns at once
// (but for a lazy server's first call, which waits for it to start); args
// are as for [plugin.McpPlugin.CallTool]. A name no server exposes fails
// with [plugin.ErrInternal] wrapping [ErrUnknownTool] and reaches no
// server, as does a tool a lazy server no longer has once started; a tool
// [WithPinnedTools] holds out fails with [plugin.ErrDenied] wrapping
// [ErrToolChanged]. A name carrying the tool prefix of a server that is
// not ready and has no tools exposed fails with [ErrServerDown], saying
// the server is down and why.
func (t *Toolbox) CallTool(ctx context.Context, name string, args any) *plugin.Future {
	rt := t.routes.Load()
	r, ok := rt.byName[name]
	if !ok {
		if d := rt.denied[name]; d != nil {
			return plugin.FailedFuture(d.deny)
		}
		if err := t.downError(rt, name); err != nil {
			return plugin.FailedFuture(err)
		}
		return plugin.FailedFuture(&plugin.Error{Kind: plugin.KindInternal, Op: messages.CallOp(name), Err: ErrUnknownTool})
	}
	// Busy until the call is sent; then the plugin counts it until it
	// ends (InFlight), and stopWhenIdle waits for both.
	defer t.busy(r.server)()
	p, err := t.callable(ctx, rt, r)
	if err != nil {
		return plugin.FailedFuture(err)
	}
	return p.CallTool(ctx, r.tool, args)
}

// OnStreamChunk replaces every [host.ToolCall] whose name is an exposed
// tool with a [host.ToolResult] of the same ID and name, carrying the
// rendered output ([plugin.RenderResult]) or the error text, as the
// server's plugin gives it ([plugin.Future.ToolResult]: its approval, its
// result cap). Calls in one
// chunk run concurrently, whichever servers they go to, except that the
// calls of a server not safe for parallel calls ("parallelToolCalls":
// false, Codex's supports_parallel_tool_calls = false) run one after
// another, in the chunk's order, each sent once the one before has
// answered, while the other servers' calls run meanwhile; the hook returns
// when all have answered. With [WithToolSearch], a call of the search tool
// is answered here, with no server round trip; so is a call to a name
// carrying the tool prefix of a server that is down (see
// [ErrServerDown]), with an error result saying so and why. Other blocks pass through
// untouched, without an actor hop or an allocation. It always returns nil.
func (t *Toolbox) OnStreamChunk(ctx context.Context, chunk *host.Chunk) error {
	if chunk == nil {
		return nil
	}
	rt := t.routes.Load()
	first := host.FirstToolCall(chunk.Blocks, rt.hooks)
	if first != 0 {
		// A call of a down server's tool before it is answered too (down.go).
		before := chunk.Blocks
		if first > 0 {
			before = before[:first]
		}
		if d := t.firstDown(rt, before); d >= 0 {
			first = d
		}
	}
	if first < 0 {
		return nil
	}
	var buf [4]pending             // most chunks call one tool; no allocation for up to four
	var reads *resourcetools.Calls // the resource tools' calls (resources.go); nil until one
	calls, serial := t.startCalls(ctx, rt, chunk.Blocks, first, buf[:0], &reads)
	t.finishCalls(ctx, chunk.Blocks, calls, serial)
	reads.Wait()
	return nil
}

// startCalls starts the calls of blocks from first on, appending them to
// calls: a search call and a held-out tool's are answered in place, a lazy
// server is started, and a serial server's calls are left for runSerial
// (serial says there are some).
func (t *Toolbox) startCalls(ctx context.Context, rt *routeTable, blocks []host.Block, first int, calls []pending, reads **resourcetools.Calls) (_ []pending, serial bool) {
	for i := first; i < len(blocks); i++ {
		tc, ok := blocks[i].(host.ToolCall)
		if !ok {
			continue
		}
		r, known := rt.hooks[tc.Name]
		if !known {
			if err := t.downError(rt, tc.Name); err != nil {
				blocks[i] = downResult(tc, err) // down.go
			}
			continue
		}
		switch {
		case r == searchRoute:
			blocks[i] = t.answerSearch(rt, tc)
			continue
		case ownRoute(r):
			*reads = (*reads).Start(ctx, t.answerResourceTool, blocks, i, tc)
			continue
		case r.deny != nil:
			blocks[i] = host.ToolResult{ToolCallID: tc.ID, Name: tc.Name, Content: r.deny.Error(), IsError: true}
			continue
		}
		c := pending{i: i, name: tc.Name, s: r.server, release: t.busy(r.server)}
		if r.server.lazy && r.server.plugin() == nil {
			t.startForChunk(ctx, blocks[i:], rt.hooks, r)
		}
		if p, err := t.callable(ctx, rt, r); err != nil {
			c.f = plugin.FailedFuture(err)
		} else if serverrules.SerialCalls(r.server.cfg) {
			// Sent by runSerial, after the server's earlier calls of the chunk.
			c.p, c.call, serial = p, host.ToolCall{ID: tc.ID, Name: r.tool, Arguments: tc.Arguments}, true
		} else {
			// The server's plugin applies its own controls: approval (with
			// the block's ID), progress, the result cap.
			c.f = p.StartToolCall(ctx, host.ToolCall{ID: tc.ID, Name: r.tool, Arguments: tc.Arguments})
		}
		calls = append(calls, c)
	}
	return calls, serial
}

// finishCalls waits for every call (runSerial sending the serial ones)
// and puts each result in place of its call, under the call's ID and
// exposed name.
func (t *Toolbox) finishCalls(ctx context.Context, blocks []host.Block, calls []pending, serial bool) {
	var wg sync.WaitGroup
	if serial {
		t.runSerial(ctx, calls, &wg)
	}
	for k := range calls {
		c := &calls[k]
		if c.f != nil {
			c.out = c.f.ToolResult(ctx)
		}
	}
	wg.Wait()
	for k := range calls {
		c := &calls[k]
		out := t.nameLinks(c.s, c.out) // resources.go
		out.ToolCallID = blocks[c.i].(host.ToolCall).ID
		out.Name = c.name
		blocks[c.i] = out
		c.release()
	}
}

// pending is one call of a chunk: its block's index and exposed name, its
// server, and its Future once sent; a call to a server that takes its
// calls one at a time waits with its plugin and call until runSerial
// sends it.
type pending struct {
	i       int
	name    string
	f       *plugin.Future
	s       *server
	release func() // ends the call's hold on a lazy server (busy)
	p       *plugin.McpPlugin
	call    host.ToolCall
	out     host.ToolResult
}

// runSerial runs, for each server not safe for parallel calls, its calls
// of the chunk one after another in the model's order, each sent once the
// one before has answered, on one goroutine per server (wg counts them):
// other servers' calls run meanwhile.
func (t *Toolbox) runSerial(ctx context.Context, calls []pending, wg *sync.WaitGroup) {
	var queues map[*server][]*pending
	var order []*server
	for k := range calls {
		c := &calls[k]
		if c.p == nil || c.f != nil {
			continue
		}
		if queues == nil {
			queues = map[*server][]*pending{}
		}
		if queues[c.s] == nil {
			order = append(order, c.s)
		}
		queues[c.s] = append(queues[c.s], c)
	}
	for _, s := range order {
		q := queues[s]
		wg.Go(func() {
			for j, c := range q {
				f := c.p.StartToolCall(ctx, c.call)
				if h := t.test; h != nil && h.serialHeld != nil && j+1 < len(q) {
					h.serialHeld(s.cfg.Name) // the next call waits for this one
				}
				c.out = f.ToolResult(ctx)
			}
		})
	}
}

// startForChunk starts, in parallel, every lazy server that the calls of
// blocks (the first of them is r's) need and that has not started, and
// waits for them (each bounded by the connect timeout and ctx).
func (t *Toolbox) startForChunk(ctx context.Context, blocks []host.Block, byName map[string]*route, r *route) {
	need := map[*server]bool{r.server: true}
	for _, b := range blocks {
		if tc, ok := b.(host.ToolCall); ok {
			if o := byName[tc.Name]; o != nil && o.server != nil && o.deny == nil && o.server.lazy && o.server.plugin() == nil {
				need[o.server] = true
			}
		}
	}
	var wg sync.WaitGroup
	for s := range need {
		wg.Go(func() { _, _ = t.startedAndReady(ctx, s) })
	}
	wg.Wait()
}
