package toolbox_test

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
	"github.com/cuca-go/mcpconnector/transport"
)

// The causes of docs/errors.md through a toolbox: what a server's plugin
// failed with reaches toolbox.Open's error, a server's Status().LastError
// and Toolbox.CallTool's error for errors.Is and errors.As, not as text
// only.
func TestErrorsPageCausesThroughTheToolbox(t *testing.T) {
	const missing = "mcpconnector-test-no-such-server"

	t.Run("a required server whose command PATH does not hold fails Open with its *transport.SpawnError", func(t *testing.T) {
		cfg := config(t, map[string]entry{"alpha": stdioEntry(t), "absent": {"command": missing, "required": true}})
		tb, err := toolbox.Open(t.Context(), cfg, toolbox.WithPluginOptions(plugin.WithConnectTimeout(time.Minute)))
		require.Error(t, err)
		assert.Nil(t, tb)
		t.Log(err)
		assert.ErrorIs(t, err, toolbox.ErrRequiredServer)
		assert.ErrorIs(t, err, plugin.ErrIO)
		assert.ErrorIs(t, err, exec.ErrNotFound)
		var se *transport.SpawnError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, missing, se.Command)
	})

	t.Run("the status of a server that could not start and of an sse server keep their causes", func(t *testing.T) {
		tb := open(t, config(t, map[string]entry{
			"alpha":  stdioEntry(t),
			"absent": {"command": missing},
			"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
		}))
		st := tb.Status()
		var se *transport.SpawnError
		require.ErrorAs(t, st["absent"].LastError, &se)
		assert.ErrorIs(t, st["absent"].LastError, plugin.ErrIO)
		assert.ErrorIs(t, st["legacy"].LastError, transport.ErrNotSupported)
		assert.ErrorIs(t, st["legacy"].LastError, plugin.ErrNotSupported)
	})

	t.Run("a server's JSON-RPC error answer reaches Toolbox.CallTool's caller as a *jsonrpc.Error", func(t *testing.T) {
		cmd, args := testserver.Command(t, "call_error")
		tb := open(t, config(t, map[string]entry{"rpc": {"command": cmd, "args": args, "env": map[string]string{"GORACE": "atexit_sleep_ms=0"}}}))
		_, err := tb.CallTool(t.Context(), "rpc__t", nil).Await(t.Context())
		require.Error(t, err)
		t.Log(err)
		assert.ErrorIs(t, err, plugin.ErrInternal)
		var rpc *jsonrpc.Error
		require.ErrorAs(t, err, &rpc)
		assert.Equal(t, int64(testserver.CallErrorCode), rpc.Code)
		assert.Equal(t, testserver.CallErrorMessage, rpc.Message)
	})

	t.Run("a failing headersHelper is toolbox.ErrHeadersHelper to errors.Is", func(t *testing.T) {
		url, _ := headersServer(t, 1)
		tb := open(t, config(t, map[string]entry{"exits": {"type": "http", "url": url, "headersHelper": "exit 3"}}),
			toolbox.WithPluginOptions(plugin.WithRestartBudget(1, time.Hour)))
		st := tb.Status()["exits"]
		require.Error(t, st.LastError)
		t.Log(st.LastError)
		assert.ErrorIs(t, st.LastError, toolbox.ErrHeadersHelper)
		var rpc *jsonrpc.Error
		assert.False(t, errors.As(st.LastError, &rpc), "no server's error: %#v", rpc)
	})
}
