package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// ScenarioPipeLimit is many callers at the pipe's limit: every client against
// its own child running the same minimal MCP 2026-07-28 server, which
// answers from byte templates ([ServeTemplate]), so that only the client's
// cost differs. One interleaved run per number of callers (1 and 16).
const ScenarioPipeLimit = "many callers, minimal stdio server"

// Subjects of ScenarioPipeLimit.
const (
	// SubjectPipeRaw is the raw floor: one goroutine at a time writes the
	// line and reads the answer itself (callers take turns).
	SubjectPipeRaw = "raw floor, one goroutine"
	// SubjectPipeMux is the raw floor multiplexed: callers write in turn
	// and one reader matches answers to them by id. With one caller it is
	// the one-reader-goroutine model.
	SubjectPipeMux = "raw floor, one reader (multiplexed)"
	// SubjectPipeHook is the plugin hook (direct tools/call, the default).
	SubjectPipeHook = "plugin hook"
	// SubjectPipeCallTool is plugin.McpPlugin.CallTool awaited.
	SubjectPipeCallTool = "plugin CallTool"
	// SubjectPipeGoSDK is go-sdk's client on its CommandTransport.
	SubjectPipeGoSDK = "go-sdk client"
	// SubjectPipeMCPGo is mcp-go's stdio client.
	SubjectPipeMCPGo = SubjectMCPGo
)

// templateChildArg makes this executable the template server.
const templateChildArg = "mcpconnector-bench-template-server"

// RunTemplateIfChild serves [ServeTemplate] on stdio (or
// [ServeTemplateHTTP], for [StartTemplateHTTP]) and exits when this process
// was started as the template server; otherwise it returns at once.
// A program that runs [Run] calls it first, beside
// testserver.RunBenchIfChild.
func RunTemplateIfChild() {
	if len(os.Args) < 2 || os.Args[1] != templateChildArg {
		return
	}
	serve := ServeTemplate
	if len(os.Args) > 2 && os.Args[2] == templateHTTPArg {
		serve = ServeTemplateHTTP
	}
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TemplateStdio is the command that runs this executable as the template
// server ([ServeTemplate]); the program calls [RunTemplateIfChild] first.
func TemplateStdio() (transport.Stdio, error) {
	exe, err := os.Executable()
	if err != nil {
		return transport.Stdio{}, err
	}
	return transport.NewStdio(exe, templateChildArg), nil
}

// Answers of the template server, after `{"jsonrpc":"2.0","id":<id>,"result":`.
const (
	templateDiscover = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},` +
		`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"template","version":"0"}}}`
	templateInitialize = `{"protocolVersion":"2026-07-28","capabilities":{"tools":{}},"serverInfo":{"name":"template","version":"0"}}`
	templateTools      = `{"tools":[{"name":"add","description":"a + b","inputSchema":{"type":"object",` +
		`"properties":{"a":{"type":"number"},"b":{"type":"number"}}}}]}`
)

// ServeTemplate is the minimal MCP 2026-07-28 server over newline-delimited
// JSON-RPC: it answers server/discover (and initialize, at 2026-07-28, for
// clients that only know it), tools/list with one tool "add", and every
// tools/call with [testserver.EchoResult], each from a byte template with
// the request's id put in by scanning; notifications get no answer. It
// writes what it has answered when no more input is waiting, so answers to
// requests that arrived together leave together.
func ServeTemplate(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if len(bytes.TrimSpace(line)) == 0 {
				if err == io.EOF {
					return w.Flush()
				}
				return err
			}
		}
		if res := templateAnswer(line); res != "" {
			_, _ = w.WriteString(`{"jsonrpc":"2.0","id":`)
			_, _ = w.Write(testserver.RequestID(line))
			_, _ = w.WriteString(`,"result":`)
			_, _ = w.WriteString(res)
			_, _ = w.WriteString("}\n")
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if err != nil {
			return w.Flush()
		}
	}
}

// templateAnswer is the result for the request line, or "" for a
// notification.
func templateAnswer(line []byte) string {
	if !bytes.Contains(line, []byte(`"id":`)) {
		return ""
	}
	switch {
	case bytes.Contains(line, []byte(`"method":"tools/call"`)):
		return testserver.EchoResult
	case bytes.Contains(line, []byte(`"method":"server/discover"`)):
		return templateDiscover
	case bytes.Contains(line, []byte(`"method":"tools/list"`)):
		return templateTools
	case bytes.Contains(line, []byte(`"method":"initialize"`)):
		return templateInitialize
	}
	return `{}`
}

// PluginCallTool calls c through p.CallTool and awaits the future.
func PluginCallTool(p *plugin.McpPlugin, c Call) *Subject {
	return &Subject{Name: SubjectPipeCallTool, New: func() Op {
		return func(ctx context.Context) error {
			res, err := p.CallTool(ctx, c.Tool, c.Args).Await(ctx)
			return checkResult(res, err, c)
		}
	}}
}

// pipeLimit measures ScenarioPipeLimit: each subject on its own template
// child, for each of 1 and 16 callers, in one interleaved run.
func (r *runner) pipeLimit(ctx context.Context) error {
	t, err := TemplateStdio()
	if err != nil {
		return err
	}
	raw, err := StartRawPipe(t)
	if err != nil {
		return err
	}
	defer raw.Close()
	mux, err := StartReaderPipe(t)
	if err != nil {
		return err
	}
	defer mux.Close()
	hookP, err := plugin.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer hookP.Close()
	callP, err := plugin.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer callP.Close()
	sdk, err := ConnectGoSDKListed(ctx, CommandTransport(t))
	if err != nil {
		return err
	}
	defer sdk.Close()
	mg, err := ConnectMCPGo(ctx, t)
	if err != nil {
		return err
	}
	defer mg.Close()
	rawS := raw.Subject(InstantCall)
	rawS.Name = SubjectPipeRaw
	hook := PluginHook(hookP, InstantCall)
	hook.Name = SubjectPipeHook
	gs := GoSDKDirect(sdk, InstantCall)
	gs.Name = SubjectPipeGoSDK
	subjects := []*Subject{rawS, mux.Subject(SubjectPipeMux, InstantCall), hook, PluginCallTool(callP, InstantCall), gs, MCPGoDirect(mg, InstantCall)}
	rounds := max(1, r.cfg.ThroughputRounds)
	for _, n := range []int{1, 16} {
		res, err := ThroughputInterleaved(ctx, subjects, n, r.cfg.InstantFor/time.Duration(rounds), rounds)
		if err != nil {
			return err
		}
		r.add(ScenarioPipeLimit, res...)
	}
	if n := mux.Errors(); n > 0 {
		return fmt.Errorf("the template server answered %d calls with an error", n)
	}
	return nil
}

// pipeLimitTargets are the goals of ScenarioPipeLimit, as ratios from the
// one run: 16 callers at 0.65x or more of the multiplexed floor's calls/s
// and at most 2.0x its CPU per call; one caller at most 1.2x the
// one-reader model on p50 and CPU. Allocations per call are reported.
func (r *Report) pipeLimitTargets() []Target {
	var out []Target
	mux16, hook16 := r.find(ScenarioPipeLimit, SubjectPipeMux, 16), r.find(ScenarioPipeLimit, SubjectPipeHook, 16)
	if mux16 != nil && hook16 != nil {
		x, c := hook16.OpsPerSec/mux16.OpsPerSec, float64(hook16.CPUPerOp)/float64(mux16.CPUPerOp)
		out = append(out, Target{
			Goal: ScenarioPipeLimit + ", 16 callers: hook ≥ 0.65x the multiplexed floor's calls/s, ≤ 2.0x its CPU per call",
			Got:  fmt.Sprintf("%.2fx calls/s (%.0f vs %.0f), %.2fx CPU", x, hook16.OpsPerSec, mux16.OpsPerSec, c),
			Met:  x >= 0.65 && c <= 2.0,
		})
	}
	mux1, hook1 := r.find(ScenarioPipeLimit, SubjectPipeMux, 1), r.find(ScenarioPipeLimit, SubjectPipeHook, 1)
	if mux1 != nil && hook1 != nil {
		p, c := float64(hook1.Latency.P50)/float64(mux1.Latency.P50), float64(hook1.CPUPerOp)/float64(mux1.CPUPerOp)
		out = append(out, Target{
			Goal: ScenarioPipeLimit + ", 1 caller: hook ≤ 1.2x the one-reader model on p50 and CPU per call",
			Got:  fmt.Sprintf("p50 %.2fx, CPU %.2fx", p, c),
			Met:  p <= 1.2 && c <= 1.2,
		})
		out = append(out, Target{
			Goal: ScenarioPipeLimit + ", 1 caller: hook ≤ 12 allocations and 1 KiB per call",
			Got:  fmt.Sprintf("%s allocs, %s", num(hook1.AllocsPerOp), bytesStr(hook1.BytesPerOp)),
			Met:  hook1.AllocsPerOp <= 12 && hook1.BytesPerOp <= 1024,
		})
	}
	return out
}
