package plugin

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/messages"
)

// ListPrompts returns one page of the server's prompts, paginated as
// [McpPlugin.ListResources] is; a server that does not offer prompts gives
// an empty list, not an error.
func (p *McpPlugin) ListPrompts(ctx context.Context, cursor string) (*mcp.ListPromptsResult, error) {
	return askServer[*mcp.ListPromptsResult](ctx, p, &messages.ServerRequest{Method: messages.MethodListPrompts, Cursor: cursor})
}

// GetPrompt gets the prompt name filled in with args (nil for none): its
// messages, which [PromptMessages] turns into a conversation. A server's
// refusal (an unknown prompt, a missing required argument) is a
// *jsonrpc.Error to errors.As.
func (p *McpPlugin) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	return askServer[*mcp.GetPromptResult](ctx, p, &messages.ServerRequest{Method: messages.MethodGetPrompt, Name: name, Arguments: args})
}

// PromptMessages converts a prompt's messages into [host.Message]s, in
// order, so that a program can start a request with them
// (host.Request.Messages). Each message becomes one of role
// [host.RoleUser] or [host.RoleAssistant] with one [host.Text] block:
// text as it is, an embedded text resource as its text, and any other
// content (an image, audio, a blob, a resource link) as the placeholder
// [RenderResult] writes for it. nil gives nil.
func PromptMessages(res *mcp.GetPromptResult) []host.Message {
	if res == nil || len(res.Messages) == 0 {
		return nil
	}
	out := make([]host.Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		role := host.RoleUser
		if m.Role == "assistant" {
			role = host.RoleAssistant
		}
		var text string
		switch c := m.Content.(type) {
		case *mcp.TextContent:
			text = c.Text
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Blob == nil && c.Resource.Text != "" {
				text = c.Resource.Text
				break
			}
			text = renderOne(c)
		default:
			text = renderOne(c)
		}
		out = append(out, host.Message{Role: role, Blocks: []host.Block{host.Text{Text: text}}})
	}
	return out
}

// renderOne is c as RenderResult writes it.
func renderOne(c mcp.Content) string {
	var b strings.Builder
	renderContent(&b, c)
	return b.String()
}
