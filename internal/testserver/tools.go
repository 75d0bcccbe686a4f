package testserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddInput is the argument object of the "add" tool.
type AddInput struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// SumOutput is the structured output of "add_structured".
type SumOutput struct {
	Sum float64 `json:"sum"`
}

// Calls counts tool calls that reached this process's server, by the "slow"
// and "count" tools, for tests that prove a call ran once.
var Calls atomic.Int64

// gather counts the "gather" calls that have arrived, meet the "meet"
// calls.
var gather, meet atomic.Int64

// NewServer returns the go-sdk server every test talks to. Its tools:
//
//   - add {a, b}: "a+b" as text (e.g. "42").
//   - echo {any}: the argument object's JSON as text; "{}" for none.
//   - fail: an isError result with text "boom".
//   - slow {ms}: waits ms milliseconds or until cancelled, then "done";
//     a cancelled wait writes "cancelled" to stderr.
//   - count: increments [Calls] and returns its new value.
//   - image, audio, resource, link, mixed: one of each content kind.
//   - add_structured {a, b}: structuredContent {"sum": a+b} and no content.
//   - gather {n}: waits until all n gather calls of its batch have arrived
//     (they come in batches of n), then
//     "together"; "alone" after 10s, which only serialised calls produce.
//   - meet {dir, n}: gather across processes: each call leaves a file in
//     dir and waits until dir holds n, then "together"; "alone" after
//     10s, which only serialised calls produce.
//   - pid: the server's process id.
//   - record {path, tag, ms}: appends tag as a line to the file at path,
//     then waits ms; the file outlives the server, so it proves how often a
//     call ran. record_idempotent is the same, annotated idempotentHint.
//   - exit: the server process exits with status 3 after writing to stderr.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers and return their sum"},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(in.A + in.B)), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo the arguments", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := string(req.Params.Arguments)
			if args == "" {
				args = "{}"
			}
			return text(args), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}}, nil
		})
	type slowIn struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Wait ms milliseconds"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			Calls.Add(1)
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("done"), nil, nil
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "cancelled")
				return nil, nil, ctx.Err()
			}
		})
	s.AddTool(&mcp.Tool{Name: "count", Description: "Count calls", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint(Calls.Add(1))), nil
		})
	content := map[string]mcp.Content{
		"image":    &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
		"audio":    &mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
		"resource": &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "hello"}},
		"link":     &mcp.ResourceLink{URI: "file:///big.bin", Name: "big", MIMEType: "application/octet-stream"},
	}
	for name, c := range content {
		s.AddTool(&mcp.Tool{Name: name, Description: "Returns " + name + " content", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{c}}, nil
			})
	}
	s.AddTool(&mcp.Tool{Name: "mixed", Description: "Text and an image", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "line one"}, &mcp.ImageContent{MIMEType: "image/jpeg", Data: []byte("xyz")}, &mcp.TextContent{Text: "line two"},
			}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add_structured", Description: "Add, structured"},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, SumOutput, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, SumOutput{Sum: in.A + in.B}, nil
		})
	type gatherIn struct {
		N int `json:"n"`
	}
	type meetIn struct {
		Dir string `json:"dir"`
		N   int    `json:"n"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "meet", Description: "Wait until n calls of meet, from any process, are in dir at once"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in meetIn) (*mcp.CallToolResult, any, error) {
			k := meet.Add(1)
			if err := os.WriteFile(filepath.Join(in.Dir, fmt.Sprintf("%d-%d", os.Getpid(), k)), nil, 0o600); err != nil {
				return nil, nil, err
			}
			deadline := time.After(10 * time.Second)
			for {
				entries, err := os.ReadDir(in.Dir)
				if err != nil {
					return nil, nil, err
				}
				if len(entries) >= in.N {
					return text("together"), nil, nil
				}
				select {
				case <-time.After(time.Millisecond):
				case <-deadline:
					return text("alone"), nil, nil
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "gather", Description: "Wait until n calls of gather are in flight at once"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in gatherIn) (*mcp.CallToolResult, any, error) {
			if in.N < 1 {
				in.N = 1
			}
			// Calls come in batches of n: the k-th arrival waits for the
			// last arrival of its batch.
			k := gather.Add(1)
			target := ((k-1)/int64(in.N) + 1) * int64(in.N)
			deadline := time.After(10 * time.Second)
			for gather.Load() < target {
				select {
				case <-time.After(time.Millisecond):
				case <-deadline:
					return text("alone"), nil, nil
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			}
			return text("together"), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "pid", Description: "The server's process id", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint(os.Getpid())), nil
		})
	type recordIn struct {
		Path string `json:"path"`
		Tag  string `json:"tag"`
		MS   int    `json:"ms"`
	}
	record := func(ctx context.Context, _ *mcp.CallToolRequest, in recordIn) (*mcp.CallToolResult, any, error) {
		f, err := os.OpenFile(in.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(f, in.Tag)
		f.Close()
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return text("recorded " + in.Tag), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "record", Description: "Append tag to the file at path, then wait ms"}, record)
	mcp.AddTool(s, &mcp.Tool{Name: "record_idempotent", Description: "record, annotated idempotent",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, record)
	s.AddTool(&mcp.Tool{Name: "exit", Description: "Exit the server process", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "exiting on request")
			os.Exit(3)
			return nil, errors.New("unreachable")
		})
	return s
}

// ToolNames is the sorted list of [NewServer]'s tools.
var ToolNames = strings.Fields("add add_structured audio count echo exit fail gather image link meet mixed pid record record_idempotent resource slow")

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
