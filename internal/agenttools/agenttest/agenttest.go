package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/internal/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// childArg puts a re-executed test binary into the beta server's mode.
const childArg = "mcpconnector-agenttest-server"

// BigBytes is the length of the "big" tool's text.
const BigBytes = 5000

// WeatherSchema is the weather tool's inputSchema, as the server sends it.
const WeatherSchema = `{"type":"object","properties":{` +
	`"city":{"type":"string","description":"City name","minLength":1},` +
	`"units":{"type":"string","enum":["metric","imperial"],"default":"metric"},` +
	`"days":{"type":"integer","minimum":1,"maximum":14},` +
	`"where":{"$ref":"#/$defs/point"}},` +
	`"required":["city"],"additionalProperties":false,` +
	`"$defs":{"point":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}}}},` +
	`"x-origin":"agenttest"}`

// ChangedWeatherDescription is the weather tool's description when
// [Options.ChangedWeather] is set.
const ChangedWeatherDescription = "The weather forecast of a city, and more"

// changedEnv tells the beta server to describe weather as
// ChangedWeatherDescription.
const changedEnv = "AGENTTEST_CHANGED_WEATHER"

// DeniedReason is the reason [Options.Deny]'s approval gives.
const DeniedReason = "the user said no"

// RunIfChild serves an MCP server on stdio and exits when this process was
// started as one by [Open]; otherwise it returns at once. Call it first in
// TestMain.
func RunIfChild() {
	testserver.RunIfChild()
	if len(os.Args) < 2 || os.Args[1] != childArg {
		return
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	if err := NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "agenttest server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// NewServer returns the beta server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "agenttest", Version: "1.0.0"}, nil)
	weather := "The weather forecast of a city"
	if os.Getenv(changedEnv) == "1" {
		weather = ChangedWeatherDescription
	}
	s.AddTool(&mcp.Tool{Name: "weather", Description: weather, InputSchema: json.RawMessage(WeatherSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ City, Units string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			if in.Units == "" {
				in.Units = "metric"
			}
			return text(fmt.Sprintf("sunny in %s (%s)", in.City, in.Units)), nil
		})
	s.AddTool(&mcp.Tool{Name: "wait", Description: "Block until cancelled, noting it in the file at path",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Path string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Path == "" {
				return nil, errors.New("wait needs a path")
			}
			note(in.Path, "started")
			select {
			case <-ctx.Done():
				note(in.Path, "cancelled")
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return text("not cancelled"), nil
			}
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "A long text", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(strings.Repeat("x", BigBytes)), nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func note(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// Options shape the toolbox of [Open]; the zero value is two servers with
// no controls.
type Options struct {
	// Deny names server tools (their own names, e.g. "echo") whose calls
	// approval denies with [DeniedReason]; every other call is approved.
	Deny []string
	// MaxResultBytes caps beta's results; zero means no cap.
	MaxResultBytes int
	// Search turns on tool search (every tool deferred).
	Search bool
	// PinDir turns on pinned tools (toolbox.WithPinnedTools) with the
	// manifests in this directory: a second Open on the same directory
	// with ChangedWeather holds beta's weather tool out.
	PinDir string
	// AlwaysLoadAlpha marks alpha "alwaysLoad": its tools are never
	// deferred.
	AlwaysLoadAlpha bool
	// ChangedWeather makes beta describe weather as
	// [ChangedWeatherDescription].
	ChangedWeather bool
	// Toolbox are further toolbox options.
	Toolbox []toolbox.Option
}

// Box is an open toolbox of the two servers.
type Box struct {
	*toolbox.Toolbox
	dir string
}

// Open opens the toolbox of "alpha" and "beta", each a child process, and
// closes it when the test ends.
func Open(t testing.TB, o Options) *Box {
	t.Helper()
	dir := t.TempDir()
	alphaCmd, alphaArgs := testserver.Command(t, "sdk")
	exe, err := os.Executable()
	require.NoError(t, err)
	env := map[string]string{"GORACE": "atexit_sleep_ms=0"}
	// The variable is always set: its name is part of the manifest's key.
	betaEnv := map[string]string{"GORACE": "atexit_sleep_ms=0", changedEnv: "0"}
	if o.ChangedWeather {
		betaEnv[changedEnv] = "1"
	}
	beta := map[string]any{"command": exe, "args": []string{childArg}, "env": betaEnv}
	if o.MaxResultBytes > 0 {
		beta["maxResultBytes"] = o.MaxResultBytes
	}
	alpha := map[string]any{"command": alphaCmd, "args": alphaArgs, "env": env}
	if o.AlwaysLoadAlpha {
		alpha["alwaysLoad"] = true
	}
	cfgJSON, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"alpha": alpha,
		"beta":  beta,
	}})
	require.NoError(t, err)
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, cfgJSON, 0o600))
	cfg, err := toolbox.LoadConfig(path)
	require.NoError(t, err)
	opts := []toolbox.Option{toolbox.WithStrict()}
	if len(o.Deny) > 0 {
		deny := slices.Clone(o.Deny)
		opts = append(opts, toolbox.WithPluginOptions(plugin.WithApproval(func(_ context.Context, req plugin.ApprovalRequest) error {
			if slices.Contains(deny, req.Tool) {
				return errors.New(DeniedReason)
			}
			return nil
		})))
	}
	if o.Search {
		opts = append(opts, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	}
	if o.PinDir != "" {
		opts = append(opts, toolbox.WithPinnedTools(), toolbox.WithManifestDir(o.PinDir))
	}
	opts = append(opts, o.Toolbox...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tb, err := toolbox.Open(ctx, cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tb.Close() })
	return &Box{Toolbox: tb, dir: dir}
}

// WaitPath returns a new file path for one call of beta's "wait" tool.
func (b *Box) WaitPath(t testing.TB) string {
	t.Helper()
	f, err := os.CreateTemp(b.dir, "wait-*")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return f.Name()
}

// WaitStarted blocks until the wait call of path has started on the
// server, or fails the test after 20 seconds.
func (b *Box) WaitStarted(t testing.TB, path string) {
	t.Helper()
	waitLine(t, path, "started")
}

// WaitCancelled blocks until the server has seen the wait call of path
// cancelled (its handler's ctx ended: notifications/cancelled reached
// it), or fails the test after 20 seconds.
func (b *Box) WaitCancelled(t testing.TB, path string) {
	t.Helper()
	waitLine(t, path, "cancelled")
}

func waitLine(t testing.TB, path, line string) {
	t.Helper()
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(path)
		return slices.Contains(strings.Fields(string(b)), line)
	}, 20*time.Second, 5*time.Millisecond, "the server never noted %q", line)
}

// DocsExample checks that docs/adapters.md shows the adapter's example as
// it is: the function ask of the adapter's example_test.go (from "func
// ask(" to its closing brace), word for word, in at most 20 lines. It is
// called from the adapter's own directory, as go test runs it.
func DocsExample(t testing.TB) {
	t.Helper()
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	s := string(src)
	start := strings.Index(s, "func ask(")
	require.GreaterOrEqual(t, start, 0, "example_test.go has a func ask")
	end := strings.Index(s[start:], "\n}\n")
	require.Greater(t, end, 0, "func ask ends")
	fn := s[start : start+end+2]
	doc, err := os.ReadFile("../../docs/adapters.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), fn, "docs/adapters.md shows ask as it is")
	assert.LessOrEqual(t, strings.Count(fn, "\n"), 20, "at most 20 lines")
}
