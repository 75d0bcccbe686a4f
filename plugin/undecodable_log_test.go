package plugin_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/plugin"
)

func TestUndecodableMessageIsNotQuotedInLogsAboveDebug(t *testing.T) {
	leakCheck(t)
	core, logs := observer.New(zap.DebugLevel)
	p := misbehaving(t, plugin.WithLogger(zap.New(core)))
	// The message cannot be decoded, so it ends the session; go-sdk's error
	// quotes the start of the offending value, which may be tool output.
	_, err := callWithin(p, 10*time.Second, "reply", reply(`{"jsonrpc":"2.0","id":$ID,"error":"RESULT-SECRET-5a1"}`))
	require.ErrorIs(t, err, plugin.ErrInternal)
	require.Eventually(t, func() bool {
		return len(logs.FilterMessage("mcp session ended").All()) > 0
	}, 10*time.Second, 10*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // the restart's log lines
	assert.Empty(t, secretLogs(logs, zapcore.InfoLevel, "RESULT-SECRET"), "the server's bytes stay at debug")
}
