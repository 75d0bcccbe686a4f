package toolbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Resources, resource templates and prompts over every server: each under
// its server's name, its URI or name as the server wrote it. A listing of
// every server asks the servers that are up, in parallel; naming a server
// asks that one, starting it when it is lazy. A server the toolbox did not
// start (denied by policy, untrusted, its entry a problem, its transport
// not supported) fails with its status error; a disabled server, or a name
// of no server, with [ErrUnknownServer].

// Resource is one resource of a server.
type Resource struct {
	// Server is the name of the server that has it.
	Server string
	// Resource is as the server listed it; shared, read-only.
	Resource *mcp.Resource
}

// ResourceTemplate is one resource template of a server.
type ResourceTemplate struct {
	// Server is the name of the server that has it.
	Server string
	// Template is as the server listed it; shared, read-only.
	Template *mcp.ResourceTemplate
}

// Prompt is one prompt of a server.
type Prompt struct {
	// Server is the name of the server that has it.
	Server string
	// Prompt is as the server listed it; shared, read-only.
	Prompt *mcp.Prompt
}

// ListResources returns the resources of server, or with server "" of
// every server that is ready (a lazy server not started is left out),
// sorted by server and then in each server's order; every page is read
// (at most 1000 a server). A server that does not offer resources has
// none. With server "", the error joins those of the servers that could
// not be listed, and the others' resources are returned with it. Errors
// are [*plugin.Error]s, or wrap [ErrUnknownServer].
func (t *Toolbox) ListResources(ctx context.Context, server string) ([]Resource, error) {
	return listEach(ctx, t, server, func(ctx context.Context, name string, p *plugin.McpPlugin) ([]Resource, error) {
		rs, err := resourcetools.All(func(cursor string) ([]*mcp.Resource, string, error) {
			page, err := p.ListResources(ctx, cursor)
			if err != nil {
				return nil, "", err
			}
			return page.Resources, page.NextCursor, nil
		})
		out := make([]Resource, len(rs))
		for i, r := range rs {
			out[i] = Resource{Server: name, Resource: r}
		}
		return out, pagesError(name, "resources/list", err)
	})
}

// ListResourceTemplates returns the resource templates of server, or of
// every ready server with "", as [Toolbox.ListResources] does.
func (t *Toolbox) ListResourceTemplates(ctx context.Context, server string) ([]ResourceTemplate, error) {
	return listEach(ctx, t, server, func(ctx context.Context, name string, p *plugin.McpPlugin) ([]ResourceTemplate, error) {
		ts, err := resourcetools.All(func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
			page, err := p.ListResourceTemplates(ctx, cursor)
			if err != nil {
				return nil, "", err
			}
			return page.ResourceTemplates, page.NextCursor, nil
		})
		out := make([]ResourceTemplate, len(ts))
		for i, tpl := range ts {
			out[i] = ResourceTemplate{Server: name, Template: tpl}
		}
		return out, pagesError(name, "resources/templates/list", err)
	})
}

// ListPrompts returns the prompts of server, or of every ready server
// with "", as [Toolbox.ListResources] does.
func (t *Toolbox) ListPrompts(ctx context.Context, server string) ([]Prompt, error) {
	return listEach(ctx, t, server, func(ctx context.Context, name string, p *plugin.McpPlugin) ([]Prompt, error) {
		ps, err := resourcetools.All(func(cursor string) ([]*mcp.Prompt, string, error) {
			page, err := p.ListPrompts(ctx, cursor)
			if err != nil {
				return nil, "", err
			}
			return page.Prompts, page.NextCursor, nil
		})
		out := make([]Prompt, len(ps))
		for i, pr := range ps {
			out[i] = Prompt{Server: name, Prompt: pr}
		}
		return out, pagesError(name, "prompts/list", err)
	})
}

// ReadResource reads the resource at uri of server (a lazy one starts),
// as [plugin.McpPlugin.ReadResource] does: the server's result cap
// ("maxResultBytes", or that of WithPluginOptions) applies, and a program's
// read asks no approval (the model's read tool does; see
// [WithResourceTools]).
func (t *Toolbox) ReadResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	p, release, err := t.serverPlugin(ctx, server)
	if err != nil {
		return nil, err
	}
	defer release()
	return p.ReadResource(ctx, uri)
}

// GetPrompt gets the prompt name of server (a lazy one starts) filled in
// with args, as [plugin.McpPlugin.GetPrompt] does; [plugin.PromptMessages]
// turns it into a conversation.
func (t *Toolbox) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	p, release, err := t.serverPlugin(ctx, server)
	if err != nil {
		return nil, err
	}
	defer release()
	return p.GetPrompt(ctx, name, args)
}

// serverPlugin is the ready plugin of the server name, starting a lazy
// one, or why there is none. The caller calls release once its request
// has ended: until then stopWhenIdle does not stop the server.
func (t *Toolbox) serverPlugin(ctx context.Context, name string) (_ *plugin.McpPlugin, release func(), err error) {
	s := t.servers[name]
	if s == nil {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	t.mu.Lock()
	startErr := s.startErr
	t.mu.Unlock()
	if startErr != nil && !s.lazy {
		return nil, nil, startErr
	}
	if s.lazy {
		release = t.busy(s)
		p, err := t.startedAndReady(ctx, s)
		if err != nil {
			release()
			return nil, nil, err
		}
		return p, release, nil
	}
	p := s.plugin()
	if p == nil {
		if p, err = t.ensureStarted(ctx, s); err != nil {
			return nil, nil, err
		}
	}
	return p, func() {}, nil
}

// listEach lists with list the server name, or with "" every ready
// server in parallel, in the order of t.names.
func listEach[T any](ctx context.Context, t *Toolbox, name string, list func(context.Context, string, *plugin.McpPlugin) ([]T, error)) ([]T, error) {
	if name != "" {
		p, release, err := t.serverPlugin(ctx, name)
		if err != nil {
			return nil, err
		}
		defer release()
		return list(ctx, name, p)
	}
	ready := t.readyServers()
	got := make([][]T, len(ready))
	errs := make([]error, len(ready))
	var wg sync.WaitGroup
	for i, r := range ready {
		wg.Go(func() {
			defer r.release()
			got[i], errs[i] = list(ctx, r.name, r.p)
		})
	}
	wg.Wait()
	return slices.Concat(got...), errors.Join(errs...)
}

// readyServer is a server whose plugin was ready, held busy (a lazy one)
// until release.
type readyServer struct {
	name    string
	p       *plugin.McpPlugin
	release func()
}

// readyServers are the servers whose plugin is ready, in the order of
// t.names, each held busy until its release is called.
func (t *Toolbox) readyServers() []readyServer {
	var out []readyServer
	for _, n := range t.names {
		s := t.servers[n]
		release := t.busy(s)
		if p := s.plugin(); p != nil && p.Status().State == actors.Ready {
			out = append(out, readyServer{name: n, p: p, release: release})
		} else {
			release()
		}
	}
	return out
}

// pagesError is err of a listing of server: a [*plugin.Error] as it is,
// else (too many pages) one of kind Internal naming server and method.
func pagesError(server, method string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*plugin.Error](err); ok {
		return err
	}
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", server), Op: method, Err: err}
}

// The model-facing tools.

// WithResourceTools gives the model two tools of the toolbox's own, as
// Claude Code's ListMcpResourcesTool and ReadMcpResourceTool:
// list_mcp_resources ({"server"?: ...}: the resources and resource
// templates of one server, or of every ready server, each with its
// server, as a JSON array) and read_mcp_resource ({"server": ...,
// "uri": ...}: the resource's text; a blob is described, not shown). Like
// any exposed tool they are in [Toolbox.ToolDefinitions], found by tool
// search ([WithToolSearch]) and answered by [Toolbox.OnStreamChunk];
// [Toolbox.Tools], [Toolbox.HasTool] and [Toolbox.CallTool] know the
// servers' tools only. A server tool exposed under either name is a
// collision ([ErrNameCollision]). A read names its server as the program's
// do (a lazy server starts; a server not started fails with its status
// error) and passes that server's approval (its mode, or the host's
// plugin.WithApproval function, asked with Tool read_mcp_resource; a mode
// "writes" lets reads through) and its result cap. A resource link in a
// tool result then says how to read it: `[resource link: file:///a.txt
// (a); read it with read_mcp_resource, server "docs"]`.
func WithResourceTools() Option {
	return optionFunc(func(o *options) { o.resourceTools = true })
}

// resourceRoutes are the routes of the two tools' names in a table's
// hooks: the toolbox answers them, no server.
var (
	listRoute = &route{name: resourcetools.ListName}
	readRoute = &route{name: resourcetools.ReadName}
)

// ownTools are the toolbox's own exposed tools (the resource tools with
// WithResourceTools), sorted by name; nil without them.
func (t *Toolbox) ownTools() []Tool {
	if !t.opts.resourceTools {
		return nil
	}
	var out []Tool
	for _, tl := range resourcetools.Tools(true) {
		out = append(out, Tool{Name: tl.Name, Tool: tl})
	}
	slices.SortFunc(out, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// ownCollision is the error of a server tool exposed under the name of
// one of the toolbox's own tools, or nil.
func (t *Toolbox) ownCollision(exposed string, r *route) error {
	if !t.opts.resourceTools || !resourcetools.Is(exposed) {
		return nil
	}
	return &plugin.Error{Kind: plugin.KindInternal, Server: fmt.Sprintf("server %q", r.server.cfg.Name), Op: "toolbox",
		Err: fmt.Errorf("%w: %q is a resource tool's name (WithResourceTools) and tool %q of server %q", ErrNameCollision, exposed, r.tool, r.server.cfg.Name)}
}

// addOwnRoutes puts the toolbox's own tools in rt: their definitions
// beside the servers', and their routes among the hooks.
func (t *Toolbox) addOwnRoutes(rt *routeTable) {
	rt.own = t.ownTools()
	if rt.own == nil {
		rt.allDefs = rt.defs
		return
	}
	rt.allDefs = make([]host.ToolDefinition, 0, len(rt.defs)+len(rt.own))
	rt.allDefs = append(rt.allDefs, rt.defs...)
	for _, o := range rt.own {
		rt.allDefs = append(rt.allDefs, resourcetools.Definition(o.Tool))
	}
	slices.SortFunc(rt.allDefs, func(a, b host.ToolDefinition) int { return cmp.Compare(a.Name, b.Name) })
	rt.hooks[resourcetools.ListName] = listRoute
	rt.hooks[resourcetools.ReadName] = readRoute
}

// nameLinks returns out, a tool result of server s, with its resource
// links naming s, as those of a server the toolbox starts do (its plugin's
// transport carries the server's name). Over a cluster's grains a server's
// plugin is a facade that knows its grain, not the toolbox's name for it,
// so its links say "read it with read_mcp_resource" alone; the toolbox's
// read tool takes the server, so this adds it (after the server's result
// cap: each link's hint grows by the server's name).
func (t *Toolbox) nameLinks(s *server, out host.ToolResult) host.ToolResult {
	if t.opts.remote == nil || !t.opts.resourceTools || s == nil {
		return out
	}
	bare := "; " + resourcetools.LinkHint("") + "]"
	if strings.Contains(out.Content, bare) {
		out.Content = strings.ReplaceAll(out.Content, bare, "; "+resourcetools.LinkHint(s.cfg.Name)+"]")
	}
	return out
}

// ownRoute reports whether r is one of the toolbox's own tools' routes.
func ownRoute(r *route) bool { return r == listRoute || r == readRoute }

// answerResourceTool answers a call of one of the resource tools.
func (t *Toolbox) answerResourceTool(ctx context.Context, tc host.ToolCall) host.ToolResult {
	out := host.ToolResult{ToolCallID: tc.ID, Name: tc.Name}
	args, problem := resourcetools.ParseArgs(tc.Arguments)
	if tc.Name == resourcetools.ReadName && problem == "" {
		switch {
		case args.Server == "":
			problem = `"server" is missing`
		case args.URI == "":
			problem = `"uri" is missing`
		}
	}
	if problem != "" {
		out.Content, out.IsError = resourcetools.ReadUsage(true)+" Here "+problem+".", true
		if tc.Name == resourcetools.ListName {
			out.Content = resourcetools.ListName + ` takes {"server"?: "<server>"}. Here ` + problem + "."
		}
		return out
	}
	if tc.Name == resourcetools.ListName {
		out.Content, out.IsError = t.listForModel(ctx, args.Server)
		return out
	}
	p, release, err := t.serverPlugin(ctx, args.Server)
	if err != nil {
		out.Content, out.IsError = err.Error(), true
		return out
	}
	defer release()
	res := p.ResourceToolResult(ctx, tc)
	res.ToolCallID, res.Name = tc.ID, tc.Name
	return res
}

// listForModel renders the resources and templates of server (or of
// every ready server, and a note for each lazy one not started) for the
// model.
func (t *Toolbox) listForModel(ctx context.Context, server string) (string, bool) {
	names := []string{server}
	var notes []resourcetools.Listing
	if server == "" {
		ready := t.readyServers()
		names = names[:0]
		for _, r := range ready {
			names = append(names, r.name)
			defer r.release()
		}
		for _, n := range t.names {
			if s := t.servers[n]; s.lazy && s.plugin() == nil {
				notes = append(notes, resourcetools.Listing{Server: n, Note: "not started (lazy): list it by name to start it"})
			}
		}
	}
	listings := make([]resourcetools.Listing, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { listings[i] = t.listing(ctx, n) })
	}
	wg.Wait()
	if server != "" && listings[0].Err != nil {
		return listings[0].Err.Error(), true
	}
	return resourcetools.RenderList(append(listings, notes...)), false
}

// listing is one server's resources and templates, or why not.
func (t *Toolbox) listing(ctx context.Context, name string) resourcetools.Listing {
	l := resourcetools.Listing{Server: name}
	rs, err := t.ListResources(ctx, name)
	if err != nil {
		l.Err = err
		return l
	}
	ts, err := t.ListResourceTemplates(ctx, name)
	if err != nil {
		l.Err = err
		return l
	}
	for _, r := range rs {
		l.Resources = append(l.Resources, r.Resource)
	}
	for _, tpl := range ts {
		l.Templates = append(l.Templates, tpl.Template)
	}
	return l
}
