package demoserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The notes server's note and its tool.
const (
	// NoteURI is the resource the notes server's [NoteTool] links to.
	NoteURI = "note:///sums"
	// NoteText is what reading NoteURI gives.
	NoteText = "21 + 21 = 42, checked with the add tool."
	// NoteTool is the notes server's one tool: its result is a
	// resource_link to NoteURI, not the note itself.
	NoteTool = "latest_note"
)

// NewNotesServer returns a go-sdk MCP server with one resource, NoteURI
// (text/plain, [NoteText]), and one tool, latest_note, which answers with
// a line of text and a resource_link to that resource: a model that wants
// the note follows the link with a read tool (a toolbox's
// read_mcp_resource). Serve it on any transport.
func NewNotesServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-notes-server", Version: "v1.0.0"}, nil)
	s.AddResource(&mcp.Resource{URI: NoteURI, Name: "sums", MIMEType: "text/plain", Description: "The latest note"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: NoteURI, MIMEType: "text/plain", Text: NoteText}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: NoteTool, Description: "Find the latest note; the result links to it",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "The latest note is ready."},
				&mcp.ResourceLink{URI: NoteURI, Name: "sums", MIMEType: "text/plain"},
			}}, nil
		})
	return s
}
