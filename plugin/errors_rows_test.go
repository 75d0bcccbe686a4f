package plugin_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// missingCommand is a command no directory of PATH holds.
const missingCommand = "mcpconnector-test-no-such-server"

// The rows of docs/errors.md, each reproduced through the plugin's public
// API against a real part, and matched with errors.Is and errors.As as the
// page says: a row whose cause a layer lost fails here. (internal/docscheck
// checks that every row of the page names a test.)
func TestErrorsPageRowsThroughThePlugin(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	nothingListens := "http://" + ln.Addr().String() + "/mcp"
	require.NoError(t, ln.Close())

	rows := []struct {
		row   string
		run   func(t *testing.T) error
		is    []error
		isNot []error
		as    func(t *testing.T, err error)
	}{
		{row: "plugin.ErrIO, *transport.SpawnError: a command PATH does not hold",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), transport.NewStdio(missingCommand), plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is: []error{plugin.ErrIO, exec.ErrNotFound},
			as: func(t *testing.T, err error) {
				var se *transport.SpawnError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, missingCommand, se.Command)
				assert.ErrorIs(t, se.Err, exec.ErrNotFound)
				var pe *plugin.Error
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, plugin.KindIO, pe.Kind)
				var f *messages.Failure
				require.ErrorAs(t, err, &f)
				assert.Equal(t, messages.CauseNotStarted, f.Cause)
			}},
		{row: "*transport.SpawnError: a path that does not exist",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), transport.NewStdio(filepath.Join(t.TempDir(), "no-such-server")), plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is: []error{plugin.ErrIO, fs.ErrNotExist},
			as: func(t *testing.T, err error) {
				var se *transport.SpawnError
				require.ErrorAs(t, err, &se)
			}},
		{row: "*transport.SpawnError through WaitReady and Reconnect",
			run: func(t *testing.T) error {
				p, err := plugin.Connect(t.Context(), transport.NewStdio(missingCommand), plugin.WithRetryConnect(), plugin.WithConnectTimeout(time.Minute))
				require.NoError(t, err)
				t.Cleanup(func() { _ = p.Close() })
				err = p.WaitReady(t.Context())
				var se *transport.SpawnError
				require.ErrorAs(t, err, &se, "WaitReady: %v", err)
				var pe *plugin.Error
				require.ErrorAs(t, p.Status().LastError, &pe)
				require.ErrorAs(t, p.Status().LastError, &se, "Status().LastError")
				return p.Reconnect(t.Context())
			},
			is: []error{plugin.ErrIO, exec.ErrNotFound},
			as: func(t *testing.T, err error) {
				var se *transport.SpawnError
				require.ErrorAs(t, err, &se)
			}},
		{row: "plugin.ErrNotSupported, transport.ErrNotSupported: an SSE transport without the legacy fallback",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), transport.SSE{URL: "http://127.0.0.1:1/sse"}, plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is:    []error{plugin.ErrNotSupported, transport.ErrNotSupported},
			isNot: []error{plugin.ErrIO, plugin.ErrInternal}},
		{row: "plugin.ErrNotSupported: Reconnect under WithoutSupervision",
			run: func(t *testing.T) error {
				return connect(t, testserver.Stdio(t), plugin.WithoutSupervision()).Reconnect(t.Context())
			},
			is: []error{plugin.ErrNotSupported}},
		{row: "plugin.ErrValidation: arguments that are no JSON object",
			run: func(t *testing.T) error {
				_, err := connect(t, testserver.Stdio(t)).CallTool(t.Context(), "add", []int{1, 2}).Await(t.Context())
				return err
			},
			is: []error{plugin.ErrValidation},
			as: func(t *testing.T, err error) {
				var pe *plugin.Error
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, plugin.ArgumentsSchema, pe.Schema)
			}},
		{row: "plugin.ErrDenied: the approval's reason is kept",
			run: func(t *testing.T) error {
				p := connect(t, testserver.Stdio(t), plugin.WithApproval(func(context.Context, plugin.ApprovalRequest) error { return errNotToday }))
				_, err := p.CallTool(t.Context(), "add", map[string]any{"a": 1, "b": 2}).Await(t.Context())
				return err
			},
			is:    []error{plugin.ErrDenied, errNotToday},
			isNot: []error{plugin.ErrInternal}},
		{row: "plugin.ErrConnectionLost: the server exits under the call",
			run: func(t *testing.T) error {
				_, err := connect(t, testserver.Stdio(t), fast).CallTool(t.Context(), "exit", nil).Await(t.Context())
				return err
			},
			is:    []error{plugin.ErrInternal, plugin.ErrConnectionLost},
			isNot: []error{context.DeadlineExceeded, context.Canceled}},
		{row: "plugin.ErrProtocolVersion: a server that speaks only initialize",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), testserver.Raw(t, "legacy"), plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is: []error{plugin.ErrInternal, plugin.ErrProtocolVersion}},
		{row: "context.DeadlineExceeded: a cap given to a call the server never answers in time",
			run: func(t *testing.T) error {
				p := connect(t, testserver.Stdio(t), plugin.WithCallTimeoutCap(100*time.Millisecond))
				_, err := p.CallTool(t.Context(), "slow", map[string]any{"ms": 60000}).Await(t.Context())
				return err
			},
			is:    []error{plugin.ErrInternal, context.DeadlineExceeded},
			isNot: []error{context.Canceled, plugin.ErrConnectionLost}},
		{row: "context.Canceled: the caller cancels",
			run: func(t *testing.T) error {
				p := connect(t, testserver.Stdio(t))
				ctx, cancel := context.WithCancel(t.Context())
				f := p.CallTool(ctx, "slow", map[string]any{"ms": 60000})
				cancel()
				_, err := f.Await(t.Context())
				return err
			},
			is:    []error{plugin.ErrInternal, context.Canceled},
			isNot: []error{context.DeadlineExceeded}},
		{row: "*jsonrpc.Error: the server answers tools/call with an error",
			run: func(t *testing.T) error {
				_, err := connect(t, testserver.Raw(t, "call_error")).CallTool(t.Context(), "t", nil).Await(t.Context())
				return err
			},
			is:    []error{plugin.ErrInternal},
			isNot: []error{plugin.ErrConnectionLost, context.DeadlineExceeded},
			as: func(t *testing.T, err error) {
				var rpc *jsonrpc.Error
				require.ErrorAs(t, err, &rpc)
				assert.Equal(t, int64(testserver.CallErrorCode), rpc.Code)
				assert.Equal(t, testserver.CallErrorMessage, rpc.Message)
				assert.JSONEq(t, `{"field":"a"}`, string(rpc.Data))
			}},
		{row: "*jsonrpc.Error: the server answers tools/list with an error at Connect",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), testserver.Raw(t, "list_error"), plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is: []error{plugin.ErrInternal},
			as: func(t *testing.T, err error) {
				var rpc *jsonrpc.Error
				require.ErrorAs(t, err, &rpc)
				assert.Equal(t, int64(-32603), rpc.Code)
			}},
		{row: "transport.ErrNotSent: nothing accepts the connection, and no server's error is made up",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), transport.StreamableHTTP{URL: nothingListens}, plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is:    []error{plugin.ErrInternal, transport.ErrNotSent},
			isNot: []error{plugin.ErrProtocolVersion, plugin.ErrConnectionLost},
			as: func(t *testing.T, err error) {
				var rpc *jsonrpc.Error
				assert.False(t, errors.As(err, &rpc), "go-sdk's own code of a rejected write is no server's error: %#v", rpc)
				var ne *net.OpError
				assert.ErrorAs(t, err, &ne, "the dial's error is kept")
			}},
		{row: "none of the above: the child exits before answering",
			run: func(t *testing.T) error {
				_, err := plugin.Connect(t.Context(), transportSh("exit 3"), plugin.WithConnectTimeout(time.Minute))
				return err
			},
			is: []error{plugin.ErrInternal},
			isNot: []error{plugin.ErrCircuitOpen, plugin.ErrProtocolVersion, plugin.ErrConnectionLost, context.DeadlineExceeded,
				context.Canceled, transport.ErrMessageTooLarge},
			as: func(t *testing.T, err error) {
				var rpc *jsonrpc.Error
				assert.False(t, errors.As(err, &rpc))
				var se *transport.SpawnError
				assert.False(t, errors.As(err, &se), "it started")
				var f *messages.Failure
				require.ErrorAs(t, err, &f)
				assert.Equal(t, messages.CauseNone, f.Cause)
			}},
	}
	for _, r := range rows {
		t.Run(r.row, func(t *testing.T) {
			err := r.run(t)
			require.Error(t, err)
			t.Log(err)
			var pe *plugin.Error
			require.ErrorAs(t, err, &pe, "every error of the plugin is a *plugin.Error")
			for _, want := range r.is {
				assert.ErrorIs(t, err, want)
			}
			for _, not := range r.isNot {
				assert.NotErrorIs(t, err, not)
			}
			if r.as != nil {
				r.as(t, err)
			}
		})
	}
}

var errNotToday = errors.New("not today")
