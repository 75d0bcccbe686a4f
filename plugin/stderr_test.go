package plugin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// A server that prints 100 KiB of stderr and exits: its error carries the
// last three lines, at most 512 bytes, and the logger at debug gets the
// whole tail. Every log line about the server names it by its label.
func TestNoisyServerGetsAShortErrorAndTheWholeTailAtDebug(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	tr := transportSh(`head -c 102400 /dev/zero | tr '\0' x | fold -w 100 >&2; printf '\033[31mfatal:\033[0m last words\n' >&2; exit 1`)
	tr.Label = "noisy"
	_, err := plugin.Connect(context.Background(), tr, plugin.WithLogger(zap.New(core)), plugin.WithConnectTimeout(10*time.Second))
	require.ErrorIs(t, err, plugin.ErrInternal)
	msg := err.Error()
	assert.Contains(t, msg, "exit status 1")
	assert.Contains(t, msg, "fatal: last words", "the last line, its colours removed")
	assert.NotContains(t, msg, "\x1b")
	_, stderr, ok := strings.Cut(msg, "(server stderr: ")
	require.True(t, ok, msg)
	assert.LessOrEqual(t, len(stderr), 512+1)
	assert.LessOrEqual(t, strings.Count(stderr, " | "), 2, "at most three lines")

	tails := logs.FilterMessage("mcp server stderr tail").All()
	require.NotEmpty(t, tails)
	assert.Equal(t, zapcore.DebugLevel, tails[0].Level)
	lines, _ := tails[0].ContextMap()["lines"].([]any)
	assert.Len(t, lines, 20, "the whole kept tail")

	named := 0
	for _, e := range logs.All() {
		if v, ok := e.ContextMap()["mcp_server"]; ok {
			named++
			assert.Equal(t, "noisy", v, "%s", e.Message)
		}
	}
	assert.Greater(t, named, 1000, "the stderr lines and the connection's own lines name the server")
}

// An HTTP server has no stderr: its failure logs no empty tail.
func TestHTTPServerFailureLogsNoStderrTail(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	_, err := plugin.Connect(context.Background(), transport.StreamableHTTP{URL: "http://127.0.0.1:1/mcp"},
		plugin.WithLogger(zap.New(core)), plugin.WithConnectTimeout(5*time.Second))
	require.Error(t, err)
	require.NotEmpty(t, logs.All(), "the failure is logged")
	assert.Empty(t, logs.FilterMessage("mcp server stderr tail").All())
}
