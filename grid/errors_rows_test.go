//go:build !race

// Built without -race: see main_test.go.

package grid_test

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/grid"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// A failure keeps its original error on the member that made it, so the
// facade of grid.Connect on the grain's own member reaches it with
// errors.As; a facade on another member gets the failure's wire form,
// where the cause survives as data (the kind, Cause, the server's
// JSON-RPC error) and the rest as text.
func TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire(t *testing.T) {
	const missing = "mcpconnector-test-no-such-server"
	cmd, args := testserver.Command(t, "call_error")
	hugeCmd, hugeArgs := testserver.Command(t, "misbehave")
	env := map[string]string{"GORACE": "atexit_sleep_ms=0"}
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{
		"absent": {Name: "absent", Type: mcpconfig.TypeStdio, Command: missing},
		"rpc":    {Name: "rpc", Type: mcpconfig.TypeStdio, Command: cmd, Args: args, Env: env},
		"huge":   {Name: "huge", Type: mcpconfig.TypeStdio, Command: hugeCmd, Args: hugeArgs, Env: env},
	}}
	members := startMembers(t, 2, cfg)

	t.Run("a command that cannot start", func(t *testing.T) {
		hosting, others := hostOf(t, members, "absent")
		_, err := grid.Connect(t.Context(), hosting, "absent")
		require.Error(t, err)
		t.Log("on the grain's member:", err)
		assert.ErrorIs(t, err, plugin.ErrIO)
		var se *transport.SpawnError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, missing, se.Command)
		assert.ErrorIs(t, err, exec.ErrNotFound)

		_, err = grid.Connect(t.Context(), others[0], "absent")
		require.Error(t, err)
		t.Log("across the wire:", err)
		assert.ErrorIs(t, err, plugin.ErrIO, "the kind crosses")
		var f *messages.Failure
		require.ErrorAs(t, err, &f)
		assert.Equal(t, messages.CauseNotStarted, f.Cause, "the cause crosses as data")
		assert.Nil(t, f.Err, "the error itself does not")
		assert.False(t, errors.As(err, &se))
		assert.Contains(t, err.Error(), missing, "the text says what")
	})

	t.Run("the server's JSON-RPC error", func(t *testing.T) {
		hosting, others := hostOf(t, members, "rpc")
		for _, m := range []struct {
			where string
			c     *cluster.Cluster
		}{{"on the grain's member", hosting}, {"across the wire", others[0]}} {
			p := connect(t, m.c, "rpc")
			_, err := p.CallTool(t.Context(), "t", nil).Await(t.Context())
			require.Error(t, err, m.where)
			assert.ErrorIs(t, err, plugin.ErrInternal, m.where)
			var rpc *jsonrpc.Error
			require.ErrorAs(t, err, &rpc, m.where)
			assert.Equal(t, int64(testserver.CallErrorCode), rpc.Code, m.where)
			assert.Equal(t, testserver.CallErrorMessage, rpc.Message, m.where)
		}
	})

	// An oversized message's cause stands for transport's sentinel, which
	// package messages does not know: the failure matches it on the
	// grain's member by the error it was made of, and on another member by
	// the error the wire code rebuilds from the cause.
	t.Run("a message over the transport's limit", func(t *testing.T) {
		hosting, others := hostOf(t, members, "huge")
		for _, m := range []struct {
			where string
			c     *cluster.Cluster
		}{{"on the grain's member", hosting}, {"across the wire", others[0]}} {
			p := connect(t, m.c, "huge")
			_, err := p.CallTool(t.Context(), "huge", map[string]any{"mib": transport.MaxMessageBytes>>20 + 1}).Await(t.Context())
			require.Error(t, err, m.where)
			t.Log(m.where+":", err)
			assert.ErrorIs(t, err, plugin.ErrInternal, m.where)
			assert.ErrorIs(t, err, transport.ErrMessageTooLarge, m.where)
			var f *messages.Failure
			require.ErrorAs(t, err, &f, m.where)
			assert.Equal(t, messages.CauseMessageTooLarge, f.Cause, m.where)
		}
	})
}
