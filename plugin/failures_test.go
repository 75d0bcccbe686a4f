package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/internal/fixture/proc"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// Every limit that ends a call makes an error that matches
// context.DeadlineExceeded and names the limit, whichever timer fires.
func TestEveryDeadlineWrapsDeadlineExceededAndNamesItsLimit(t *testing.T) {
	slow := map[string]any{"ms": 60000}
	cases := []struct {
		name  string
		opts  []plugin.Option
		ctx   func() (context.Context, context.CancelFunc)
		limit string
	}{
		{"tool timeout", []plugin.Option{plugin.WithCallTimeoutCap(100 * time.Millisecond)}, nil, "tool timeout of 100ms"},
		{"call timeout", []plugin.Option{plugin.WithDefaultCallTimeout(100 * time.Millisecond)}, nil, "call timeout of 100ms"},
		{"caller's deadline", nil, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := connect(t, testserver.Stdio(t), tc.opts...)
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			_, err := p.CallTool(ctx, "slow", slow).Await(context.Background())
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorIs(t, err, plugin.ErrInternal, "the kind stays Internal")
			assert.NotErrorIs(t, err, context.Canceled)
			assert.NotContains(t, err.Error(), "context canceled")
			if tc.limit != "" {
				assert.Contains(t, err.Error(), tc.limit)
			}
		})
	}
}

// A caller that cancels gets an error that matches context.Canceled.
func TestCancelledCallWrapsCanceled(t *testing.T) {
	p := connect(t, testserver.Stdio(t))
	ctx, cancel := context.WithCancel(context.Background())
	f := p.CallTool(ctx, "slow", map[string]any{"ms": 60000})
	cancel()
	_, err := f.Await(context.Background())
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, plugin.ErrInternal)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
}

// A server's JSON-RPC error reaches the caller as go-sdk's *jsonrpc.Error,
// code, message and data intact.
func TestServerJSONRPCErrorIsFoundByErrorsAs(t *testing.T) {
	p := connect(t, testserver.Raw(t, "call_error"))
	_, err := p.CallTool(context.Background(), "t", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrInternal)
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, int64(testserver.CallErrorCode), rpc.Code)
	assert.Equal(t, testserver.CallErrorMessage, rpc.Message)
	assert.JSONEq(t, `{"field":"a"}`, string(rpc.Data))
	assert.NotErrorIs(t, err, plugin.ErrConnectionLost)
}

// A call the session ends under fails with ErrConnectionLost (and is of
// kind Internal), supervised or not; it is answered once.
func TestCallInFlightWhenTheServerDiesIsConnectionLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []plugin.Option
	}{{"supervised", []plugin.Option{fast}}, {"unsupervised", []plugin.Option{plugin.WithoutSupervision()}}} {
		t.Run(tc.name, func(t *testing.T) {
			p := connect(t, testserver.Stdio(t), tc.opts...)
			_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
			require.ErrorIs(t, err, plugin.ErrConnectionLost)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
		})
	}
}

// Calls made just after the server died, before the connection has heard
// of it, never reached the server: they wait for the reconnection and
// succeed, instead of failing with "client is closing".
func TestCallsTheDeadSessionNeverSentWaitForTheReconnection(t *testing.T) {
	p := connect(t, testserver.Stdio(t), fast)
	for round := range 3 {
		_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
		require.ErrorIs(t, err, plugin.ErrConnectionLost, "round %d", round)
		// The session is broken now; the connection may not know it yet.
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := p.CallTool(context.Background(), "add", map[string]any{"a": i, "b": 1}).Await(context.Background())
				if err == nil && (len(res.Content) != 1 || res.IsError) {
					err = errors.New("unexpected result")
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "round %d, call %d", round, i)
		}
	}
}

// The failures' causes survive an unsupervised connection that has
// ended: later calls fail with the session's loss.
func TestCallsAfterAnUnsupervisedSessionEndedAreConnectionLost(t *testing.T) {
	p := connect(t, testserver.Stdio(t), plugin.WithoutSupervision())
	_, err := p.CallTool(context.Background(), "exit", nil).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrConnectionLost)
	require.Eventually(t, func() bool { return p.Status().State == actors.Failed }, 10*time.Second, time.Millisecond)
	_, err = p.CallTool(context.Background(), "add", json.RawMessage(`{"a":1,"b":2}`)).Await(context.Background())
	require.ErrorIs(t, err, plugin.ErrConnectionLost)
	assert.ErrorIs(t, err, plugin.ErrInternal)
}

// awaitGone waits until our child pid has exited, every thread of it:
// its pipes are closed then. (Its zombie stays for the transport to reap.)
func awaitGone(t *testing.T, pid int) {
	t.Helper()
	require.NoError(t, proc.AwaitExit(t.Context(), pid))
}

// Calls made right after the server was killed, before the connection has
// heard of it, never reached the server: they wait for the reconnection
// and succeed, instead of failing with "client is closing".
func TestCallsRightAfterAKillWaitForTheReconnection(t *testing.T) {
	p := connect(t, testserver.Stdio(t), fast)
	for round := range 3 {
		pid := killServer(t, p)
		awaitGone(t, pid)
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = p.CallTool(context.Background(), "add", map[string]any{"a": i, "b": 1}).Await(context.Background())
			}()
		}
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "round %d, call %d", round, i)
		}
	}
}
