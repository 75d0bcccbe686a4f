package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// The server SDKs and transports of the matrix.
const (
	goSDK      = "go-sdk"
	mcpGo      = "mcp-go"
	typeScript = "typescript"

	stdio      = "stdio"
	streamable = "http"
)

// sdkNames and transportNames are what the table calls them.
var (
	sdkNames = map[string]string{
		goSDK:      "go-sdk v1.8.0",
		mcpGo:      "mcp-go v1.2.1",
		typeScript: "TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0)",
	}
	transportNames = map[string]string{stdio: "stdio", streamable: "Streamable HTTP"}
)

// tableEnv names the file TestInterop writes its table to, when set.
const tableEnv = "MCPCONNECTOR_INTEROP_TABLE"

// endpoint is one running interop server and the way to reach it.
type endpoint struct {
	tr transport.McpTransport
	// stop and start take an HTTP server down and bring it up again on
	// the same port; nil for stdio, whose server exits by itself.
	stop, start func(t *testing.T)
}

// row is one SDK over one transport.
type row struct {
	sdk, transport string
	// open starts a fresh server that records to the file record.
	open func(t *testing.T, record string) *endpoint
	// lacks says, per scenario, what the SDK cannot do; the cell says so.
	lacks map[string]string
	// setup says how the server is served, where it is not the SDK's
	// plain default or the default limits a scenario; the table says so.
	setup string
}

func (r row) name() string { return r.sdk + "/" + r.transport }

// rowRun is a row under test: its server, its record file and a plugin
// connected to it.
type rowRun struct {
	row    row
	ep     *endpoint
	record string
	p      *plugin.McpPlugin
	logs   *observer.ObservedLogs
}

// scenario is one column of the matrix.
type scenario struct {
	name string
	run  func(t *testing.T, r *rowRun)
}

// typeScriptLacks is what the TypeScript SDK's McpServer cannot do.
var typeScriptLacks = map[string]string{
	"pagination": "McpServer lists every tool in one page; the SDK does not page tools/list",
}

func rows() []row {
	return []row{
		{sdk: goSDK, transport: stdio, open: childStdio(goSDK),
			setup: "Server.Run with StdioTransport"},
		{sdk: goSDK, transport: streamable, open: inProcessHTTP(goSDKHTTPHandler),
			setup: "NewStreamableHTTPHandler with Stateless (its stateful default offers no 2026-07-28) and " +
				"PropagateRequestCancellation (off by default, and then a closed POST, which is the cancellation over HTTP " +
				"in 2026-07-28, does not reach the handler: the cancellation scenario fails)"},
		{sdk: mcpGo, transport: stdio, open: childStdio(mcpGo),
			setup: "NewStdioServer(s).Listen; it runs at most 5 tool calls at once by default (WithWorkerPoolSize), " +
				"so the concurrency scenario holds 4 at once"},
		{sdk: mcpGo, transport: streamable, open: inProcessHTTP(mcpGoHTTPHandler),
			setup: "NewStreamableHTTPServer with its defaults"},
		{sdk: typeScript, transport: stdio, open: typeScriptStdio, lacks: typeScriptLacks,
			setup: "serveStdio(factory) on Node.js " + nodeVersion},
		{sdk: typeScript, transport: streamable, open: typeScriptHTTP, lacks: typeScriptLacks,
			setup: "createMcpHandler(factory) behind node:http with toNodeHandler (@modelcontextprotocol/node 2.1.2), on Node.js " + nodeVersion},
	}
}

// childStdio runs the SDK's server in this test binary, re-executed.
func childStdio(sdk string) func(t *testing.T, record string) *endpoint {
	return func(t *testing.T, record string) *endpoint {
		exe, err := os.Executable()
		require.NoError(t, err)
		tr := transport.NewStdio(exe, childArg, sdk, record)
		tr.Env = append(tr.Env, "GORACE=atexit_sleep_ms=0") // spares a race-enabled child a second at exit
		return &endpoint{tr: tr}
	}
}

// inProcessHTTP serves handler(record) on a loopback port of this process;
// start serves a new handler, a new server instance, on the same port.
func inProcessHTTP(handler func(record string) http.Handler) func(t *testing.T, record string) *endpoint {
	return func(t *testing.T, record string) *endpoint {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		var (
			srv *http.Server
			wg  sync.WaitGroup
		)
		serve := func(ln net.Listener) {
			srv = &http.Server{Handler: handler(record)}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = srv.Serve(ln)
			}()
		}
		stop := func(*testing.T) {
			if srv != nil {
				_ = srv.Close()
				wg.Wait()
				srv = nil
			}
		}
		start := func(t *testing.T) {
			ln, err := net.Listen("tcp", addr)
			require.NoError(t, err)
			serve(ln)
		}
		serve(ln)
		t.Cleanup(func() { stop(t) })
		return &endpoint{tr: transport.StreamableHTTP{URL: "http://" + addr + "/mcp"}, stop: stop, start: start}
	}
}

// lines reads the record file.
func (r *rowRun) lines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(r.record)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// count is how many times line was recorded.
func (r *rowRun) count(t *testing.T, line string) int {
	t.Helper()
	n := 0
	for _, l := range r.lines(t) {
		if l == line {
			n++
		}
	}
	return n
}

// connect connects a plugin to tr; it is closed when the test ends.
func connect(t *testing.T, tr transport.McpTransport, opts ...plugin.Option) *plugin.McpPlugin {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := plugin.Connect(ctx, tr, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	return p
}

// call runs a tool with a bound on the wait.
func call(p *plugin.McpPlugin, name string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return p.CallTool(ctx, name, args).Await(ctx)
}

func callText(t *testing.T, p *plugin.McpPlugin, name string, args any) string {
	t.Helper()
	res, err := call(p, name, args)
	require.NoError(t, err, "tools/call %q", name)
	return plugin.RenderResult(res)
}

var scenarios = []scenario{
	{"connect", func(t *testing.T, r *rowRun) {
		var names []string
		for _, tool := range r.p.Tools() {
			names = append(names, tool.Name)
		}
		assert.Equal(t, expectedTools(r.row.transport), names)
		defs := r.p.ToolDefinitions()
		i := slices.IndexFunc(defs, func(d host.ToolDefinition) bool { return d.Name == "add" })
		require.GreaterOrEqual(t, i, 0)
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(defs[i].InputSchema, &schema))
		assert.Equal(t, "object", schema.Type)
		assert.Contains(t, schema.Properties, "a")
		assert.Contains(t, schema.Properties, "b")
		assert.Equal(t, "42", callText(t, r.p, "add", map[string]any{"a": 40, "b": 2}))
	}},
	{"pagination", func(t *testing.T, r *rowRun) {
		// The tools came in pages: the server saw one tools/list per page.
		pages := (len(expectedTools(r.row.transport)) + pageSize - 1) / pageSize
		assert.Equal(t, pages, r.count(t, "list"), "tools/list requests the server received")
		assert.Len(t, r.p.Tools(), len(expectedTools(r.row.transport)))
	}},
	{"content kinds", func(t *testing.T, r *rowRun) {
		res, err := call(r.p, "image", nil)
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		if img, ok := res.Content[0].(*mcp.ImageContent); assert.True(t, ok, "%T", res.Content[0]) {
			assert.Equal(t, imageMIME, img.MIMEType)
			assert.Len(t, img.Data, imageBytes)
		}
		assert.Equal(t, "[image: image/png, 2.0 KiB]", plugin.RenderResult(res))
		res, err = call(r.p, "audio", nil)
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		if au, ok := res.Content[0].(*mcp.AudioContent); assert.True(t, ok, "%T", res.Content[0]) {
			assert.Equal(t, audioMIME, au.MIMEType)
			assert.Len(t, au.Data, audioBytes)
		}
		res, err = call(r.p, "resource", nil)
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		if er, ok := res.Content[0].(*mcp.EmbeddedResource); assert.True(t, ok, "%T", res.Content[0]) && assert.NotNil(t, er.Resource) {
			assert.Equal(t, resourceURI, er.Resource.URI)
			assert.Equal(t, resourceMIME, er.Resource.MIMEType)
			assert.Equal(t, resourceText, er.Resource.Text)
		}
		res, err = call(r.p, "link", nil)
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		if l, ok := res.Content[0].(*mcp.ResourceLink); assert.True(t, ok, "%T", res.Content[0]) {
			assert.Equal(t, linkURI, l.URI)
			assert.Equal(t, linkName, l.Name)
			assert.Equal(t, linkMIME, l.MIMEType)
		}
		assert.Equal(t, "42", callText(t, r.p, "add", map[string]any{"a": 21, "b": 21}), "text")
	}},
	{"isError", func(t *testing.T, r *rowRun) {
		res, err := call(r.p, "fail", nil)
		require.NoError(t, err, "an isError result is a result, not a failed call")
		assert.True(t, res.IsError)
		assert.Equal(t, "tool error: boom", plugin.RenderResult(res))
	}},
	{"structured only", func(t *testing.T, r *rowRun) {
		res, err := call(r.p, "structured", map[string]any{"a": 40, "b": 2})
		require.NoError(t, err)
		assert.Empty(t, res.Content, "the server sent structuredContent only")
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		assert.JSONEq(t, `{"sum":42}`, string(b))
		assert.JSONEq(t, `{"sum":42}`, plugin.RenderResult(res), "rendered from structuredContent")
	}},
	{"arguments", func(t *testing.T, r *rowRun) {
		before := r.count(t, "echo")
		assert.JSONEq(t, `{"x":[1,2],"s":"é"}`, callText(t, r.p, "echo", map[string]any{"x": []int{1, 2}, "s": "é"}))
		assert.JSONEq(t, `{"k":true}`, callText(t, r.p, "echo", json.RawMessage(`{"k": true}`)))
		for _, none := range []any{nil, json.RawMessage("null"), []byte("{}")} {
			assert.JSONEq(t, `{}`, callText(t, r.p, "echo", none), "no arguments: %#v", none)
		}
		for _, bad := range []any{[]int{1}, 42, "text", json.RawMessage(`{"a":`)} {
			_, err := call(r.p, "echo", bad)
			assert.ErrorIs(t, err, plugin.ErrValidation, "arguments %#v", bad)
		}
		assert.Equal(t, 5, r.count(t, "echo")-before, "only the valid calls reached the server")
	}},
	{"unknown tool", func(t *testing.T, r *rowRun) {
		_, err := call(r.p, "no_such_tool", nil)
		require.ErrorIs(t, err, plugin.ErrInternal)
		assert.Contains(t, err.Error(), `tools/call "no_such_tool"`)
		assert.Equal(t, "42", callText(t, r.p, "add", map[string]any{"a": 40, "b": 2}), "the session goes on")
	}},
	{"concurrent calls", func(t *testing.T, r *rowRun) {
		// Four at once: mcp-go's stdio server runs five tool calls at a
		// time by default (WithWorkerPoolSize).
		const n = 4
		futures := make([]*plugin.Future, n)
		for i := range futures {
			futures[i] = r.p.CallTool(context.Background(), "gather", map[string]any{"n": n})
		}
		for _, f := range futures {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			res, err := f.Await(ctx)
			cancel()
			require.NoError(t, err)
			assert.Equal(t, "together", plugin.RenderResult(res), "all calls in flight at once")
		}
	}},
	{"cancellation reaches the server", func(t *testing.T, r *rowRun) {
		started, cancelled := r.count(t, "slow started"), r.count(t, "slow cancelled")
		ctx, cancel := context.WithCancel(context.Background())
		f := r.p.CallTool(ctx, "slow", map[string]any{"ms": 30000})
		require.Eventually(t, func() bool { return r.count(t, "slow started") > started }, 10*time.Second, 2*time.Millisecond)
		cancel()
		_, err := f.Await(context.Background())
		require.ErrorIs(t, err, context.Canceled)
		assert.Eventually(t, func() bool { return r.count(t, "slow cancelled") > cancelled }, 10*time.Second, 2*time.Millisecond,
			"the server's handler saw the cancellation")
		assert.Equal(t, "42", callText(t, r.p, "add", map[string]any{"a": 40, "b": 2}))
	}},
	{"cancel, then call at once", func(t *testing.T, r *rowRun) {
		// The rounds of issue 15: a cancellation's notification must not
		// fail the next call nor end the session.
		restarts := r.p.Status().Restarts
		for i := range 5 {
			started := r.count(t, "slow started")
			ctx, cancel := context.WithCancel(context.Background())
			f := r.p.CallTool(ctx, "slow", map[string]any{"ms": 30000})
			require.Eventually(t, func() bool { return r.count(t, "slow started") > started }, 10*time.Second, 2*time.Millisecond)
			cancel()
			res, err := call(r.p, "add", map[string]any{"a": i, "b": 1})
			if assert.NoError(t, err, "round %d", i) {
				assert.Equal(t, fmt.Sprint(i+1), plugin.RenderResult(res))
			}
			_, err = f.Await(context.Background())
			assert.ErrorIs(t, err, context.Canceled)
		}
		assert.Equal(t, restarts, r.p.Status().Restarts, "no reconnection")
	}},
	{"dies and comes back", func(t *testing.T, r *rowRun) {
		record := filepath.Join(t.TempDir(), "record")
		ep := r.row.open(t, record)
		p := connect(t, ep.tr, plugin.WithBackoff(10*time.Millisecond, 100*time.Millisecond),
			plugin.WithRestartBudget(-1, time.Minute))
		require.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
		if ep.stop == nil {
			_, err := call(p, "exit", nil)
			require.ErrorIs(t, err, plugin.ErrInternal, "the server died during the call")
		} else {
			ep.stop(t)
			// Nothing listens: the call fails and the session ends.
			_, err := call(p, "add", map[string]any{"a": 40, "b": 2})
			require.ErrorIs(t, err, plugin.ErrInternal, "the server is down")
			require.Eventually(t, func() bool { return p.Status().State != actors.Ready }, 10*time.Second, time.Millisecond,
				"the client sees the endpoint gone")
			ep.start(t)
		}
		require.Eventually(t, func() bool {
			st := p.Status()
			return st.State == actors.Ready && st.Restarts >= 1
		}, 20*time.Second, 5*time.Millisecond, "reconnected: %+v", p.Status())
		assert.Equal(t, "42", callText(t, p, "add", map[string]any{"a": 40, "b": 2}))
	}},
}

// TestInterop runs every scenario against every SDK over both transports
// and, with MCPCONNECTOR_INTEROP_TABLE set, writes the table of results.
func TestInterop(t *testing.T) {
	results := map[string]map[string]string{}
	notes := map[string][]string{}
	for _, rw := range rows() {
		cells := map[string]string{}
		results[rw.name()] = cells
		t.Run(rw.name(), func(t *testing.T) {
			if rw.sdk == typeScript {
				if _, why := pinnedNode(); why != "" {
					for _, s := range scenarios {
						cells[s.name] = "not run: " + why
					}
					if os.Getenv("CI") == "true" {
						t.Fatalf("the TypeScript rows need Node.js: %s", why)
					}
					t.Logf("TypeScript rows not run: %s", why)
					return
				}
			}
			core, logs := observer.New(zap.WarnLevel)
			r := &rowRun{row: rw, record: filepath.Join(t.TempDir(), "record"), logs: logs}
			r.ep = rw.open(t, r.record)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			p, err := plugin.Connect(ctx, r.ep.tr, plugin.WithLogger(zap.New(core)))
			cancel()
			if !assert.NoError(t, err, "connect") {
				for _, s := range scenarios {
					cells[s.name] = "FAIL"
				}
				return
			}
			r.p = p
			for _, s := range scenarios {
				if why, ok := rw.lacks[s.name]; ok {
					cells[s.name] = "n/a: " + why
					t.Logf("%s: n/a: %s", s.name, why)
					continue
				}
				cells[s.name] = "FAIL"
				if t.Run(s.name, func(t *testing.T) { s.run(t, r) }) {
					cells[s.name] = "pass"
				}
			}
			require.NoError(t, p.Close())
			if n := logs.FilterMessageSnippet("notification").Len(); n > 0 {
				notes[rw.name()] = append(notes[rw.name()], fmt.Sprintf("%d notifications refused by the server, dropped", n))
			}
		})
	}
	if path := os.Getenv(tableEnv); path != "" {
		page := tablePage(table(results, notes), time.Now())
		require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
		t.Logf("table written to %s", path)
	}
}

// tableCommand is the command that writes docs/interop-table.md, the page
// this test owns.
const tableCommand = "MCPCONNECTOR_INTEROP_TABLE=$PWD/docs/interop-table.md go test -count=1 -run TestInterop ./interop/"

// tablePage is the table as the docs page holds it: a header saying where it
// comes from and when, then the table.
func tablePage(tbl string, at time.Time) string {
	return "# Interoperability table\n\n" +
		"<!-- Generated by `" + tableCommand + "`; do not edit by hand. -->\n\n" +
		"Written by `" + tableCommand + "` (run from the repository's root) on " + at.UTC().Format("2006-01-02") +
		": every result of the interoperability matrix lives here; " +
		"[interoperability.md](interoperability.md) says what the scenarios are and what the client does for these servers.\n\n" +
		tbl
}

// table renders the results as Markdown: a row per SDK and transport, a
// column per scenario.
func table(results map[string]map[string]string, notes map[string][]string) string {
	var b strings.Builder
	b.WriteString("| server SDK | transport |")
	for _, s := range scenarios {
		b.WriteString(" " + s.name + " |")
	}
	b.WriteString("\n|---|---|")
	for range scenarios {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var footnotes []string
	for _, rw := range rows() {
		fmt.Fprintf(&b, "| %s | %s |", sdkNames[rw.sdk], transportNames[rw.transport])
		for _, s := range scenarios {
			cell := results[rw.name()][s.name]
			if cell == "" {
				cell = "not run"
			}
			for _, word := range []string{"n/a", "not run"} {
				if why, ok := strings.CutPrefix(cell, word+": "); ok {
					i := slices.Index(footnotes, why)
					if i < 0 {
						footnotes = append(footnotes, why)
						i = len(footnotes) - 1
					}
					cell = fmt.Sprintf("%s [%d]", word, i+1)
				}
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for i, f := range footnotes {
		fmt.Fprintf(&b, "[%d] %s.\n", i+1, f)
	}
	b.WriteString("\nHow each server runs:\n\n")
	for _, rw := range rows() {
		line := rw.setup
		for _, n := range notes[rw.name()] {
			line += "; " + n
		}
		fmt.Fprintf(&b, "- %s, %s: %s.\n", sdkNames[rw.sdk], transportNames[rw.transport], line)
	}
	b.WriteString("\nNot in the table: servers that misbehave (garbage on stdout, answers with unknown ids, " +
		"oversized or cut answers, results of the wrong shape). No SDK misbehaves on purpose, so the plugin's " +
		"own tests use hand-written servers for those.\n")
	return b.String()
}
