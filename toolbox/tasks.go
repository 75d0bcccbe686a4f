package toolbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// taskResultToolName is the name of the tool [TaskResultTool] offers the
// model, unless [TaskResultTool.Named] gives another.
const taskResultToolName = "get_task_result"

// maxTaskResultWait bounds the wait_seconds a model may ask
// [TaskResultTool]'s tool to wait for a result.
const maxTaskResultWait = 60 * time.Second

// TaskResultTool is the model's way back to a detached call: a tool call
// whose task (SEP-2663) ran longer than [plugin.TaskOptions.DetachAfter]
// left a result naming its task in place of the call, and the model asks
// for the task's result with this tool, by task id, later in the turn or
// in a later turn. It is opt-in: a host that gives its servers
// plugin.WithTasks with DetachAfter registers it beside the toolbox (it is
// a [host.Plugin]) and adds [TaskResultTool.Definition] to its requests.
//
//	tb, err := toolbox.Open(ctx, cfg, toolbox.WithPluginOptions(
//		plugin.WithTasks(plugin.TaskOptions{DetachAfter: 30 * time.Second})))
//	results := tb.TaskResultTool()
//	req.AddTool(results.Definition())
//	// register tb and results with the client
//
// Its answer is the call's result as the hook would have given it (the
// rendered result or the error text, the server's result cap applied), or,
// when the task is still running once the wait ends, a text saying so and
// for how long it has run; the task is never cancelled by it. A result is
// given once: the task is then forgotten.
type TaskResultTool struct {
	host.Base
	name    string
	plugins func() []*plugin.McpPlugin
}

// TaskResultTool returns the tool over t's servers.
func (t *Toolbox) TaskResultTool() *TaskResultTool {
	return &TaskResultTool{name: taskResultToolName, plugins: func() []*plugin.McpPlugin {
		var out []*plugin.McpPlugin
		for _, name := range t.names {
			if p := t.servers[name].plugin(); p != nil {
				out = append(out, p)
			}
		}
		return out
	}}
}

// NewTaskResultTool returns the tool over plugins, for a host that
// registers plugins without a toolbox.
func NewTaskResultTool(plugins ...*plugin.McpPlugin) *TaskResultTool {
	ps := append([]*plugin.McpPlugin(nil), plugins...)
	return &TaskResultTool{name: taskResultToolName, plugins: func() []*plugin.McpPlugin { return ps }}
}

// Named returns the tool under another name (one no server's tool has).
func (r *TaskResultTool) Named(name string) *TaskResultTool {
	c := *r
	c.name = name
	return &c
}

// Name identifies the plugin: "get_task_result" or the name given.
func (r *TaskResultTool) Name() string { return r.name }

// taskResultSchema is the tool's input schema.
const taskResultSchema = `{"type":"object","properties":{` +
	`"task_id":{"type":"string","description":"The task id that the tool call's result named."},` +
	`"wait_seconds":{"type":"number","minimum":0,"maximum":60,"description":"How long to wait for the result if the task is still running (default 0: answer at once)."}},` +
	`"required":["task_id"],"additionalProperties":false}`

// Definition is the tool as the model sees it.
func (r *TaskResultTool) Definition() host.ToolDefinition {
	return host.ToolDefinition{
		Name: r.name,
		Description: "Get the result of a tool call that was still running as a task when its result was due " +
			"(its result said so and named the task id). Answers with the result once the task has ended, " +
			"or says the task is still running and for how long. Each result is given once.",
		InputSchema: json.RawMessage(taskResultSchema),
	}
}

// OnStreamChunk answers every call of the tool in chunk; other blocks
// pass through untouched. It always returns nil.
func (r *TaskResultTool) OnStreamChunk(ctx context.Context, chunk *host.Chunk) error {
	if chunk == nil {
		return nil
	}
	for i, b := range chunk.Blocks {
		if tc, ok := b.(host.ToolCall); ok && tc.Name == r.name {
			out := r.answer(ctx, tc)
			out.ToolCallID, out.Name = tc.ID, tc.Name
			chunk.Blocks[i] = out
		}
	}
	return nil
}

// answer is the result of one call of the tool.
func (r *TaskResultTool) answer(ctx context.Context, tc host.ToolCall) host.ToolResult {
	var args struct {
		TaskID      string  `json:"task_id"`
		WaitSeconds float64 `json:"wait_seconds"`
	}
	if len(tc.Arguments) > 0 {
		if err := json.Unmarshal(tc.Arguments, &args); err != nil {
			return host.ToolResult{Content: "invalid arguments: " + err.Error(), IsError: true}
		}
	}
	if args.TaskID == "" {
		return host.ToolResult{Content: "invalid arguments: task_id is required", IsError: true}
	}
	wait := min(max(time.Duration(args.WaitSeconds*float64(time.Second)), 0), maxTaskResultWait)
	var known []string
	for _, p := range r.plugins() {
		for _, d := range p.DetachedTasks() {
			if d.TaskID != args.TaskID {
				known = append(known, d.TaskID)
				continue
			}
			wctx, cancel := context.WithTimeout(ctx, wait)
			out, _ := p.DetachedResult(wctx, args.TaskID)
			cancel()
			return out
		}
	}
	sort.Strings(known)
	list := "none"
	if len(known) > 0 {
		list = strings.Join(known, ", ")
	}
	return host.ToolResult{Content: fmt.Sprintf("no running or unread task has the id %q (tasks waiting to be read: %s)", args.TaskID, list), IsError: true}
}

// ExecuteLocalTool runs a call of the tool in-process, for hosts that
// execute tools themselves.
func (r *TaskResultTool) ExecuteLocalTool(ctx context.Context, call host.ToolCall) (host.ToolResult, bool, error) {
	if call.Name != r.name {
		return host.ToolResult{}, false, nil
	}
	out := r.answer(ctx, call)
	out.ToolCallID, out.Name = call.ID, call.Name
	return out, true, nil
}

// taskOption is a server's "tasks" setting as its plugin's option.
func taskOption(t *mcpconfig.Tasks) plugin.Option {
	return plugin.WithTasks(plugin.TaskOptions{DefaultPollInterval: t.PollInterval, MinPollInterval: t.MinPollInterval,
		MaxPollInterval: t.MaxPollInterval, Timeout: t.Timeout, DetachAfter: t.DetachAfter})
}
