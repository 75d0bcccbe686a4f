package plugin_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
)

// One deadline, one clock: a call that ends because its caller's deadline
// passed ends with ctx's own error, and ctx says so by the time the call
// returns, whichever timer fired first (the connection's for the call's
// deadline, or ctx's). A caller that looks at ctx.Err() after a call (as
// the framework adapters do, to end a run) never takes the failure for a
// result. Deadlines of a few milliseconds meet the call everywhere on its
// way: before it is sent, in the connection's queue, on the server.
func TestCallerDeadlineEndsTheCallWithCtxError(t *testing.T) {
	const calls = 200
	// Long enough never to answer before a deadline of milliseconds, short
	// enough for the HTTP server's close to wait out the calls it still runs.
	slow := json.RawMessage(`{"ms":3000}`)
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			p := connect(t, tr)
			t.Run("CallTool", func(t *testing.T) {
				for i := range calls {
					ctx, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
					res, err := p.CallTool(ctx, "slow", slow).Await(t.Context())
					ctxErr := ctx.Err()
					cancel()
					require.Nil(t, res, "call %d", i)
					require.ErrorIs(t, err, context.DeadlineExceeded, "call %d", i)
					require.ErrorIs(t, err, plugin.ErrInternal, "call %d", i)
					require.ErrorIs(t, ctxErr, context.DeadlineExceeded, "call %d: ctx did not yet say its deadline passed when the call returned: %v", i, err)
				}
			})
			t.Run("hook", func(t *testing.T) {
				for i := range calls {
					ctx, cancel := context.WithTimeout(t.Context(), time.Duration(1+i%5)*time.Millisecond)
					chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "c", Name: "slow", Arguments: slow}}}
					require.NoError(t, p.OnStreamChunk(ctx, chunk))
					ctxErr := ctx.Err()
					cancel()
					out, ok := chunk.Blocks[0].(host.ToolResult)
					require.True(t, ok, "call %d", i)
					require.True(t, out.IsError, "call %d: %s", i, out.Content)
					require.Contains(t, out.Content, "the caller's deadline passed", "call %d", i)
					require.ErrorIs(t, ctxErr, context.DeadlineExceeded, "call %d: ctx did not yet say its deadline passed when the hook returned %q", i, out.Content)
				}
			})
		})
	}
}
