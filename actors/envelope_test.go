package actors_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/quiet"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// Every message the client sends carries the 2026-07-28 envelope, the
// notifications/cancelled that go-sdk sends by itself included, as the
// server receives them: on stdio from a raw server's log, over HTTP from a
// recorder in front of go-sdk's server.
func TestEveryMessageCarriesTheEnvelopeNotificationsIncluded(t *testing.T) {
	log := filepath.Join(t.TempDir(), "received")
	// With PropagateRequestCancellation the closed POST ends the handler (the
	// cancellation over HTTP), so the server closes without waiting for it.
	rec := &testserver.Recorder{Next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return testserver.NewServer() },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	cases := []struct {
		name     string
		tr       transport.McpTransport
		tool     string
		received func() []string
	}{
		{"stdio", testserver.Raw(t, "hang", log), "hang", func() []string {
			if _, err := os.Stat(log); err != nil {
				return nil
			}
			return testserver.Received(t, log)
		}},
		{"http", transport.StreamableHTTP{URL: srv.URL}, "slow", rec.Lines},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			system := actor.NewActorSystem(quiet.Actors())
			pid := system.Root.Spawn(actors.NewConnectionProps(actors.ConnectionConfig{Transport: c.tr}))
			defer func() { require.NoError(t, system.Root.StopFuture(pid).Wait()) }()
			res, err := system.Root.RequestFuture(pid, &messages.AwaitReady{}, 30*time.Second).Result()
			require.NoError(t, err)
			require.IsType(t, &messages.Ready{}, res)

			system.Root.Send(pid, &messages.CallTool{ID: 1, Name: c.tool, Arguments: []byte(`{"ms":60000}`),
				Deadline: time.Now().Add(time.Minute)})
			arrived := func(method string) func() bool {
				return func() bool {
					return slices.ContainsFunc(c.received(), func(l string) bool { return strings.HasPrefix(l, method+" ") })
				}
			}
			require.Eventually(t, arrived("tools/call"), 10*time.Second, 5*time.Millisecond)
			system.Root.Send(pid, &messages.CancelCall{ID: 1})
			require.Eventually(t, arrived("notifications/cancelled"), 10*time.Second, 5*time.Millisecond)

			lines := c.received()
			assert.Equal(t, "server/discover 2026-07-28 mcpconnector caps", lines[0])
			for _, line := range lines {
				assert.Regexp(t, `^(server/discover|tools/list|tools/call|notifications/cancelled) 2026-07-28 mcpconnector caps$`, line)
			}
		})
	}
}
