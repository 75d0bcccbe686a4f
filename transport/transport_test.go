package transport

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuca-go/mcpconnector/internal/core/httppool"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestStderrTailKeepsTheLastLinesAndLogsEach(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	tail := newStderrTail(3, zap.New(core))
	_, _ = tail.Write([]byte("one\ntwo\r\nthr"))
	_, _ = tail.Write([]byte("ee\nfour\nfive\nunfinished"))
	assert.Equal(t, []string{"three", "four", "five", "unfinished"}, tail.Lines())
	assert.Equal(t, 5, logs.FilterMessage("mcp server stderr").Len())
	assert.Equal(t, "two", logs.All()[1].ContextMap()["line"])
}

func TestStderrTailBoundsALineWithoutNewline(t *testing.T) {
	tail := newStderrTail(2, zap.NewNop())
	_, _ = tail.Write([]byte(strings.Repeat("x", 3*maxStderrLine+5)))
	lines := tail.Lines()
	require.Len(t, lines, 3, "two kept full lines plus the unfinished rest")
	assert.Len(t, lines[0], maxStderrLine)
	assert.Len(t, lines[2], 5)
}

func TestStdioOpenFailsForMissingOrNonExecutableCommands(t *testing.T) {
	_, err := NewStdio("mcpconnector-no-such-command").Open(nil)
	var spawn *SpawnError
	require.ErrorAs(t, err, &spawn)
	assert.ErrorIs(t, err, exec.ErrNotFound)

	path := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o644))
	_, err = NewStdio(path).Open(nil)
	require.ErrorAs(t, err, &spawn)
	assert.ErrorIs(t, err, fs.ErrPermission)

	_, err = Stdio{}.Open(nil)
	require.ErrorAs(t, err, &spawn)
}

func TestDefaultEnvHoldsOnlyTheListedKeys(t *testing.T) {
	t.Setenv("MCPCONNECTOR_SECRET", "s3cret")
	t.Setenv("PATH", "/usr/bin")
	env := DefaultEnv()
	assert.Contains(t, env, "PATH=/usr/bin")
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		assert.Contains(t, defaultEnvKeys, key)
	}
}

func TestHeadersAreAddedToEveryRequest(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer srv.Close()
	rt := headerRoundTripper{base: http.DefaultTransport, header: http.Header{"Authorization": {"Bearer t0ken"}, "X-Api-Key": {"k"}}, endpoint: srv.URL}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer old")
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	httppool.CloseIdle()
	assert.Equal(t, "Bearer t0ken", got.Get("Authorization"))
	assert.Equal(t, "k", got.Get("X-Api-Key"))
	assert.Equal(t, "Bearer old", req.Header.Get("Authorization"), "the caller's request is not modified")
}

// An endpoint's name, which every error and log line carries, never holds
// the credentials its URL may carry.
func TestEndpointNamesHoldNoCredentials(t *testing.T) {
	for _, tc := range []struct {
		t    McpTransport
		want string
	}{
		{StreamableHTTP{URL: "https://user:secret@example.com/mcp?token=secret#frag"}, `http "https://example.com/mcp"`},
		{StreamableHTTP{URL: "http://127.0.0.1:8080/mcp"}, `http "http://127.0.0.1:8080/mcp"`},
		{SSE{URL: "https://user:secret@example.com/sse?key=secret"}, `sse "https://example.com/sse"`},
		{StreamableHTTP{URL: "http://[::1"}, `http "\"http://[::1\""`},
	} {
		assert.Equal(t, tc.want, tc.t.String())
		assert.NotContains(t, tc.t.String(), "secret")
	}
}
