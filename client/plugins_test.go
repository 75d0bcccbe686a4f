package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cuca-go/mcpconnector/host"
)

// eventLog records hook calls across plugins, in order.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// recorder is a plugin that logs every hook and what it saw.
type recorder struct {
	host.Base
	name string
	log  *eventLog
	// chunks holds a copy of every chunk's blocks as this plugin saw them.
	chunks [][]host.Block
	// onChunk, if set, runs after logging and may edit the chunk.
	onChunk func(ctx context.Context, c *host.Chunk) error
	// onRequest, if set, runs after logging.
	onRequest func(r *host.Request) error
	resp      *host.Response
}

func (r *recorder) Name() string { return r.name }

func (r *recorder) OnRequest(_ context.Context, req *host.Request) error {
	r.log.add("%s.OnRequest", r.name)
	if r.onRequest != nil {
		return r.onRequest(req)
	}
	return nil
}

func (r *recorder) OnStreamChunk(ctx context.Context, c *host.Chunk) error {
	for _, b := range c.Blocks {
		r.log.add("%s.OnStreamChunk %s", r.name, describe(b))
	}
	r.chunks = append(r.chunks, append([]host.Block(nil), c.Blocks...))
	if r.onChunk != nil {
		return r.onChunk(ctx, c)
	}
	return nil
}

func (r *recorder) OnResponseComplete(_ context.Context, resp *host.Response) error {
	r.log.add("%s.OnResponseComplete %s", r.name, resp.FinishReason)
	r.resp = resp
	return nil
}

func describe(b host.Block) string {
	switch b := b.(type) {
	case host.Text:
		return fmt.Sprintf("Text(%q)", b.Text)
	case host.Thinking:
		return fmt.Sprintf("Thinking(%q)", b.Text)
	case host.ToolCall:
		return fmt.Sprintf("ToolCall(%s %s %s)", b.ID, b.Name, b.Arguments)
	case host.ToolResult:
		return fmt.Sprintf("ToolResult(%s %s %q err=%v)", b.ToolCallID, b.Name, b.Content, b.IsError)
	}
	return fmt.Sprintf("%T", b)
}

// adder behaves as McpPlugin does for a server with one tool, add: in
// OnStreamChunk it replaces a ToolCall named add with a ToolResult (the sum,
// or error text for arguments that are not a JSON object) and lets every
// other block through.
type adder struct {
	host.Base
	calls int
}

func (a *adder) Name() string { return "adder" }

func (a *adder) OnStreamChunk(_ context.Context, c *host.Chunk) error {
	for i, b := range c.Blocks {
		call, ok := b.(host.ToolCall)
		if !ok || call.Name != "add" {
			continue
		}
		a.calls++
		res := host.ToolResult{ToolCallID: call.ID, Name: call.Name}
		var args struct{ A, B float64 }
		if err := json.Unmarshal(call.Arguments, &args); err != nil {
			res.IsError = true
			res.Content = "invalid arguments: " + err.Error()
		} else {
			res.Content = fmt.Sprint(args.A + args.B)
		}
		c.Blocks[i] = res
	}
	return nil
}

// localRunner handles tool calls named name in ExecuteLocalTool.
type localRunner struct {
	host.Base
	name string
}

func (l *localRunner) Name() string { return "local" }

func (l *localRunner) ExecuteLocalTool(_ context.Context, call host.ToolCall) (host.ToolResult, bool, error) {
	if call.Name != l.name {
		return host.ToolResult{}, false, nil
	}
	return host.ToolResult{Content: "ran " + call.Name}, true, nil
}
