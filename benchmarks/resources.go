package benchmarks

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// ScenarioResourceRead is one resources/read of a 1 KiB text resource over
// loopback Streamable HTTP, from a go-sdk server in this process: the
// plugin's ReadResource (facade, the connection's mailbox, straight
// while it is ready, and its worker goroutine) beside go-sdk's
// ClientSession.ReadResource.
const ScenarioResourceRead = "resources/read, 1 KiB text, HTTP"

// Subjects of ScenarioResourceRead.
const (
	SubjectPluginReadResource = "plugin ReadResource"
	SubjectGoSDKReadResource  = "go-sdk ReadResource"
)

// ResourceURI and ResourceText are the resource ScenarioResourceRead
// reads.
const ResourceURI = "file:///bench.txt"

// ResourceText is ResourceURI's contents: 1 KiB of text.
var ResourceText = strings.Repeat("0123456789abcdef", 64)

// NewResourceServer is a go-sdk server with the one resource ResourceURI.
func NewResourceServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-resources", Version: "0"}, nil)
	s.AddResource(&mcp.Resource{URI: ResourceURI, Name: "bench", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ResourceURI, MIMEType: "text/plain", Text: ResourceText}}}, nil
		})
	return s
}

// checkRead checks a read of ResourceURI.
func checkRead(res *mcp.ReadResourceResult, err error) error {
	if err != nil {
		return err
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != ResourceText {
		return fmt.Errorf("unexpected contents %#v", res.Contents)
	}
	return nil
}

// PluginReadResource reads ResourceURI through p.
func PluginReadResource(p *plugin.McpPlugin) *Subject {
	return &Subject{Name: SubjectPluginReadResource, New: func() Op {
		return func(ctx context.Context) error { return checkRead(p.ReadResource(ctx, ResourceURI)) }
	}}
}

// GoSDKReadResource reads ResourceURI through s.
func GoSDKReadResource(s *mcp.ClientSession) *Subject {
	return &Subject{Name: SubjectGoSDKReadResource, New: func() Op {
		return func(ctx context.Context) error {
			return checkRead(s.ReadResource(ctx, &mcp.ReadResourceParams{URI: ResourceURI}))
		}
	}}
}

// resourceRead measures ScenarioResourceRead, interleaved as the hook
// scenarios are.
func (r *runner) resourceRead(ctx context.Context) error {
	srv := httptest.NewServer(testserver.NewHTTPHandler(NewResourceServer()))
	defer srv.Close()
	p, err := plugin.Connect(ctx, transport.StreamableHTTP{URL: srv.URL})
	if err != nil {
		return err
	}
	defer p.Close()
	s, err := ConnectGoSDKListed(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := Interleave(ctx, []*Subject{PluginReadResource(p), GoSDKReadResource(s)},
		r.cfg.HookRounds, r.cfg.HookPerRound, r.cfg.HookWarmup)
	if err != nil {
		return err
	}
	r.add(ScenarioResourceRead, res...)
	return nil
}

// resourceReadNote is the note of a ScenarioResourceRead row: the plugin
// against go-sdk's ReadResource.
func (r *Report) resourceReadNote(row *Row) string {
	d := r.find(row.Scenario, SubjectGoSDKReadResource, 0)
	if row.Subject != SubjectPluginReadResource || d == nil {
		return ""
	}
	bytes := bytesStr(row.BytesPerOp - d.BytesPerOp)
	if row.BytesPerOp >= d.BytesPerOp {
		bytes = "+" + bytes
	}
	return fmt.Sprintf("p50 %+.1f%%, CPU %+.1f%%, %+.1f allocs, %s vs go-sdk direct",
		pct(row.Latency.P50, d.Latency.P50), pct(row.CPUPerOp, d.CPUPerOp), row.AllocsPerOp-d.AllocsPerOp, bytes)
}

// resourceTargets is the goal of ScenarioResourceRead: the plugin's read
// at p50 within 5% of go-sdk's client's, against the same server.
func (r *Report) resourceTargets() []Target {
	plugin, sdk := r.find(ScenarioResourceRead, SubjectPluginReadResource, 0), r.find(ScenarioResourceRead, SubjectGoSDKReadResource, 0)
	if plugin == nil || sdk == nil {
		return nil
	}
	d := pct(plugin.Latency.P50, sdk.Latency.P50)
	return []Target{{
		Goal: ScenarioResourceRead + ": p50 within 5% of go-sdk's client",
		Got:  fmt.Sprintf("p50 %+.1f%%, CPU %+.1f%%", d, pct(plugin.CPUPerOp, sdk.CPUPerOp)),
		Met:  d <= 5,
	}}
}
