package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Resource tools: two tools for the model, list_mcp_resources and
// read_mcp_resource, which the plugin answers itself from the server's
// resources (internal/core/resourcetools has their definitions and
// renderings).

// The model-facing resource tools' names (a toolbox's are the same).
const (
	// ListResourcesTool lists the server's resources and resource
	// templates ([WithResourceTools]).
	ListResourcesTool = "list_mcp_resources"
	// ReadResourceTool reads a resource by its URI ([WithResourceTools]).
	ReadResourceTool = "read_mcp_resource"
)

// WithResourceTools gives the model two tools of the plugin's own, as
// Claude Code's ListMcpResourcesTool and ReadMcpResourceTool:
// list_mcp_resources (no arguments: the server's resources and resource
// templates, as a JSON array) and read_mcp_resource ({"uri": ...}: the
// resource's text; a blob is described, not shown). [McpPlugin.ToolDefinitions] lists them beside
// the server's tools, and [McpPlugin.OnStreamChunk] answers their calls;
// [McpPlugin.Tools], [McpPlugin.HasTool] and [McpPlugin.CallTool] know the
// server's tools only, and a tool of the server under either name wins
// over the plugin's. A read passes [WithApproval] first (its
// [ApprovalRequest] names the tool read_mcp_resource, its Arguments those
// of the call) and [WithMaxResultBytes] caps it: contents over the cap
// fail with [ErrResultTooLarge], and the text is cut as a tool's is. A
// resource link in a tool result then says how to read it:
// "[resource link: file:///a.txt (a); read it with read_mcp_resource]". Without
// this option the plugin offers the model the server's tools only.
func WithResourceTools() Option {
	return newOption("WithResourceTools", call, func(o *options) { o.resourceTools.on = true })
}

// resourceTools is WithResourceTools's state: on, and what a resource
// link says of how to read it.
type resourceTools struct {
	on   bool
	hint string
}

// nameServer sets the link hint for the server of transport t: a
// toolbox's server (a named transport) is named in it, since the
// toolbox's read tool takes the server's name.
func (r *resourceTools) nameServer(t transport.McpTransport) {
	if !r.on {
		return
	}
	name, _ := named.Name(t)
	r.hint = resourcetools.LinkHint(name)
}

// linkHint is what a resource link in the plugin's tool results says of
// how to read it; "" without WithResourceTools.
func (p *McpPlugin) linkHint() string {
	if p == nil || !p.resourceTools.on {
		return ""
	}
	if p.resourceTools.hint == "" {
		return resourcetools.LinkHint("")
	}
	return p.resourceTools.hint
}

// answers reports whether the hook answers a call of name itself.
func (r *resourceTools) answers(name string) bool { return r.on && resourcetools.Is(name) }

// add adds the two tools' definitions to defs, sorted by name, when on.
func (r *resourceTools) add(defs []host.ToolDefinition) []host.ToolDefinition {
	if !r.on {
		return defs
	}
	for _, d := range resourcetools.Definitions(false) {
		if !slices.ContainsFunc(defs, func(o host.ToolDefinition) bool { return o.Name == d.Name }) {
			defs = append(defs, d)
		}
	}
	slices.SortFunc(defs, func(a, b host.ToolDefinition) int { return strings.Compare(a.Name, b.Name) })
	return defs
}

// ResourceToolResult answers a model's call of list_mcp_resources or
// read_mcp_resource for this plugin's server, as the hook does with
// [WithResourceTools] (approval, the cap and rendering included), whether
// or not that option is given: call.ID and call.Name are the result's.
// A read's arguments may name a server, which is not checked: it is the
// seam for facades that route the calls to plugins (a toolbox). Any other
// name gives an IsError result saying so. It never blocks past ctx.
func (p *McpPlugin) ResourceToolResult(ctx context.Context, call host.ToolCall) host.ToolResult {
	text, isErr := p.answerResourceTool(ctx, call)
	return host.ToolResult{ToolCallID: call.ID, Name: call.Name, Content: capText(text, p.maxResultBytes), IsError: isErr}
}

func (p *McpPlugin) answerResourceTool(ctx context.Context, call host.ToolCall) (text string, isErr bool) {
	switch call.Name {
	case resourcetools.ListName:
		resources, templates, err := p.allResources(ctx)
		if err != nil {
			return err.Error(), true
		}
		return resourcetools.RenderList([]resourcetools.Listing{{Resources: resources, Templates: templates}}), false
	case resourcetools.ReadName:
		args, problem := resourcetools.ParseArgs(call.Arguments)
		if problem == "" && args.URI == "" {
			problem = `"uri" is missing`
		}
		if problem != "" {
			return resourcetools.ReadUsage(false) + " Here " + problem + ".", true
		}
		res, err := p.readApproved(ctx, call.ID, call.Arguments, args.URI)
		if err != nil {
			return err.Error(), true
		}
		return resourcetools.RenderRead(res), false
	}
	return fmt.Sprintf("%q is not one of the resource tools (%s, %s).", call.Name, resourcetools.ListName, resourcetools.ReadName), true
}

// allResources lists every page of the server's resources and templates.
func (p *McpPlugin) allResources(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, error) {
	resources, err := resourcetools.All(func(cursor string) ([]*mcp.Resource, string, error) {
		page, err := p.ListResources(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return page.Resources, page.NextCursor, nil
	})
	if err != nil {
		return nil, nil, p.pagesError(messages.MethodListResources, err)
	}
	templates, err := resourcetools.All(func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
		page, err := p.ListResourceTemplates(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return page.ResourceTemplates, page.NextCursor, nil
	})
	if err != nil {
		return nil, nil, p.pagesError(messages.MethodListResourceTemplates, err)
	}
	return resources, templates, nil
}

// pagesError is err of a listing of method: an [*Error] as it is, else
// (too many pages) one of kind Internal.
func (p *McpPlugin) pagesError(method string, err error) error {
	if _, ok := errors.AsType[*Error](err); ok {
		return err
	}
	return &Error{Kind: KindInternal, Server: p.server, Op: method, Err: err}
}

// readApproved reads the resource at uri for the model, as
// read_mcp_resource does: [WithApproval]'s function decides first, asked
// with Tool read_mcp_resource, callID (the model's ToolCall ID, if any)
// and args (the call's arguments); a refusal fails with [ErrDenied]
// wrapping it and nothing reaches the server. Then it reads as
// [McpPlugin.ReadResource] does (the cap applies).
func (p *McpPlugin) readApproved(ctx context.Context, callID string, args []byte, uri string) (*mcp.ReadResourceResult, error) {
	if p.approve != nil {
		req := ApprovalRequest{Server: p.server, Tool: resourcetools.ReadName, CallID: callID, Arguments: args}
		err := p.decide(ctx, req)
		op := (&messages.ServerRequest{Method: messages.MethodReadResource, URI: uri}).Op()
		switch {
		case ctx.Err() != nil:
			return nil, &Error{Kind: KindInternal, Server: p.server, Op: op, Err: callerLeft(ctx.Err())}
		case err != nil:
			return nil, &Error{Kind: KindDenied, Server: p.server, Op: op, Err: err}
		}
	}
	return p.ReadResource(ctx, uri)
}
