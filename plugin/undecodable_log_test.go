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
	// The line cannot be decoded, so it is skipped and warned of; what it
	// holds may be tool output.
	_, err := callWithin(p, 10*time.Second, "reply", reply(`{"jsonrpc":"2.0","id":$ID,"error":"RESULT-SECRET-5a1"}`,
		`{"jsonrpc":"2.0","id":$ID,"result":{"content":[]}}`))
	require.NoError(t, err)
	require.NoError(t, p.Close()) // the last count of skipped lines is told at close
	assert.NotZero(t, logs.FilterLevelExact(zapcore.WarnLevel).FilterMessageSnippet("not JSON-RPC").Len())
	assert.Empty(t, secretLogs(logs, zapcore.InfoLevel, "RESULT-SECRET"), "the server's bytes stay at debug")
	assert.NotEmpty(t, secretLogs(logs, zapcore.DebugLevel, "RESULT-SECRET"), "at debug level they are quoted")
}
