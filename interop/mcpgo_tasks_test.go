package interop

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/plugin"
)

// mcp-go v1.2.1's tasks are those of the 2025-11-25 specification
// (SEP-1686), not SEP-2663's: a client asks for a task per call with
// params.task in the tools/call request, a tool declares
// execution.taskSupport (forbidden, optional, required), the answer is a
// CreateTaskResult ({"task": {...}}), tasks/get gives the status alone and
// tasks/result the result. The server neither reads nor answers the
// io.modelcontextprotocol/tasks extension that WithTasks declares in
// _meta, and this client never sends params.task, so mcp-go never makes a
// task for it: what these tests hold is what each kind of tool does then.

// mcpGoTasks is the name of the mcp-go server with task tools, as a child.
const mcpGoTasks = "mcp-go-tasks"

func init() {
	stdioServers[mcpGoTasks] = func(string) error {
		return server.NewStdioServer(newMcpGoTaskServer()).Listen(context.Background(), os.Stdin, os.Stdout)
	}
}

// newMcpGoTaskServer offers the three kinds of task tool mcp-go has, with
// its task capabilities on (list, cancel, tool calls):
//   - "optional": a plain tool whose taskSupport is optional, its handler
//     synchronous;
//   - "required": a task tool (AddTaskTool) whose taskSupport is required;
//   - "taskonly": a task tool whose taskSupport is optional, with no
//     synchronous handler.
func newMcpGoTaskServer() *server.MCPServer {
	s := server.NewMCPServer("interop-mcp-go-tasks", "1.2.1",
		server.WithToolCapabilities(false), server.WithTaskCapabilities(true, true, true))
	s.AddTool(mcp.NewTool("optional", mcp.WithDescription("A tool that may run as a task"),
		mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("done at once"), nil
		})
	asTask := func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return &mcp.CreateTaskResult{}, nil
	}
	s.AddTaskTool(mcp.NewTool("required", mcp.WithDescription("A tool that must run as a task"),
		mcp.WithTaskSupport(mcp.TaskSupportRequired)), asTask)
	s.AddTaskTool(mcp.NewTool("taskonly", mcp.WithDescription("A task tool with no synchronous handler"),
		mcp.WithTaskSupport(mcp.TaskSupportOptional)), asTask)
	return s
}

func TestMcpGoTasks(t *testing.T) {
	endpoints := map[string]func(t *testing.T, record string) *endpoint{
		stdio:      childStdio(mcpGoTasks),
		streamable: inProcessHTTP(func(string) http.Handler { return server.NewStreamableHTTPServer(newMcpGoTaskServer()) }),
	}
	for _, tr := range []string{stdio, streamable} {
		t.Run(tr, func(t *testing.T) {
			ep := endpoints[tr](t, "")
			p := connect(t, ep.tr, plugin.WithTasks(plugin.TaskOptions{}))

			var names []string
			for _, tool := range p.Tools() {
				names = append(names, tool.Name)
			}
			assert.ElementsMatch(t, []string{"optional", "required", "taskonly"}, names,
				"mcp-go lists its task tools with the others")

			// taskSupport optional, a synchronous handler: called without
			// params.task, it answers at once, with no task.
			assert.Equal(t, "done at once", callText(t, p, "optional", nil),
				"a tool whose taskSupport is optional answers synchronously")

			// taskSupport required: -32601 without params.task (over
			// Streamable HTTP in an HTTP 404 answer whose body is the
			// JSON-RPC error).
			_, err := call(p, "required", nil)
			requireMethodNotFound(t, err, "requires task augmentation")

			// A task tool with no synchronous handler: -32601 as well.
			_, err = call(p, "taskonly", nil)
			requireMethodNotFound(t, err, "does not support synchronous execution")

			// The connection is still up after both refusals.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := p.CallTool(ctx, "optional", nil).Await(ctx)
			require.NoError(t, err, "a call after the refusals")
			assert.False(t, res.IsError)
		})
	}
}

// requireMethodNotFound checks that err is the server's JSON-RPC error
// -32601 whose message has want, as the plugin passes it on.
func requireMethodNotFound(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err, "mcp-go refuses the call")
	var re *jsonrpc.Error
	require.True(t, errors.As(err, &re), "errors.As finds the server's *jsonrpc.Error in %v", err)
	assert.Equal(t, int64(jsonrpc.CodeMethodNotFound), re.Code, "the code of %v", re)
	assert.Contains(t, re.Message, want)
	assert.ErrorIs(t, err, plugin.ErrInternal, "a server's error answer is of kind Internal")
}
