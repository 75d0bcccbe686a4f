package plugin_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/core/pluginopt"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// blobBytes is the blob resource's contents: every byte value, so that a
// lossy decoding would show.
var blobBytes = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// resourceServer is a go-sdk server with resources (three, two to a page),
// a template, prompts, and a resource whose read tells started, then waits
// until cancelled or until the test closes end.
func resourceServer(started chan<- struct{}, cancelled <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "resources", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: 2})
	textOf := func(uri, text string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes", MIMEType: "text/plain"}, textOf("file:///notes.txt", "hello notes"))
	s.AddResource(&mcp.Resource{URI: "file:///big.txt", Name: "big", MIMEType: "text/plain"}, textOf("file:///big.txt", strings.Repeat("x", 4096)))
	s.AddResource(&mcp.Resource{URI: "file:///bytes.bin", Name: "bytes", MIMEType: "application/octet-stream"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///bytes.bin", MIMEType: "application/octet-stream", Blob: blobBytes}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///hang.txt", Name: "hang"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
			case <-cancelled: // the test ends
			}
			return nil, ctx.Err()
		})
	slow := func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * time.Second): // never before a deadline of milliseconds
		case <-cancelled:
		}
		return errors.New("slow: too late")
	}
	s.AddResource(&mcp.Resource{URI: "file:///slow.txt", Name: "slow"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, slow(ctx)
		})
	s.AddPrompt(&mcp.Prompt{Name: "slow"}, func(ctx context.Context, _ *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, slow(ctx)
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///users/{id}.json", Name: "user"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: `{"from":"` + req.Params.URI + `"}`}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "review", Description: "Review code", Arguments: []*mcp.PromptArgument{{Name: "lang", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "review", Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Review this " + req.Params.Arguments["lang"] + " code."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Send it."}},
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", Text: "hello notes"}}},
				{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "plain"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	return s
}

// connectResources connects a plugin to resourceServer over loopback HTTP.
func connectResources(t *testing.T, opts ...plugin.Option) (*plugin.McpPlugin, chan struct{}, chan struct{}) {
	t.Helper()
	started, end := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(testserver.NewHTTPHandler(resourceServer(started, end)))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(end) })
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: srv.URL}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p, started, end
}

func TestResourcesListedPageByPage(t *testing.T) {
	p, _, _ := connectResources(t)
	var uris []string
	cursor, pages := "", 0
	for {
		page, err := p.ListResources(t.Context(), cursor)
		require.NoError(t, err)
		pages++
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	assert.Equal(t, 3, pages, "five resources, two to a page")
	assert.ElementsMatch(t, []string{"file:///notes.txt", "file:///big.txt", "file:///bytes.bin", "file:///hang.txt", "file:///slow.txt"}, uris)

	tpl, err := p.ListResourceTemplates(t.Context(), "")
	require.NoError(t, err)
	require.Len(t, tpl.ResourceTemplates, 1)
	assert.Equal(t, "file:///users/{id}.json", tpl.ResourceTemplates[0].URITemplate)
}

func TestReadResourceTextBlobAndTemplate(t *testing.T) {
	p, _, _ := connectResources(t)
	res, err := p.ReadResource(t.Context(), "file:///notes.txt")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, "hello notes", res.Contents[0].Text)
	assert.Equal(t, "text/plain", res.Contents[0].MIMEType)

	res, err = p.ReadResource(t.Context(), "file:///bytes.bin")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, blobBytes, res.Contents[0].Blob, "the blob arrives decoded, byte for byte")

	res, err = p.ReadResource(t.Context(), "file:///users/7.json")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.JSONEq(t, `{"from":"file:///users/7.json"}`, res.Contents[0].Text)
}

func TestReadResourceErrors(t *testing.T) {
	p, _, _ := connectResources(t, plugin.WithMaxResultBytes(1024))

	_, err := p.ReadResource(t.Context(), "file:///big.txt")
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrResultTooLarge)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	var pe *plugin.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `resources/read "file:///big.txt"`, pe.Op)
	assert.ErrorContains(t, err, "the cap is 1.0 KiB (WithMaxResultBytes)")
	from, _, _ := connectResources(t, capFrom{plugin.WithMaxResultBytes(1024), `"maxResultBytes" of server "docs"`})
	_, err = from.ReadResource(t.Context(), "file:///big.txt")
	assert.ErrorIs(t, err, plugin.ErrResultTooLarge)
	assert.ErrorContains(t, err, `the cap is 1.0 KiB ("maxResultBytes" of server "docs")`, "the cap's source named")

	// Under the cap the same plugin reads.
	res, err := p.ReadResource(t.Context(), "file:///notes.txt")
	require.NoError(t, err)
	assert.Equal(t, "hello notes", res.Contents[0].Text)

	_, err = p.ReadResource(t.Context(), "file:///missing.txt")
	require.Error(t, err)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "the server's refusal, code and message intact")
	assert.Contains(t, err.Error(), `resources/read "file:///missing.txt"`)
}

func TestReadResourceCancelledByCaller(t *testing.T) {
	p, started, _ := connectResources(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := p.ReadResource(ctx, "file:///hang.txt")
		done <- err
	}()
	<-started
	cancel()
	err := <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, plugin.ErrInternal)
}

func TestReadResourceDeadline(t *testing.T) {
	p, started, _ := connectResources(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond) // must expire: the resource never answers
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.ReadResource(ctx, "file:///hang.txt")
		done <- err
	}()
	<-started
	err := <-done
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestPrompts(t *testing.T) {
	p, _, _ := connectResources(t)
	assert.ElementsMatch(t, []string{"review", "plain", "slow"}, allPromptNames(t, p), "three prompts, two to a page")

	got, err := p.GetPrompt(t.Context(), "review", map[string]string{"lang": "Go"})
	require.NoError(t, err)
	msgs := plugin.PromptMessages(got)
	require.Len(t, msgs, 4)
	assert.Equal(t, host.Message{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "Review this Go code."}}}, msgs[0])
	assert.Equal(t, host.Message{Role: host.RoleAssistant, Blocks: []host.Block{host.Text{Text: "Send it."}}}, msgs[1])
	assert.Equal(t, host.Message{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: "hello notes"}}}, msgs[2])
	require.Len(t, msgs[3].Blocks, 1)
	assert.Contains(t, msgs[3].Blocks[0].(host.Text).Text, "image/png", "an image is named, not dropped")

	req := host.NewRequest("m")
	req.Messages = append(req.Messages, msgs...)
	assert.Len(t, req.Messages, 4)

	_, err = p.GetPrompt(t.Context(), "nope", nil)
	require.Error(t, err)
	var rpcErr *jsonrpc.Error
	assert.ErrorAs(t, err, &rpcErr)
	assert.Contains(t, err.Error(), `prompts/get "nope"`)
	assert.Nil(t, plugin.PromptMessages(nil))
}

func TestServerWithoutResourcesOrPromptsListsNothing(t *testing.T) {
	p, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: testserver.HTTP(t)})
	require.NoError(t, err)
	defer func() { _ = p.Close() }()
	require.NotEmpty(t, p.Tools(), "the server has tools")

	res, err := p.ListResources(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, res.Resources)
	assert.NotNil(t, res.Resources)
	tpl, err := p.ListResourceTemplates(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, tpl.ResourceTemplates)
	pr, err := p.ListPrompts(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, pr.Prompts)

	_, err = p.ReadResource(t.Context(), "file:///anything")
	require.Error(t, err, "a read of a server without resources fails")
}

func TestResourcesOverStdio(t *testing.T) {
	// The test server over stdio has no resources: lists are empty, and
	// the requests travel the child's pipes and the supervisor.
	p, err := plugin.Connect(t.Context(), testserver.Stdio(t))
	require.NoError(t, err)
	defer func() { _ = p.Close() }()
	res, err := p.ListPrompts(t.Context(), "")
	require.NoError(t, err)
	assert.Empty(t, res.Prompts)
}

func TestResourcesAfterClose(t *testing.T) {
	p, _, _ := connectResources(t)
	require.NoError(t, p.Close())
	_, err := p.ReadResource(t.Context(), "file:///notes.txt")
	require.Error(t, err)
	assert.True(t, errors.Is(err, plugin.ErrInternal))
}

// capFrom is a result cap that names where it came from, as a toolbox
// gives an entry's "maxResultBytes" (pluginopt.ResultCapSource).
type capFrom struct {
	plugin.Option
	source string
}

var _ pluginopt.ResultCapSource = capFrom{}

func (c capFrom) MaxResultSource() string { return c.source }
