package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// refusingNotifications answers 400 to every POST that carries a JSON-RPC
// notification, as a strict server does to one it finds invalid, and hands
// everything else to next. It counts the notifications it refused.
type refusingNotifications struct {
	next    http.Handler
	refused atomic.Int64
}

func (h *refusingNotifications) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" && len(msg.ID) == 0 {
			h.refused.Add(1)
			http.Error(w, "notification refused", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	h.next.ServeHTTP(w, r)
}

// The defect of issue 15: over Streamable HTTP, a server's 400 to
// notifications/cancelled failed the next, unrelated call and made the
// supervisor reconnect. Each round cancels a slow call once it runs on the
// server, then calls add at once; every add must succeed, nothing must
// reconnect, and each refusal is a warning naming the status.
func TestRejectedNotificationDoesNotEndTheHTTPSession(t *testing.T) {
	const rounds = 20
	// With PropagateRequestCancellation the closed POST ends the slow handler
	// (the cancellation over HTTP), so the server closes without waiting.
	h := &refusingNotifications{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return testserver.NewServer() },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})}
	srv := httptest.NewServer(h)
	defer srv.Close()
	core, logs := observer.New(zap.WarnLevel)
	ctx, cancelConnect := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancelConnect()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL}, plugin.WithLogger(zap.New(core)))
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()

	failed := 0
	for i := range rounds {
		before := testserver.Calls.Load()
		callCtx, cancel := context.WithCancel(context.Background())
		slow := p.CallTool(callCtx, "slow", map[string]any{"ms": 60000})
		if !assert.Eventually(t, func() bool { return testserver.Calls.Load() > before }, 5*time.Second, time.Millisecond,
			"round %d: the slow call reaches the server (status %v)", i, p.Status()) {
			failed++
			cancel()
			continue
		}
		cancel()
		_, err := slow.Await(context.Background())
		assert.ErrorIs(t, err, context.Canceled, "round %d", i)
		res, err := p.CallTool(context.Background(), "add", map[string]any{"a": i, "b": 1}).Await(context.Background())
		if !assert.NoError(t, err, "round %d: add right after a cancellation", i) {
			failed++
			continue
		}
		assert.Equal(t, fmt.Sprint(i+1), plugin.RenderResult(res), "round %d", i)
	}
	t.Logf("%d rounds: %d adds failed, %d reconnections, %d notifications refused", rounds, failed, p.Status().Restarts, h.refused.Load())
	assert.Zero(t, failed, "adds that failed")
	assert.Zero(t, p.Status().Restarts, "reconnections")
	require.Eventually(t, func() bool { return h.refused.Load() >= rounds }, 10*time.Second, 5*time.Millisecond,
		"every cancellation was sent (and refused)")
	warned := logs.FilterMessageSnippet("notification").FilterField(zap.Int("status", http.StatusBadRequest))
	assert.GreaterOrEqual(t, warned.Len(), rounds, "each refused notification is a warning with its status; got %v", logs.All())
}
