package wire_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/messages"
)

func TestReadyCarriesInstructionsAcrossTheWire(t *testing.T) {
	ready := &messages.Ready{
		Tools:        []*mcp.Tool{{Name: "a", InputSchema: map[string]any{"type": "object"}}},
		Instructions: "Call a before b.\nNever b alone: ünïcode kept.",
	}
	got := roundTrip(t, ready).(*messages.Ready)
	assert.Equal(t, ready.Instructions, got.Instructions)
	assert.Empty(t, roundTrip(t, &messages.Ready{}).(*messages.Ready).Instructions)
}
