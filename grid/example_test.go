//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// A cluster of two members in one process: the first hosts the MCP
// connection as a grain (it registers the kind of grid.NewKind), the second
// registers no kind and calls the tool through the grain. Members of one
// process find each other through protoactor's in-memory test provider; a
// real cluster uses automanaged, etcd, Consul or Kubernetes, with the same
// mcp.json on every member. The server is go-sdk's, on loopback Streamable
// HTTP (stateless, as MCP 2026-07-28 requires).
func ExampleConnect() {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	// The mcp.json every member loads (mcpconfig.Load reads a file).
	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {"calc": {"url": "` + srv.URL + `"}}}`))
	if err != nil {
		log.Fatal(err)
	}

	agent := test.NewInMemAgent()
	member := func(kinds ...*cluster.Kind) *cluster.Cluster {
		system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.DiscardHandler) // protoactor's own logs
		}))
		c := cluster.New(system, cluster.Configure("example", test.NewTestProvider(agent), disthash.New(),
			remote.Configure("127.0.0.1", 0), cluster.WithKinds(kinds...)))
		c.StartMember()
		return c
	}
	hosting := member(grid.NewKind(cfg))
	calling := member()
	defer func() {
		// Leave gracefully: the grain lets its calls finish and closes its
		// connection. protoactor waits 2s in each Shutdown, so both at once.
		var wg sync.WaitGroup
		wg.Go(func() { calling.Shutdown(true) })
		wg.Go(func() { hosting.Shutdown(true) })
		wg.Wait()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for hosting.MemberList.Members().Len() < 2 || calling.MemberList.Members().Len() < 2 {
		if ctx.Err() != nil {
			log.Fatal("the members do not see each other")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// A plugin over the grain, from the member that does not host it: the
	// grain is activated (on the hosting member, the only one of its kind),
	// connects, and answers with its tools.
	calc, err := grid.Connect(ctx, calling, "calc")
	if err != nil {
		log.Fatal(err)
	}
	defer calc.Close() // the grain stays, for the other members

	for _, t := range calc.Tools() {
		fmt.Printf("%s: %s\n", t.Name, t.Description)
	}
	res, err := calc.CallTool(ctx, "add", addArgs{A: 21, B: 21}).Await(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plugin.RenderResult(res))
	grain := calling.Get("calc", grid.KindName)
	fmt.Println("the grain lives on the hosting member:", grain.Address == hosting.ActorSystem.Address())
	// Output:
	// add: Add two numbers
	// 42
	// the grain lives on the hosting member: true
}
