package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// ControlsOptions configure [NewControlsServer].
type ControlsOptions struct {
	// ToolsTTL is the ttlMs hint of every tools/list result; zero gives
	// none.
	ToolsTTL time.Duration
	// NoListChanged makes the server not declare tools.listChanged: a
	// client then hears of a changed list only by listing again.
	NoListChanged bool
}

// args are the child's arguments for o (see [Controls]).
func (o ControlsOptions) args() []string {
	var args []string
	if o.ToolsTTL > 0 {
		args = append(args, "ttl="+o.ToolsTTL.String())
	}
	if o.NoListChanged {
		args = append(args, "nolistchanged")
	}
	return args
}

func parseControlsArgs(args []string) (ControlsOptions, error) {
	var o ControlsOptions
	for _, a := range args {
		switch {
		case a == "nolistchanged":
			o.NoListChanged = true
		case strings.HasPrefix(a, "ttl="):
			d, err := time.ParseDuration(strings.TrimPrefix(a, "ttl="))
			if err != nil {
				return o, err
			}
			o.ToolsTTL = d
		default:
			return o, fmt.Errorf("unknown controls argument %q", a)
		}
	}
	return o, nil
}

// The controls server runs in a child process as the raw mode "controls",
// with go-sdk serving stdio.
func init() {
	rawModes["controls"] = func(args []string, _ io.Reader, _ io.Writer) error {
		o, err := parseControlsArgs(args)
		if err != nil {
			return err
		}
		return NewControlsServer(o).Run(context.Background(), &mcp.StdioTransport{})
	}
}

// Controls returns a transport that runs this test binary as
// [NewControlsServer] over stdio.
func Controls(t testing.TB, o ControlsOptions) transport.Stdio {
	t.Helper()
	return Raw(t, "controls", o.args()...)
}

// ControlsCommand is [Command] for [NewControlsServer], for an mcp.json
// entry.
func ControlsCommand(t testing.TB, o ControlsOptions) (string, []string) {
	t.Helper()
	return Command(t, "controls", o.args()...)
}

// ControlsStats is what the "stats" tool of [NewControlsServer] reports.
type ControlsStats struct {
	// Calls counts the tool calls that reached a handler, "stats" aside.
	Calls int64 `json:"calls"`
	// Cancelled counts the calls that ended because the client cancelled
	// them.
	Cancelled int64 `json:"cancelled"`
	// Running counts the calls still in a handler, "stats" aside.
	Running int64 `json:"running"`
}

// NewControlsServer returns a go-sdk server for the host controls
// (approval, progress, idle timeout, result cap, live tool lists). Its
// tools:
//
//   - progress {steps, ms}: sends steps notifications/progress ("step i",
//     progress i of total steps) to the call's progress token, each
//     followed by a wait of ms, then "done"; none without a token.
//   - silent {ms}: waits ms without a word, then "done".
//   - token: the call's progress token as JSON ("null" without one).
//   - text {unit, times}: unit repeated times times, as one text block.
//   - stats: [ControlsStats] as JSON.
//   - add_tool {name}: adds a tool name that answers "I am <name>";
//     remove_tool {name} removes it. Servers that declare listChanged tell
//     the subscribed clients.
//
// A call that is cancelled ends at once and counts in Cancelled.
func NewControlsServer(o ControlsOptions) *mcp.Server {
	var opts mcp.ServerOptions
	if o.ToolsTTL > 0 {
		ttl := int(o.ToolsTTL / time.Millisecond)
		opts.SetCacheable = func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.(*mcp.ListToolsRequest); ok {
				c.TTLMs = ttl
			}
		}
	}
	if o.NoListChanged {
		opts.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "controls", Version: "1.0.0"}, &opts)
	var stats struct{ calls, cancelled, running atomic.Int64 }
	// start counts a call in; the returned func counts it out.
	start := func() func() {
		stats.calls.Add(1)
		stats.running.Add(1)
		return func() { stats.running.Add(-1) }
	}
	// wait waits d or until the call is cancelled.
	wait := func(ctx context.Context, d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			stats.cancelled.Add(1)
			return ctx.Err()
		}
	}

	type progressIn struct {
		Steps int `json:"steps"`
		MS    int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Report progress steps times, ms apart"},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
			defer start()()
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if token != nil {
					err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
					})
					if err != nil {
						return nil, nil, err
					}
				}
				// The wait after each step keeps the result from
				// overtaking the last progress, which a client drops.
				if err := wait(ctx, time.Duration(in.MS)*time.Millisecond); err != nil {
					return nil, nil, err
				}
			}
			return text("done"), nil, nil
		})
	type silentIn struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "silent", Description: "Wait ms without progress"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in silentIn) (*mcp.CallToolResult, any, error) {
			defer start()()
			if err := wait(ctx, time.Duration(in.MS)*time.Millisecond); err != nil {
				return nil, nil, err
			}
			return text("done"), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "token", Description: "The call's progress token", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			defer start()()
			b, err := json.Marshal(req.Params.GetProgressToken())
			if err != nil {
				return nil, err
			}
			return text(string(b)), nil
		})
	type textIn struct {
		Unit  string `json:"unit"`
		Times int    `json:"times"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "text", Description: "unit repeated times times"},
		func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			defer start()()
			return text(strings.Repeat(in.Unit, in.Times)), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "stats", Description: "What reached the server", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(ControlsStats{Calls: stats.calls.Load(), Cancelled: stats.cancelled.Load(), Running: stats.running.Load()})
			if err != nil {
				return nil, err
			}
			return text(string(b)), nil
		})
	type nameIn struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add_tool", Description: "Add a tool named name"},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
			defer start()()
			s.AddTool(&mcp.Tool{Name: in.Name, Description: "Added at runtime", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					defer start()()
					return text("I am " + in.Name), nil
				})
			return text("added " + in.Name), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "remove_tool", Description: "Remove the tool named name"},
		func(_ context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, any, error) {
			defer start()()
			s.RemoveTools(in.Name)
			return text("removed " + in.Name), nil, nil
		})
	return s
}

// ControlsToolNames is the sorted list of [NewControlsServer]'s tools.
var ControlsToolNames = strings.Fields("add_tool progress remove_tool silent stats text token")
