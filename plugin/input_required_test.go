package plugin_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// inputRequiredServer is a go-sdk server over Streamable HTTP whose tools
// answer input_required (SEP-2322) on the first round:
//
//   - greet: asks for an elicitation "name" with requestState "step=1";
//     the retry must echo the state and answer "Hello <name>".
//   - summarize: asks the client's model (sampling "draft"), without state;
//     the retry answers "summary: <the model's text>".
func inputRequiredServer(t *testing.T) transport.StreamableHTTP {
	s := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "greet", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
						Message: "What's your name?",
						RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
							"name": {Type: "string"},
						}},
					}},
					RequestState: "step=1",
				}, nil
			}
			if req.Params.RequestState != "step=1" {
				return nil, fmt.Errorf("requestState %q was not echoed", req.Params.RequestState)
			}
			if answer.Action != "accept" {
				return textResult("no name: " + answer.Action), nil
			}
			return textResult(fmt.Sprint("Hello ", answer.Content["name"])), nil
		})
	s.AddTool(&mcp.Tool{Name: "summarize", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			draft, ok := req.Params.InputResponses["draft"].(*mcp.CreateMessageWithToolsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"draft": &mcp.CreateMessageParams{
					MaxTokens: 50,
					Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize MCP"}}},
				}}}, nil
			}
			if req.Params.RequestState != "" {
				return nil, fmt.Errorf("requestState %q invented by the client", req.Params.RequestState)
			}
			text, _ := draft.Content[0].(*mcp.TextContent)
			return textResult("summary: " + text.Text), nil
		})
	s.AddTool(&mcp.Tool{Name: "where", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			roots, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
			}
			var uris []string
			for _, r := range roots.Roots {
				uris = append(uris, r.URI)
			}
			return textResult(fmt.Sprint("roots: ", uris)), nil
		})
	srv := testserver.NewHTTPServer(s)
	t.Cleanup(srv.Close)
	return transport.StreamableHTTP{URL: srv.URL}
}

func TestWithInputRequiredOffersRoots(t *testing.T) {
	p := connect(t, inputRequiredServer(t), plugin.WithInputRequired(plugin.InputHandlers{
		Roots: []*mcp.Root{{URI: "file:///work/project", Name: "project"}},
	}))
	assert.Equal(t, "roots: [file:///work/project]", callText(t, p, "where", nil))
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func TestWithInputRequiredDrivesElicitationAndEchoesRequestState(t *testing.T) {
	var asked atomic.Int32
	p := connect(t, inputRequiredServer(t), plugin.WithInputRequired(plugin.InputHandlers{
		Elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			assert.Equal(t, "What's your name?", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	}))
	assert.Equal(t, "Hello Ada", callText(t, p, "greet", nil))
	assert.Equal(t, int32(1), asked.Load(), "one round of input, then the complete result")

	// The hook takes the same path.
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c1", Name: "greet"}}}
	require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
	assert.Equal(t, host.ToolResult{ToolCallID: "c1", Name: "greet", Content: "Hello Ada"}, chunk.Blocks[0])
}

func TestWithInputRequiredDrivesSampling(t *testing.T) {
	p := connect(t, inputRequiredServer(t), plugin.WithInputRequired(plugin.InputHandlers{
		Sample: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			require.Len(t, req.Params.Messages, 1)
			return &mcp.CreateMessageWithToolsResult{
				Model:   "host-model",
				Role:    "assistant",
				Content: []mcp.Content{&mcp.TextContent{Text: "a protocol for tools"}},
			}, nil
		},
	}))
	assert.Equal(t, "summary: a protocol for tools", callText(t, p, "summarize", nil))
}

func TestWithInputRequiredFailsInternalForInputWithoutAHandler(t *testing.T) {
	p := connect(t, inputRequiredServer(t), plugin.WithInputRequired(plugin.InputHandlers{
		Elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}))
	_, err := p.CallTool(context.Background(), "summarize", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	assert.Contains(t, err.Error(), "does not support CreateMessage")
	assert.Equal(t, "no name: decline", callText(t, p, "greet", nil), "a declined elicitation is an answer too")
}

func TestWithoutInputRequiredARealServersInputRequestIsNotSupported(t *testing.T) {
	p := connect(t, inputRequiredServer(t))
	_, err := p.CallTool(context.Background(), "greet", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrNotSupported)
	assert.Contains(t, err.Error(), `"input_required"`)
}
