package wire_test

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/messages"
)

func TestServerRequestWire(t *testing.T) {
	d := time.Unix(0, time.Now().UnixNano())
	for _, m := range []*messages.ServerRequest{
		{ID: 1, Method: messages.MethodListResources, Cursor: "c2"},
		{ID: 2, Method: messages.MethodReadResource, URI: "file:///a b.txt", Deadline: d, Limit: "the caller's deadline"},
		{ID: 3, Method: messages.MethodGetPrompt, Name: "review", Arguments: map[string]string{"lang": "Go", "empty": ""}},
		{ID: 4, Method: messages.MethodListPrompts},
	} {
		got := roundTrip(t, m).(*messages.ServerRequest)
		assert.Equal(t, m.Deadline.UnixNano(), got.Deadline.UnixNano())
		got.Deadline = m.Deadline
		assert.Equal(t, m, got)
	}
}

func TestServerReplyWire(t *testing.T) {
	blob := []byte{0, 1, 2, 0xfe, 0xff}
	for _, r := range []mcp.Result{
		&mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "file:///n.txt", Name: "n", MIMEType: "text/plain", Size: 3}}, NextCursor: "next"},
		&mcp.ListResourcesResult{Resources: []*mcp.Resource{}},
		&mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{{URITemplate: "file:///u/{id}", Name: "u"}}},
		&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///n.txt", Text: "héllo"}, {URI: "file:///b", MIMEType: "application/octet-stream", Blob: blob}}},
		&mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "lang", Required: true}}}}},
		&mcp.GetPromptResult{Description: "d", Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "hi"}},
			{Role: "assistant", Content: &mcp.ImageContent{MIMEType: "image/png", Data: blob}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///n.txt", Text: "n"}}},
		}},
	} {
		got := roundTrip(t, &messages.ServerReply{ID: 9, Result: r}).(*messages.ServerReply)
		require.Nil(t, got.Failure, "%T", r)
		assert.Equal(t, uint64(9), got.ID)
		assert.Equal(t, r, got.Result, "%T", r)
	}

	f := &messages.Failure{Kind: messages.FailureInternal, Op: `resources/read "x"`, Message: "no such resource",
		Cause: messages.CauseServerError, RPC: &messages.RPCError{Code: -32002, Message: "Resource not found"}}
	got := roundTrip(t, &messages.ServerReply{ID: 5, Failure: f}).(*messages.ServerReply)
	assert.Nil(t, got.Result)
	assert.Equal(t, f, got.Failure)
}

func TestServerReplyWireOfAnUnknownResult(t *testing.T) {
	got := roundTrip(t, &messages.ServerReply{ID: 1, Result: &mcp.CallToolResult{}}).(*messages.ServerReply)
	assert.Nil(t, got.Result)
	require.NotNil(t, got.Failure, "a result the wire does not know fails the request, not dropped")
	assert.Contains(t, got.Failure.Message, "did not survive the wire")
}
