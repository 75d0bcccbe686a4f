package plugin

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

func TestRenderResult(t *testing.T) {
	size := int64(3 * 1024 * 1024)
	cases := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"nil", nil, ""},
		{"empty", &mcp.CallToolResult{}, ""},
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "42"}}}, "42"},
		{"texts join with newlines", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb"},
		{"image never shows its data", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)}}}, "[image: image/png, 2.0 KiB]"},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)}}}, "[audio: audio/wav, 10 B]"},
		{"image without type", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: []byte("x")}}}, "[image: unknown type, 1 B]"},
		{"text resource", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"}}}},
			"[resource: file:///a.txt (text/plain, 5 B)]"},
		{"blob resource", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: "file:///b.bin", Blob: make([]byte, 5*1024*1024)}}}},
			"[resource: file:///b.bin (unknown type, 5.0 MiB)]"},
		{"resource without contents", &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{}}}, "[resource]"},
		{"resource link", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{
			URI: "https://x/y.png", Name: "y", MIMEType: "image/png", Size: &size}}},
			"[resource link: https://x/y.png (y, image/png, 3.0 MiB)]"},
		{"bare resource link", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///z"}}},
			"[resource link: file:///z]"},
		{"mixed", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "see"}, &mcp.ImageContent{MIMEType: "image/jpeg", Data: []byte("xyz")}}},
			"see\n[image: image/jpeg, 3 B]"},
		{"error prefix", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}},
			"tool error: boom"},
		{"structured content without blocks", &mcp.CallToolResult{StructuredContent: map[string]any{"sum": 42}},
			`{"sum":42}`},
		{"structured array", &mcp.CallToolResult{StructuredContent: []int{1, 2}}, `[1,2]`},
		{"blocks win over structured content", &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: "42"}}, StructuredContent: map[string]any{"sum": 42}}, "42"},
		{"error with structured content", &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"code": 7}},
			`tool error: {"code":7}`},
		{"unmarshalable structured content", &mcp.CallToolResult{StructuredContent: func() {}},
			"[structured content: json: unsupported type: func()]"},
		{"nil block", &mcp.CallToolResult{Content: []mcp.Content{nil}}, "[empty content]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, RenderResult(c.res))
		})
	}
}
