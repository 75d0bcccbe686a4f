package resourcetools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
)

// The tools' names.
const (
	// ListName lists resources.
	ListName = "list_mcp_resources"
	// ReadName reads a resource by its URI.
	ReadName = "read_mcp_resource"
)

// Is reports whether name is one of the two tools.
func Is(name string) bool { return name == ListName || name == ReadName }

// The descriptions and schemas, for one server (a plugin) and for many (a
// toolbox, whose calls name the server).
const (
	listOne = "Lists the resources (files, records, documents) the MCP server offers: each one's URI, name, " +
		"MIME type and description, and the URI templates of resources read by filling in a template. " +
		"Read one with " + ReadName + "."
	listMany = "Lists the resources (files, records, documents) that MCP servers offer: each one's server, URI, " +
		"name, MIME type and description, and the URI templates of resources read by filling in a template. " +
		"Give server to list one server's; without it, every running server's are listed. " +
		"Read one with " + ReadName + "."
	readOne  = "Reads a resource of the MCP server by its URI, as " + ListName + " or a resource link in a tool result gave it."
	readMany = "Reads a resource of an MCP server by its server's name and its URI, as " + ListName +
		" or a resource link in a tool result gave them."

	listOneSchema  = `{"type":"object","properties":{}}`
	listManySchema = `{"type":"object","properties":{"server":{"type":"string","description":"The name of one MCP server; omit it for every server"}}}`
	readOneSchema  = `{"type":"object","properties":{"uri":{"type":"string","description":"The URI of the resource to read"}},"required":["uri"]}`
	readManySchema = `{"type":"object","properties":{"server":{"type":"string","description":"The name of the MCP server that has the resource"},` +
		`"uri":{"type":"string","description":"The URI of the resource to read"}},"required":["server","uri"]}`
)

// The tools as *mcp.Tool values, one per form: tool search keys what it
// keeps of a tool by its pointer, so these never change.
var (
	listOneTool  = tool(ListName, listOne, listOneSchema)
	listManyTool = tool(ListName, listMany, listManySchema)
	readOneTool  = tool(ReadName, readOne, readOneSchema)
	readManyTool = tool(ReadName, readMany, readManySchema)
)

func tool(name, desc, schema string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
}

// Tools returns the two tools, list first: for many servers (many) their
// calls name the server, for one they do not. Shared, read-only.
func Tools(many bool) []*mcp.Tool {
	if many {
		return []*mcp.Tool{listManyTool, readManyTool}
	}
	return []*mcp.Tool{listOneTool, readOneTool}
}

// Definitions returns the two tools as a [host.Request] publishes them,
// list first.
func Definitions(many bool) []host.ToolDefinition {
	tools := Tools(many)
	out := make([]host.ToolDefinition, len(tools))
	for i, t := range tools {
		out[i] = Definition(t)
	}
	return out
}

// Definition is t as a [host.Request] publishes it.
func Definition(t *mcp.Tool) host.ToolDefinition {
	return host.ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema.(json.RawMessage)}
}

// Args are a call's arguments; each is "" when not given.
type Args struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// ParseArgs reads a call's arguments (empty or null for none); problem
// says, for the model, what is wrong with them.
func ParseArgs(raw json.RawMessage) (a Args, problem string) {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return Args{}, ""
	}
	var in struct {
		Server any `json:"server"`
		URI    any `json:"uri"`
	}
	if err := json.Unmarshal([]byte(t), &in); err != nil {
		return Args{}, "the arguments are not a JSON object"
	}
	for _, f := range []struct {
		name string
		v    any
		to   *string
	}{{"server", in.Server, &a.Server}, {"uri", in.URI, &a.URI}} {
		switch v := f.v.(type) {
		case nil:
		case string:
			*f.to = strings.TrimSpace(v)
		default:
			return Args{}, fmt.Sprintf("%q must be a string", f.name)
		}
	}
	return a, ""
}

// ReadUsage is what a read call without a URI (or, naming servers,
// without a server) is told.
func ReadUsage(many bool) string {
	if many {
		return ReadName + ` needs {"server": "<server>", "uri": "<uri>"}, as ` + ListName + " gives them."
	}
	return ReadName + ` needs {"uri": "<uri>"}, as ` + ListName + " gives it."
}

// Listing is what one server offers, or why it could not say.
type Listing struct {
	// Server is the server's name; "" for a plugin's only server.
	Server    string
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	// Err is why the server was not listed; Note says, instead, why it
	// was left out (a lazy server not started).
	Err  error
	Note string
}

// item is one line of a rendered listing.
type item struct {
	Server      string `json:"server,omitempty"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	Error       string `json:"error,omitempty"`
	Note        string `json:"note,omitempty"`
}

// RenderList renders listings as a JSON array, one object a line: each
// resource (uri), each template (uriTemplate), each server's error or
// note, with its server when it has one. None gives "[]".
func RenderList(listings []Listing) string {
	var lines []string
	add := func(it item) {
		b, err := json.Marshal(it)
		if err != nil {
			return // strings and a size only: cannot fail
		}
		lines = append(lines, string(b))
	}
	for _, l := range listings {
		if l.Err != nil {
			add(item{Server: l.Server, Error: l.Err.Error()})
		}
		if l.Note != "" {
			add(item{Server: l.Server, Note: l.Note})
		}
		for _, r := range l.Resources {
			if r != nil {
				add(item{Server: l.Server, URI: r.URI, Name: r.Name, Title: r.Title, MIMEType: r.MIMEType, Description: r.Description, Size: sizePtr(r.Size)})
			}
		}
		for _, t := range l.Templates {
			if t != nil {
				add(item{Server: l.Server, URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, MIMEType: t.MIMEType, Description: t.Description})
			}
		}
	}
	if len(lines) == 0 {
		return "[]"
	}
	return "[\n" + strings.Join(lines, ",\n") + "\n]"
}

func sizePtr(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

// RenderRead renders a read's contents as the model reads them: one text
// content as its text alone; otherwise each content after a line
// "[resource: URI (type)]", a blob as that line with its size and "not
// shown" instead of its bytes.
func RenderRead(res *mcp.ReadResourceResult) string {
	if res == nil || len(res.Contents) == 0 {
		return "[no contents]"
	}
	if len(res.Contents) == 1 {
		if c := res.Contents[0]; c != nil && c.Blob == nil {
			return c.Text
		}
	}
	var b strings.Builder
	for i, c := range res.Contents {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c == nil {
			b.WriteString("[empty content]")
			continue
		}
		if c.Blob != nil {
			fmt.Fprintf(&b, "[resource: %s (%s, %s): binary, not shown]", c.URI, MIMEOr(c.MIMEType), SizeOf(int64(len(c.Blob))))
			continue
		}
		fmt.Fprintf(&b, "[resource: %s (%s)]\n%s", c.URI, MIMEOr(c.MIMEType), c.Text)
	}
	return b.String()
}

// LinkHint is what a resource link in a tool result says of how to read
// it: the read tool's name and, when calls name the server, server's name
// (server "" for a plugin's only server).
func LinkHint(server string) string {
	if server == "" {
		return "read it with " + ReadName
	}
	return fmt.Sprintf("read it with %s, server %q", ReadName, server)
}

// MIMEOr is m, or "unknown type" when the server gave none.
func MIMEOr(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

// SizeOf formats n bytes compactly: "12 B", "1.2 KiB", "3.4 MiB", as
// package plugin's placeholders do.
func SizeOf(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	default:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1024*1024*1024))
	}
}

// MaxPages bounds how many pages [All] asks for: a server whose cursors
// never end fails rather than hang the listing.
const MaxPages = 1000

// All gathers every page of a paginated list, page answering one page
// from a cursor ("" for the first) with the next cursor ("" after the
// last).
func All[T any](page func(cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	cursor := ""
	for range MaxPages {
		items, next, err := page(cursor)
		if err != nil {
			return out, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
	return out, fmt.Errorf("the list has more than %d pages", MaxPages)
}

// Calls are a hook's calls of the resource tools in one chunk, each
// answered in place on a goroutine of its own while the chunk's tool calls
// run. A nil *Calls has none: a chunk without them allocates nothing for
// them.
type Calls struct{ wg sync.WaitGroup }

// Start answers tc, the block at blocks[i], in place with answer, and
// returns c (made if nil).
func (c *Calls) Start(ctx context.Context, answer func(context.Context, host.ToolCall) host.ToolResult, blocks []host.Block, i int, tc host.ToolCall) *Calls {
	if c == nil {
		c = &Calls{}
	}
	c.wg.Go(func() { blocks[i] = answer(ctx, tc) })
	return c
}

// Wait waits for every call started; nil has none.
func (c *Calls) Wait() {
	if c != nil {
		c.wg.Wait()
	}
}
