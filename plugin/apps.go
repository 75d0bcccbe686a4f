package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
)

// MCP Apps (SEP-1865): a tool may name an interactive view of its results,
// a ui:// resource (HTML, MIME type "text/html;profile=mcp-app") in its
// _meta.ui.resourceUri. A host with a web page reads it on request and
// shows it beside the tool's result; the plugin reads it only when asked
// ([McpPlugin.ToolUI], [WithToolUIHandler]). The client declares no MCP
// Apps capability of its own (a host that renders views may declare the
// extension "io.modelcontextprotocol/ui" through [WithClientOptions]).

// ToolUI is a tool's interactive view, read from the server: the ui://
// resource the tool names, as the server served it.
type ToolUI struct {
	// Tool is the tool's name.
	Tool string
	// URI is the ui:// URI the tool names.
	URI string
	// MIMEType is the content's, "text/html;profile=mcp-app" as a rule.
	MIMEType string
	// HTML is the content: its text, or its blob's bytes.
	HTML string
	// Meta is the content's _meta (MCP Apps puts its csp, permissions,
	// domain and prefersBorder under "ui"), nil if none.
	Meta map[string]any
}

// ToolUIURI returns the ui:// URI of t's interactive view, from its
// _meta.ui.resourceUri (or the earlier flat key "ui/resourceUri"), or ""
// when t names none (or names a URI of another scheme).
func ToolUIURI(t *mcp.Tool) string {
	if t == nil || t.Meta == nil {
		return ""
	}
	var uri string
	if ui, ok := t.Meta["ui"].(map[string]any); ok {
		uri, _ = ui["resourceUri"].(string)
	}
	if uri == "" {
		uri, _ = t.Meta["ui/resourceUri"].(string)
	}
	if !strings.HasPrefix(uri, "ui://") {
		return ""
	}
	return uri
}

// ToolUI reads the interactive view of tool (a discovered tool's name),
// as [McpPlugin.ReadResource] reads a resource (ctx, the result cap and
// the typed errors apply): nil and no error when the tool names none. A
// name that is not a discovered tool fails with [ErrValidation].
func (p *McpPlugin) ToolUI(ctx context.Context, tool string) (*ToolUI, error) {
	t := p.snapshot().tool(tool)
	if t == nil {
		return nil, &Error{Kind: KindValidation, Server: p.server, Op: "ui " + tool,
			Err: fmt.Errorf("no tool %q among the server's tools", tool)}
	}
	uri := ToolUIURI(t)
	if uri == "" {
		return nil, nil
	}
	res, err := p.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && (c == nil || rc.URI == uri && c.URI != uri) {
			c = rc
		}
	}
	if c == nil {
		return nil, &Error{Kind: KindInternal, Server: p.server, Op: "resources/read " + fmt.Sprintf("%q", uri),
			Err: fmt.Errorf("the server read tool %q's view with no contents", tool)}
	}
	ui := &ToolUI{Tool: tool, URI: uri, MIMEType: c.MIMEType, HTML: c.Text, Meta: c.Meta}
	if c.Blob != nil {
		ui.HTML = string(c.Blob)
	}
	return ui, nil
}

// WithToolUIHandler hands a host the interactive view of each tool result
// the plugin makes for it ([McpPlugin.OnStreamChunk],
// [Future.ToolResult]) whose tool names one: before the result returns,
// the view is read ([McpPlugin.ToolUI], bounded by the hook's ctx) and h
// is called with the result and the view, so a host with a web page can
// show them together. A view that cannot be read is given as nil with the
// error. Results of tools without a view, and hosts without the option,
// read nothing. h runs on the caller's goroutine and should return
// quickly; the result itself is unchanged. Given to a toolbox's servers
// (toolbox.WithPluginOptions), each server's plugin calls h with its own
// name of the tool; the block the toolbox leaves carries the exposed name.
func WithToolUIHandler(h func(ctx context.Context, result host.ToolResult, ui *ToolUI, err error)) Option {
	return newOption("WithToolUIHandler", call, func(o *options) {
		o.onToolUI = h
	})
}

// handToolUI gives out's view, if its tool names one, to the
// WithToolUIHandler handler.
func (p *McpPlugin) handToolUI(ctx context.Context, out host.ToolResult) {
	if p.onToolUI == nil || ToolUIURI(p.snapshot().tool(out.Name)) == "" {
		return
	}
	ui, err := p.ToolUI(ctx, out.Name)
	p.onToolUI(ctx, out, ui, err)
}
