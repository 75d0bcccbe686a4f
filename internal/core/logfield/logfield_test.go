package logfield

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestServerNamesTheServerOnALoggerThatWrites(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	Server(zap.New(core), "github").Info("up")
	assert.Equal(t, "github", logs.All()[0].ContextMap()["mcp_server"])

	nop := zap.NewNop()
	assert.Same(t, nop, Server(nop, "github"), "a silent logger is not copied")
}
