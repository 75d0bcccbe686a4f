package interop

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
)

// With plugin.WithLegacyFallback a server that refuses server/discover
// starts at its older revision: the plugin sends server/discover once, then
// initialize once, lists the tools, and serves a call through CallTool and
// through the stream hook as on a 2026-07-28 session. The HTTP+SSE row is
// not here: the 2024-11-05 HTTP+SSE transport is not built yet (the
// refusal test covers it).
func TestLegacyServersStartWithTheFallback(t *testing.T) {
	for _, s := range legacyServers() {
		if s.Kind == legacySSE {
			continue
		}
		t.Run(s.Row(), func(t *testing.T) {
			r := startLegacy(t, s)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			spans := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
			defer func() { _ = tp.Shutdown(context.Background()) }()
			p, err := plugin.Connect(ctx, r.WireTransport, plugin.WithLegacyFallback(), plugin.WithTracerProvider(tp))
			require.NoError(t, err)
			t.Cleanup(func() { _ = p.Close() })

			assert.Contains(t, actors.LegacyRevisions(), p.ProtocolVersion(), "an older revision")
			assert.Equal(t, p.ProtocolVersion(), p.Status().ProtocolVersion, "the status names it")
			names := make([]string, 0, len(p.Tools()))
			for _, tool := range p.Tools() {
				names = append(names, tool.Name)
			}
			require.True(t, slices.Contains(names, s.Tool), "tools/list names %s: %v", s.Tool, names)

			res, err := p.CallTool(ctx, s.Tool, s.Args).Await(ctx)
			require.NoError(t, err)
			require.False(t, res.IsError, plugin.RenderResult(res))
			assert.Contains(t, plugin.RenderResult(res), r.Want)

			args, err := json.Marshal(s.Args)
			require.NoError(t, err)
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "call-1", Name: s.Tool, Arguments: args}}}
			hookCtx, hookCancel := context.WithTimeout(ctx, time.Minute)
			defer hookCancel()
			require.NoError(t, p.OnStreamChunk(hookCtx, chunk))
			out, ok := chunk.Blocks[0].(host.ToolResult)
			require.True(t, ok, "the hook turned the call into its result")
			assert.False(t, out.IsError, out.Content)
			assert.Contains(t, out.Content, r.Want)

			require.NoError(t, p.Close())
			r.Stop()
			assert.Equal(t, 1, r.Received("server/discover"), "server/discover first, once")
			assert.Equal(t, 1, r.Received("initialize"), "then initialize, once")

			// Spans name the revision the session speaks.
			calls := 0
			for _, sp := range spans.Ended() {
				if sp.Name() != "tools/call "+s.Tool && sp.Name() != "mcp connect" {
					continue
				}
				for _, kv := range sp.Attributes() {
					if kv.Key == "mcp.protocol.version" {
						calls++
						assert.Equal(t, p.ProtocolVersion(), kv.Value.AsString(), sp.Name())
					}
				}
			}
			assert.GreaterOrEqual(t, calls, 3, "the connect span and both calls' spans name a revision")
		})
	}
}
