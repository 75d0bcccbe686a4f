package toolbox_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// The count server's variants this file adds, chosen by
// countserver.VariantEnv so that the entry's manifest (which digests the
// command, args and env names, never values) stays the one a working
// variant wrote: "hang" logs its start and never answers; "exit" logs its
// start and exits at once.
const (
	variantHang = "hang"
	variantExit = "exit"
)

func init() {
	if len(os.Args) < 2 || os.Args[1] != "mcpconnector-count-server" {
		return
	}
	v := os.Getenv(countserver.VariantEnv)
	if v != variantHang && v != variantExit {
		return
	}
	if path := os.Getenv(countserver.StartLogEnv); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = fmt.Fprintf(f, "start %d\n", os.Getpid())
			_ = f.Close()
		}
	}
	if v == variantExit {
		os.Exit(3)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() { // read every request, answer none, until stdin closes
	}
	os.Exit(0)
}

// lazyVariant opens a toolbox whose lazy server "c" runs the count
// server's variant, its tools exposed from the manifest a working run
// wrote; log counts the server's starts.
func lazyVariant(t *testing.T, variant string, opts ...toolbox.Option) (tb *toolbox.Toolbox, log string) {
	t.Helper()
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	good := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, good, toolbox.WithManifestDir(dir)).Close())
	require.Equal(t, 1, countserver.Starts(t, log))
	bad := config(t, map[string]entry{"c": counted(t, log, variant, entry{"lazy": true})})
	tb = open(t, bad, append([]toolbox.Option{toolbox.WithManifestDir(dir)}, opts...)...)
	require.Equal(t, actors.NotStarted, tb.Status()["c"].State)
	return tb, log
}

// hookCall calls name through OnStreamChunk, as a model's call comes, and
// returns the result block.
func hookCall(ctx context.Context, t *testing.T, tb *toolbox.Toolbox, name string) host.ToolResult {
	t.Helper()
	chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "id1", Name: name, Arguments: []byte(`{"text":"hi"}`)}}}
	require.NoError(t, tb.OnStreamChunk(ctx, chunk))
	res, ok := chunk.Blocks[0].(host.ToolResult)
	require.True(t, ok, "%T", chunk.Blocks[0])
	return res
}

func TestALazyStartThatNeverAnswersEndsByTheConnectTimeout(t *testing.T) {
	tb, _ := lazyVariant(t, variantHang, toolbox.WithPluginOptions(plugin.WithConnectTimeout(time.Second)))
	// The ctx would allow far more than the connect timeout: the call
	// ends first, by the connect timeout, with the ctx still live.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
	require.Error(t, err)
	require.NoError(t, ctx.Err(), "the connect timeout ended the call, not its ctx")
	assert.ErrorIs(t, err, plugin.ErrInternal)
	// The toolbox's wait and the connection's attempt share the one
	// connect timeout: whichever reports first ends the call, and the
	// connection's own failure matches context.DeadlineExceeded.
	assert.Contains(t, err.Error(), "connect timeout of 1s")

	res := hookCall(ctx, t, tb, "c__echo")
	require.NoError(t, ctx.Err())
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content, "connect timeout of 1s")
}

func TestALazyStartEndsByTheCallsCtxWhenItIsFirst(t *testing.T) {
	tb, log := lazyVariant(t, variantHang, toolbox.WithPluginOptions(plugin.WithConnectTimeout(5*time.Minute)))
	stop := errors.New("the caller gave up")
	for _, via := range []string{"CallTool", "OnStreamChunk"} {
		t.Run(via, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			before := countserver.Starts(t, log)
			go func() {
				// Once the child is up (and answering nothing), the caller gives up.
				for countserver.Starts(t, log) == before && ctx.Err() == nil {
					time.Sleep(5 * time.Millisecond)
				}
				cancel(stop)
			}()
			var text string
			if via == "CallTool" {
				_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
				require.Error(t, err)
				assert.ErrorIs(t, err, stop)
				text = err.Error()
			} else {
				res := hookCall(ctx, t, tb, "c__echo")
				require.True(t, res.IsError)
				text = res.Content
			}
			assert.Contains(t, text, "ctx ended before the lazy server was ready")
			assert.Contains(t, text, stop.Error())
			assert.NotContains(t, text, "connect timeout")
		})
		// The start under way waits its five minutes: a fresh toolbox for the hook.
		if via == "CallTool" {
			require.NoError(t, tb.Close())
			tb, log = lazyVariant(t, variantHang, toolbox.WithPluginOptions(plugin.WithConnectTimeout(5*time.Minute)))
		}
	}
}

func TestAFailedLazyServerFollowsItsBreaker(t *testing.T) {
	tb, log := lazyVariant(t, variantExit,
		toolbox.WithPluginOptions(
			plugin.WithBackoff(time.Millisecond, 2*time.Millisecond),
			plugin.WithRestartBudget(2, time.Hour),
			plugin.WithBreakerCoolDown(time.Hour, time.Hour)))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// The lazy start fails: the breaker opens at once, with the server's
	// failure, and nothing restarts it in the background.
	_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
	require.ErrorIs(t, err, plugin.ErrCircuitOpen)
	assert.Contains(t, err.Error(), "exit status 3")
	starts := countserver.Starts(t, log)
	assert.Equal(t, 1+1, starts, "the first run's, the lazy start: then the breaker, no restart")
	for range 5 {
		_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
		require.ErrorIs(t, err, plugin.ErrCircuitOpen)
		res := hookCall(ctx, t, tb, "c__echo")
		assert.True(t, res.IsError)
		assert.Contains(t, res.Content, "circuit open")
	}
	assert.Equal(t, starts, countserver.Starts(t, log), "no start while the breaker is open")
	assert.ErrorIs(t, tb.Status()["c"].LastError, plugin.ErrCircuitOpen)
}

func TestAnEntrysConnectTimeoutBoundsItsLazyStart(t *testing.T) {
	dir, log := t.TempDir(), filepath.Join(t.TempDir(), "starts")
	good := config(t, map[string]entry{"c": counted(t, log, "1", entry{"lazy": true})})
	require.NoError(t, open(t, good, toolbox.WithManifestDir(dir)).Close())
	bad := config(t, map[string]entry{"c": counted(t, log, variantHang, entry{"lazy": true})})
	bad.Servers["c"].ConnectTimeout = time.Second // Codex's startup_timeout_sec = 1
	tb := open(t, bad, toolbox.WithManifestDir(dir), toolbox.WithPluginOptions(plugin.WithConnectTimeout(5*time.Minute)))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
	require.Error(t, err)
	require.NoError(t, ctx.Err())
	assert.Contains(t, err.Error(), "connect timeout of 1s")
}

func TestEveryCallWaitingForALazyConnectionEndsByTheConnectTimeout(t *testing.T) {
	// The server never answers: each call waits no longer than the
	// connect timeout, the first (which starts the server) and those that
	// find it still connecting.
	tb, log := lazyVariant(t, variantHang, toolbox.WithPluginOptions(plugin.WithConnectTimeout(time.Second),
		plugin.WithBackoff(time.Minute, time.Minute)))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	for i := range 3 {
		_, err := tb.CallTool(ctx, "c__echo", map[string]any{"text": "hi"}).Await(ctx)
		require.Error(t, err, i)
		require.NoError(t, ctx.Err(), i)
		assert.Contains(t, err.Error(), "connect timeout of 1s", i)
		res := hookCall(ctx, t, tb, "c__echo")
		require.NoError(t, ctx.Err(), i)
		assert.True(t, res.IsError, i)
		assert.Contains(t, res.Content, "connect timeout of 1s", i)
	}
	st := tb.Status()["c"]
	assert.Equal(t, actors.Failed, st.State, "the attempt failed; the next waits for its backoff")
	require.Error(t, st.LastError)
	assert.Contains(t, st.LastError.Error(), "connect timeout of 1s")
	assert.Equal(t, 2, countserver.Starts(t, log), "started once")
}
