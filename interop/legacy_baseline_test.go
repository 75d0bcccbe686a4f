package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/plugin"
)

// olderRevisions are the MCP revisions before 2026-07-28 that go-sdk
// v1.8.0's client falls back to, newest first.
var olderRevisions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// The baseline for the legacy servers: go-sdk v1.8.0's own client, with
// its default options (server/discover, then on refusal initialize at
// 2025-11-25, accepting the older revision the server answers), connects
// to each, lists its tools and calls one; on server-everything it also
// lists and reads a resource, lists and gets a prompt, and receives the
// progress notifications of a call that asks for them. Then it
// initializes a session at each older revision, to see which the server
// accepts. It prints the table docs/interoperability.md holds ("older
// revisions").
func TestLegacyServersWithGoSDKClient(t *testing.T) {
	var (
		mu   sync.Mutex
		rows []string
	)
	for _, s := range legacyServers() {
		t.Run(s.Row(), func(t *testing.T) {
			revision, exercised, accepted := "—", []string{}, []string{}
			t.Cleanup(func() {
				result := "ok"
				switch {
				case t.Skipped():
					result = "not run"
				case t.Failed():
					result = "failed"
				}
				mu.Lock()
				defer mu.Unlock()
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |",
					s.Name, s.Version, s.Kind, revision, strings.Join(accepted, ", "), strings.Join(exercised, ", "), result))
			})
			r := startLegacy(t, s)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()

			var progress atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpconnector-interop", Version: "v0.0.0"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					if req.Params.ProgressToken == "legacy-progress" {
						progress.Add(1)
					}
				},
			})
			cs, err := client.Connect(ctx, r.ClientTransport(), nil)
			require.NoError(t, err, "go-sdk's client connects")
			closed := false
			defer func() {
				if !closed {
					_ = cs.Close()
				}
			}()
			revision = cs.InitializeResult().ProtocolVersion
			t.Logf("negotiated %s", revision)
			assert.Contains(t, olderRevisions, revision, "a revision older than 2026-07-28")
			exercised = append(exercised, "initialize")

			var names []string
			for tool, err := range cs.Tools(ctx, nil) {
				require.NoError(t, err)
				names = append(names, tool.Name)
			}
			require.Contains(t, names, s.Tool, "tools/list")
			exercised = append(exercised, fmt.Sprintf("tools/list (%d)", len(names)))

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.Tool, Arguments: s.Args})
			require.NoError(t, err)
			require.False(t, res.IsError, "%s: %s", s.Tool, texts(res.Content))
			require.Contains(t, texts(res.Content), r.Want, s.Tool)
			exercised = append(exercised, "tools/call "+s.Tool)

			if s.Name == "@modelcontextprotocol/server-everything" {
				exercised = append(exercised, everythingExtras(ctx, t, cs, &progress)...)
			}

			closed = true
			err = cs.Close()
			if s.CloseSays == "" {
				require.NoError(t, err, "close")
				exercised = append(exercised, "close")
			} else {
				require.EqualError(t, err, s.CloseSays, "close")
				exercised = append(exercised, "close ("+s.CloseSays+")")
			}
			accepted = probeRevisions(ctx, t, r)
			r.Stop()
			if s.Kind != legacyStdio {
				assert.Equal(t, 1+len(olderRevisions), r.Received("initialize"),
					"go-sdk's client falls back to initialize once, and the probe initializes once a revision")
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("older revisions, go-sdk v1.8.0's client:\n%s\n%s\n%s",
		"| server | pinned | transport | revision negotiated | revisions accepted | exercised | result |",
		"|---|---|---|---|---|---|---|",
		strings.Join(rows, "\n"))
}

// probeRevisions initializes a session at each older revision in turn,
// with a client that declares no capabilities, and returns those the
// server accepted as asked ("asked→answered" for one it answered with
// another, which must be an older revision too).
func probeRevisions(ctx context.Context, t *testing.T, r *legacyRun) (accepted []string) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpconnector-interop", Version: "v0.0.0"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	for _, rev := range olderRevisions {
		cs, err := client.Connect(ctx, r.ClientTransport(), &mcp.ClientSessionOptions{ProtocolVersion: rev})
		require.NoError(t, err, "initialize at %s", rev)
		got := cs.InitializeResult().ProtocolVersion
		assert.Contains(t, olderRevisions, got, "asked %s", rev)
		if got == rev {
			accepted = append(accepted, rev)
		} else {
			accepted = append(accepted, rev+"→"+got)
		}
		require.NoError(t, cs.Close(), "close at %s, no roots declared", rev)
	}
	return accepted
}

// everythingExtras exercises on server-everything what the others lack:
// resources, prompts, progress; it returns what it exercised.
func everythingExtras(ctx context.Context, t *testing.T, cs *mcp.ClientSession, progress *atomic.Int32) (exercised []string) {
	resources, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, resources.Resources, "resources/list")
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: resources.Resources[0].URI})
	require.NoError(t, err)
	require.NotEmpty(t, read.Contents, "resources/read %s", resources.Resources[0].URI)
	assert.Equal(t, resources.Resources[0].URI, read.Contents[0].URI)
	exercised = append(exercised, "resources/list, resources/read")

	prompts, err := cs.ListPrompts(ctx, nil)
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "simple-prompt" }),
		"prompts/list has simple-prompt")
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"})
	require.NoError(t, err)
	require.NotEmpty(t, prompt.Messages, "prompts/get simple-prompt")
	exercised = append(exercised, "prompts/list, prompts/get")

	params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.2, "steps": 2}}
	params.SetProgressToken("legacy-progress")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	require.False(t, res.IsError, texts(res.Content))
	require.Contains(t, texts(res.Content), "Steps: 2")
	require.Eventually(t, func() bool { return progress.Load() == 2 }, time.Minute, 10*time.Millisecond,
		"two notifications/progress for the token")
	return append(exercised, "progress (2 notifications)")
}

// texts is the text of content's text blocks, one a line.
func texts(content []mcp.Content) string {
	var b strings.Builder
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// By default the plugin speaks only 2026-07-28: it refuses every legacy
// server at Connect with ErrProtocolVersion, and never sends initialize
// (counted by the HTTP servers, and over stdio on the wire).
func TestLegacyServersAreRefusedByDefault(t *testing.T) {
	for _, s := range legacyServers() {
		t.Run(s.Row(), func(t *testing.T) {
			r := startLegacy(t, s)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			p, err := plugin.Connect(ctx, r.WireTransport)
			if p != nil {
				p.Close()
			}
			require.Nil(t, p)
			require.Error(t, err)
			t.Log(err)
			assert.ErrorIs(t, err, plugin.ErrInternal)
			assert.ErrorIs(t, err, plugin.ErrProtocolVersion)
			assert.Contains(t, err.Error(), "this client speaks only MCP 2026-07-28")
			r.Stop()
			if s.Kind != legacySSE { // the POST to /sse is no message the server reads
				assert.Equal(t, 1, r.Received("server/discover"), "server/discover, once")
			}
			assert.Zero(t, r.Received("initialize"), "initialize never reaches the wire")
		})
	}
}
