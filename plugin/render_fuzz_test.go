package plugin

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzRenderResult renders whatever CallToolResult a server's JSON decodes
// to (through go-sdk's own decoding, as on the wire). The rendering never
// panics, is deterministic and valid UTF-8, starts with ToolErrorPrefix for
// an isError result, joins text blocks exactly, renders structuredContent
// as JSON when there are no blocks, and keeps every non-text block to a
// placeholder whose size depends on the block's names, never on its data.
func FuzzRenderResult(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `{"content":[]}`,
		`{"content":[{"type":"text","text":"42"}]}`,
		`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b\nc"}],"isError":true}`,
		`{"content":[{"type":"image","mimeType":"image/png","data":"aGVsbG8gd29ybGQ="}]}`,
		`{"content":[{"type":"audio","mimeType":"audio/wav","data":"AAAA"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"hello"}}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///b","blob":"AAECAw=="}}]}`,
		`{"content":[{"type":"resource_link","uri":"https://x/y","name":"y","mimeType":"image/png","size":3145728}]}`,
		`{"content":[{"type":"text","text":"see"},{"type":"image","mimeType":"image/jpeg","data":"eHl6"}]}`,
		`{"structuredContent":{"sum":42}}`, `{"structuredContent":[1,"two",null]}`, `{"structuredContent":"s","isError":true}`,
		`{"content":[{"type":"text","text":"\u00e9\ud83d\ude00"}]}`, `{"content":[{"type":"text","text":"tool error: not really"}]}`,
		`{"resultType":"task","task":{"taskId":"t"}}`, `{"content":[{"type":"text","text":"x","annotations":{"priority":1}}],"_meta":{"k":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.CallToolResult
		if err := json.Unmarshal(data, &res); err != nil {
			return // go-sdk refuses it: the call fails before rendering
		}
		out := RenderResult(&res)
		if again := RenderResult(&res); again != out {
			t.Fatalf("not deterministic: %q then %q", out, again)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		body := out
		if res.IsError {
			if !strings.HasPrefix(out, ToolErrorPrefix) {
				t.Fatalf("isError result without prefix: %q", out)
			}
			body = strings.TrimPrefix(out, ToolErrorPrefix)
		}
		if len(res.Content) == 0 {
			if res.StructuredContent == nil {
				if body != "" {
					t.Fatalf("empty result rendered %q", out)
				}
			} else if !json.Valid([]byte(body)) {
				t.Fatalf("structured content rendered as invalid JSON: %q", out)
			}
			return
		}
		var texts []string
		budget := len(ToolErrorPrefix) + len(res.Content) // prefix and newlines
		allText := true
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				texts = append(texts, c.Text)
				budget += len(c.Text)
			default:
				allText = false
				budget += placeholderBudget(c)
			}
		}
		if allText && body != strings.Join(texts, "\n") {
			t.Fatalf("text blocks %q rendered %q", texts, body)
		}
		if len(out) > budget {
			t.Fatalf("rendering of %d bytes exceeds its budget of %d: %q", len(out), budget, out)
		}
	})
}

// placeholderBudget bounds the placeholder of a non-text block: its fixed
// words and numbers, plus the names it repeats (URI, name, MIME type), never
// its data.
func placeholderBudget(c mcp.Content) int {
	const words = 64
	switch c := c.(type) {
	case *mcp.ImageContent:
		return words + len(c.MIMEType)
	case *mcp.AudioContent:
		return words + len(c.MIMEType)
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return words
		}
		return words + len(c.Resource.URI) + len(c.Resource.MIMEType)
	case *mcp.ResourceLink:
		return words + len(c.URI) + len(c.Name) + len(c.MIMEType)
	default:
		return words
	}
}
