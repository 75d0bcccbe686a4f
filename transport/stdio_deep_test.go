package transport

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
)

// An answer nested past 10,000 levels whose id can be read fails its call
// at once, on go-sdk's path and on the direct one, and the session goes on.
func TestAnAnswerTooDeepFailsItsCallAtOnce(t *testing.T) {
	noLeaks(t)
	cs, _, st := session(t, child(t, "deep"), zap.NewNop())
	defer cs.Close()
	// A safety net far beyond any answer: a call left to wait would see it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deep"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), ErrMessageTooDeep.Error())
	require.NoError(t, ctx.Err(), "failed at once, not at the deadline")

	_, err = directcall.CallerOf(st).CallTool(ctx, &mcp.CallToolParams{Name: "deep", Arguments: json.RawMessage(`{}`)}, nil)
	var rpc *jsonrpc.Error
	require.ErrorAs(t, err, &rpc)
	assert.Equal(t, ErrMessageTooDeep.Error(), rpc.Message)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "after"}})
	require.NoError(t, err)
	assert.Equal(t, "after", res.Content[0].(*mcp.TextContent).Text)
}

// A server/discover answered too deep fails connect with that reason, not
// with its timeout.
func TestConnectSaysItsAnswerWasTooDeep(t *testing.T) {
	noLeaks(t)
	tr, err := child(t, "deepdiscover").Open(zap.NewNop())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "transport-test", Version: "0"}, nil)
	// As the plugin's connection does: no legacy initialize, and the
	// error is server/discover's.
	var discoverErr error
	c.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" || method == "notifications/initialized" {
				return nil, errors.New("legacy initialize refused")
			}
			res, err := next(ctx, method, req)
			if method == "server/discover" {
				discoverErr = err
			}
			return res, err
		}
	})
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err == nil {
		_ = cs.Close()
	}
	require.Error(t, err)
	if discoverErr != nil {
		err = discoverErr
	}
	require.NoError(t, ctx.Err(), "failed at once, not at the deadline")
	assert.Contains(t, err.Error(), ErrMessageTooDeep.Error())
}
