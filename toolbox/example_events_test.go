package toolbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// A status handler for a UI: each change of a server's status comes with
// the server's name in the config, its state, its restarts and its last
// error, with no string to parse. A server that the toolbox cannot start
// ("sse" is not supported) is reported once, failed, during Open.
func ExampleWithStatusHandler() {
	calc := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	mcp.AddTool(calc, &mcp.Tool{Name: "add"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return calc }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers": {
		"calc":   {"url": "` + srv.URL + `"},
		"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}
	}}`))
	if err != nil {
		log.Fatal(err)
	}

	// The handler runs on the server's goroutine: it only records.
	var mu sync.Mutex
	settled := map[string]string{} // each server's first ready or failed status
	changed := make(chan struct{}, 16)
	handler := func(st toolbox.ServerStatus) {
		mu.Lock()
		defer mu.Unlock()
		if _, seen := settled[st.Server]; seen || st.State == actors.Connecting {
			return
		}
		settled[st.Server] = fmt.Sprintf("%s %s restarts=%d not-supported=%t",
			st.Server, st.State, st.Restarts, errors.Is(st.LastError, plugin.ErrNotSupported))
		select {
		case changed <- struct{}{}:
		default:
		}
	}

	ctx := context.Background()
	tb, err := toolbox.Open(ctx, cfg, toolbox.WithStatusHandler(handler))
	if err != nil {
		log.Fatal(err)
	}
	defer tb.Close()

	for {
		mu.Lock()
		lines := make([]string, 0, len(settled))
		for _, l := range settled {
			lines = append(lines, l)
		}
		mu.Unlock()
		if len(lines) == 2 {
			slices.Sort(lines)
			for _, l := range lines {
				fmt.Println(l)
			}
			break
		}
		select {
		case <-changed:
		case <-time.After(time.Minute):
			fmt.Println("still waiting; so far:", lines)
			return
		}
	}
	// Output:
	// calc ready restarts=0 not-supported=false
	// legacy failed restarts=0 not-supported=true
}
