package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// ScenarioPipeLimitHTTP is [ScenarioPipeLimit] over loopback Streamable
// HTTP: every client against its own child serving the same minimal MCP
// 2026-07-28 server over HTTP ([TemplateHTTPHandler], answers from the byte
// templates of [ServeTemplate]), with 1 and 16 callers in one interleaved
// run. The floor is a plain net/http client POSTing the same tools/call
// line and reading the answer, with as many keep-alive connections as it
// has callers.
const ScenarioPipeLimitHTTP = "many callers, minimal HTTP server"

// SubjectHTTPRaw is the floor of [ScenarioPipeLimitHTTP]: a net/http client
// that keeps an idle connection for each caller. The other subjects are
// those of [ScenarioPipeLimit]: [SubjectPipeHook], [SubjectPipeCallTool],
// [SubjectPipeGoSDK] and [SubjectPipeMCPGo], each with its HTTP client's
// defaults.
const SubjectHTTPRaw = "raw floor, net/http client"

// templateHTTPArg, after templateChildArg, makes the template server serve
// over loopback HTTP ([ServeTemplateHTTP]) instead of stdio.
const templateHTTPArg = "http"

// TemplateHTTPHandler answers every POST whose body is one JSON-RPC request
// with the template server's answer ([ServeTemplate]) as application/json,
// and a notification with 202 Accepted. It opens no stream: a GET or a
// DELETE is 405 Method Not Allowed, as a stateless server's is.
func TemplateHTTPHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res := templateAnswer(body)
		if res == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		out := make([]byte, 0, 64+len(res))
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, testserver.RequestID(body)...)
		out = append(out, `,"result":`...)
		out = append(out, res...)
		out = append(out, "}\n"...)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// ServeTemplateHTTP serves [TemplateHTTPHandler] on a loopback port, writes
// its URL as one line to out, and stops when in ends.
func ServeTemplateHTTP(in io.Reader, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: TemplateHTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(out, "http://%s/mcp\n", ln.Addr()); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(io.Discard, in)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// StartTemplateHTTP runs this executable as the template HTTP server
// ([TemplateHTTPHandler], in a child process so that the server's CPU is
// not the measuring process's) and waits for its URL, the MCP endpoint;
// the program calls [RunTemplateIfChild] first. The caller closes it.
func StartTemplateHTTP() (*testserver.BenchHTTP, error) {
	return testserver.StartHTTPChild(templateChildArg, templateHTTPArg)
}

// NewRawHTTPFloor is the floor of [ScenarioPipeLimitHTTP]: a [RawHTTP] to
// url whose client keeps an idle connection for each of up to callers
// callers, so that no call waits for a connection to be made.
func NewRawHTTPFloor(url string, callers int) *RawHTTP {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(callers, t.MaxIdleConnsPerHost)
	return &RawHTTP{url: url, client: &http.Client{Transport: t}}
}

// ConnectMCPGoHTTP connects mcp-go's Streamable HTTP client to url with MCP
// 2026-07-28.
func ConnectMCPGoHTTP(ctx context.Context, url string) (*mcpgoclient.Client, error) {
	c, err := mcpgoclient.NewStreamableHttpClient(url)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = "2026-07-28"
	req.Params.ClientInfo = mcpgo.Implementation{Name: "bench-mcp-go", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	if res.ProtocolVersion != "2026-07-28" {
		_ = c.Close()
		return nil, fmt.Errorf("mcp-go client negotiated %q", res.ProtocolVersion)
	}
	return c, nil
}

// pipeLimitHTTP measures ScenarioPipeLimitHTTP: each subject on its own
// template HTTP child, for each of 1 and 16 callers, in one interleaved run.
func (r *runner) pipeLimitHTTP(ctx context.Context) (err error) {
	const most = 16
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			err = errors.Join(err, closers[i]())
		}
	}()
	server := func() (string, error) {
		s, err := StartTemplateHTTP()
		if err != nil {
			return "", err
		}
		closers = append(closers, s.Close)
		return s.URL, nil
	}
	url, err := server()
	if err != nil {
		return err
	}
	raw := NewRawHTTPFloor(url, most)
	closers = append(closers, func() error { raw.Close(); return nil })
	rawS := raw.Subject(InstantCall)
	rawS.Name = SubjectHTTPRaw

	plugins := make([]*plugin.McpPlugin, 2)
	for i := range plugins {
		if url, err = server(); err != nil {
			return err
		}
		if plugins[i], err = plugin.Connect(ctx, transport.StreamableHTTP{URL: url}); err != nil {
			return err
		}
		closers = append(closers, plugins[i].Close)
	}
	hook := PluginHook(plugins[0], InstantCall)
	hook.Name = SubjectPipeHook

	if url, err = server(); err != nil {
		return err
	}
	sdk, err := ConnectGoSDKListed(ctx, &mcp.StreamableClientTransport{Endpoint: url})
	if err != nil {
		return err
	}
	closers = append(closers, sdk.Close)
	gs := GoSDKDirect(sdk, InstantCall)
	gs.Name = SubjectPipeGoSDK

	if url, err = server(); err != nil {
		return err
	}
	mg, err := ConnectMCPGoHTTP(ctx, url)
	if err != nil {
		return err
	}
	closers = append(closers, mg.Close)

	subjects := []*Subject{rawS, hook, PluginCallTool(plugins[1], InstantCall), gs, MCPGoDirect(mg, InstantCall)}
	rounds := max(1, r.cfg.ThroughputRounds)
	for _, n := range []int{1, most} {
		res, err := ThroughputInterleaved(ctx, subjects, n, r.cfg.InstantFor/time.Duration(rounds), rounds)
		if err != nil {
			return err
		}
		r.add(ScenarioPipeLimitHTTP, res...)
	}
	return nil
}

// pipeLimitHTTPTargets are the goals of ScenarioPipeLimitHTTP, those of
// ScenarioPipeLimit against the raw net/http floor: 16 callers at 0.65x
// or more of its calls/s and at most 2.0x its CPU per call; one caller at
// most 1.2x on p50 and CPU per call.
func (r *Report) pipeLimitHTTPTargets() []Target {
	var out []Target
	raw16, hook16 := r.find(ScenarioPipeLimitHTTP, SubjectHTTPRaw, 16), r.find(ScenarioPipeLimitHTTP, SubjectPipeHook, 16)
	if raw16 != nil && hook16 != nil {
		x, c := hook16.OpsPerSec/raw16.OpsPerSec, float64(hook16.CPUPerOp)/float64(raw16.CPUPerOp)
		out = append(out, Target{
			Goal: ScenarioPipeLimitHTTP + ", 16 callers: hook ≥ 0.65x the raw net/http floor's calls/s, ≤ 2.0x its CPU per call",
			Got:  fmt.Sprintf("%.2fx calls/s (%.0f vs %.0f), %.2fx CPU", x, hook16.OpsPerSec, raw16.OpsPerSec, c),
			Met:  x >= 0.65 && c <= 2.0,
		})
	}
	raw1, hook1 := r.find(ScenarioPipeLimitHTTP, SubjectHTTPRaw, 1), r.find(ScenarioPipeLimitHTTP, SubjectPipeHook, 1)
	if raw1 != nil && hook1 != nil {
		p, c := float64(hook1.Latency.P50)/float64(raw1.Latency.P50), float64(hook1.CPUPerOp)/float64(raw1.CPUPerOp)
		out = append(out, Target{
			Goal: ScenarioPipeLimitHTTP + ", 1 caller: hook ≤ 1.2x the raw net/http floor on p50 and CPU per call",
			Got:  fmt.Sprintf("p50 %.2fx, CPU %.2fx", p, c),
			Met:  p <= 1.2 && c <= 1.2,
		})
	}
	return out
}

// pipeLimitHTTPNote is the note of a ScenarioPipeLimitHTTP row: against the
// raw floor with as many callers.
func (r *Report) pipeLimitHTTPNote(row *Row) string {
	raw := r.find(row.Scenario, SubjectHTTPRaw, row.Callers)
	if raw == nil || row.Subject == SubjectHTTPRaw {
		return ""
	}
	return fmt.Sprintf("%.2fx the raw floor's calls/s, p50 %.2fx, CPU %.2fx",
		row.OpsPerSec/raw.OpsPerSec, float64(row.Latency.P50)/float64(raw.Latency.P50), float64(row.CPUPerOp)/float64(raw.CPUPerOp))
}
