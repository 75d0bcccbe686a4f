package actors_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// keepAliveText is the 1 KiB text of the resource and the prompt that
// TestResourcesKeepConnectionsAlive reads.
var keepAliveText = strings.Repeat("0123456789abcdef", 64)

// keepAliveServer is a go-sdk server with one 1 KiB resource, one
// template and one prompt.
func keepAliveServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "keepalive", Version: "0"}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///k.txt", Name: "k", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///k.txt", MIMEType: "text/plain", Text: keepAliveText}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///k/{name}", Name: "ks"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError("")
		})
	s.AddPrompt(&mcp.Prompt{Name: "k"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: keepAliveText}}}}, nil
	})
	return s
}

// Resources, templates and prompts over Streamable HTTP leave their POST's
// connection alive for the next one: the request's context outlives the
// answer while go-sdk reads the rest of its event stream. Ending it when
// the answer came closed about one connection in twenty.
func TestResourcesKeepConnectionsAlive(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(testserver.NewHTTPHandler(keepAliveServer()))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	system := actor.NewActorSystem(quiet.Actors())
	pid := system.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{Transport: transport.StreamableHTTP{URL: srv.URL}}))
	defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()
	res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
	require.NoError(t, err)
	require.IsType(t, &messages.Ready{}, res)

	const reads = 500
	// Dropping each request's connection opened 78 to 84 in 500. A
	// connection still being read when the next request starts is a new
	// one too, and how often that happens depends on the machine's load,
	// so the bound here only tells the bug from a busy machine; the
	// benchmark rows (new-conns/2000op) hold the target, at most 10 in
	// 2,000, beside go-sdk's client.
	const maxNew = 25
	id := uint64(0)
	for _, req := range []messages.ServerRequest{
		{Method: messages.MethodReadResource, URI: "file:///k.txt"},
		{Method: messages.MethodGetPrompt, Name: "k"},
		{Method: messages.MethodListResourceTemplates},
	} {
		t.Run(req.Method, func(t *testing.T) {
			before := conns.Load()
			for range reads {
				id++
				r := req
				r.ID = id
				reply, err := system.Root.RequestFuture(pid, &r, 30*time.Second).Result()
				require.NoError(t, err)
				require.IsType(t, &messages.ServerReply{}, reply)
				sr := reply.(*messages.ServerReply)
				require.Nil(t, sr.Failure, "%+v", sr.Failure)
				switch res := sr.Result.(type) {
				case *mcp.ReadResourceResult:
					require.Equal(t, keepAliveText, res.Contents[0].Text)
				case *mcp.GetPromptResult:
					require.Equal(t, keepAliveText, res.Messages[0].Content.(*mcp.TextContent).Text)
				case *mcp.ListResourceTemplatesResult:
					require.Len(t, res.ResourceTemplates, 1)
				default:
					t.Fatalf("unexpected result %T", res)
				}
			}
			assert.LessOrEqual(t, conns.Load()-before, int64(maxNew), "new TCP connections in %d requests", reads)
		})
	}
}

// A request whose POST the server refuses with an HTTP error status and a
// JSON-RPC error in the body fails with both: the status and the
// server's code and words.
func TestAnHTTPRefusalNamesTheJSONRPCCode(t *testing.T) {
	sdk := testserver.NewHTTPHandler(keepAliveServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") != messages.MethodReadResource {
			sdk.ServeHTTP(w, r)
			return
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Invalid params: no such URI"}}`, m.ID)
	}))
	defer srv.Close()

	system := actor.NewActorSystem(quiet.Actors())
	pid := system.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{Transport: transport.StreamableHTTP{URL: srv.URL}}))
	defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()
	res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
	require.NoError(t, err)
	require.IsType(t, &messages.Ready{}, res)

	reply, err := system.Root.RequestFuture(pid, &messages.ServerRequest{ID: 1, Method: messages.MethodReadResource, URI: "file:///nope"}, 30*time.Second).Result()
	require.NoError(t, err)
	require.IsType(t, &messages.ServerReply{}, reply)
	f := reply.(*messages.ServerReply).Failure
	require.NotNil(t, f)
	assert.Equal(t, `resources/read "file:///nope"`, f.Op)
	assert.Equal(t, "the server answered the POST with HTTP 400 Bad Request: error -32602: Invalid params: no such URI", f.Message)
	var re *jsonrpc.Error
	require.ErrorAs(t, f, &re, "the server's error is still there to errors.As")
	assert.Equal(t, int64(-32602), re.Code)
}
