package plugin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cuca-go/mcpconnector/internal/core/resourcetools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolErrorPrefix starts the rendering of a result the server marked isError.
const ToolErrorPrefix = "tool error: "

// RenderResult renders a tool result as the text a model reads:
//
//   - text blocks as they are, every block joined by a newline;
//   - images and audio as "[image: image/png, 1.2 KiB]", never their data;
//   - embedded resources as "[resource: URI (text/plain, 12 B)]";
//   - resource links as "[resource link: URI (name, image/png, 3 KiB)]"
//     (with [WithResourceTools], the hook's results add the tool that
//     reads them: "[resource link: URI (name); read it with read_mcp_resource]");
//   - with no content blocks, structuredContent as compact JSON;
//   - an isError result prefixed with [ToolErrorPrefix].
func RenderResult(res *mcp.CallToolResult) string { return renderResult(res, "") }

// renderResult is [RenderResult] with linkHint ("" for none) added to each
// resource link: how the model reads it.
func renderResult(res *mcp.CallToolResult, linkHint string) string {
	if res == nil {
		return ""
	}
	if len(res.Content) == 1 && !res.IsError {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			return t.Text // the common case, without a copy
		}
	}
	var b strings.Builder
	if res.IsError {
		b.WriteString(ToolErrorPrefix)
	}
	if len(res.Content) == 0 {
		if res.StructuredContent != nil {
			if j, err := json.Marshal(res.StructuredContent); err == nil {
				b.Write(j)
			} else {
				fmt.Fprintf(&b, "[structured content: %v]", err)
			}
		}
		return b.String()
	}
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		renderContentHint(&b, c, linkHint)
	}
	return b.String()
}

func renderContent(b *strings.Builder, c mcp.Content) { renderContentHint(b, c, "") }

// renderContentHint renders c, a resource link with linkHint after its
// details.
func renderContentHint(b *strings.Builder, c mcp.Content, linkHint string) {
	switch c := c.(type) {
	case *mcp.TextContent:
		b.WriteString(c.Text)
	case *mcp.ImageContent:
		placeholder(b, "image", resourcetools.MIMEOr(c.MIMEType), resourcetools.SizeOf(int64(len(c.Data))))
	case *mcp.AudioContent:
		placeholder(b, "audio", resourcetools.MIMEOr(c.MIMEType), resourcetools.SizeOf(int64(len(c.Data))))
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			b.WriteString("[resource]")
			return
		}
		n := int64(len(r.Text))
		if r.Blob != nil {
			n = int64(len(r.Blob))
		}
		placeholder(b, "resource", r.URI+" ("+resourcetools.MIMEOr(r.MIMEType)+", "+resourcetools.SizeOf(n)+")")
	case *mcp.ResourceLink:
		parts := []string{}
		if c.Name != "" {
			parts = append(parts, c.Name)
		}
		if c.MIMEType != "" {
			parts = append(parts, c.MIMEType)
		}
		if c.Size != nil {
			parts = append(parts, resourcetools.SizeOf(*c.Size))
		}
		detail := c.URI
		if len(parts) > 0 {
			detail += " (" + strings.Join(parts, ", ") + ")"
		}
		if linkHint != "" {
			detail += "; " + linkHint
		}
		placeholder(b, "resource link", detail)
	case nil:
		b.WriteString("[empty content]")
	default:
		placeholder(b, "content", fmt.Sprintf("%T", c))
	}
}

func placeholder(b *strings.Builder, kind string, details ...string) {
	b.WriteString("[" + kind)
	for i, d := range details {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(d)
	}
	b.WriteByte(']')
}
