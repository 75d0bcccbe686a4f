package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/plugin"
)

// A server started at an older revision says which on its ready line; one
// at 2026-07-28 (or not yet ready) does not.
func TestReadyLineNamesAnOlderRevision(t *testing.T) {
	l := newServerLines(&mcpconfig.Config{Servers: map[string]*mcpconfig.Server{"old": {Name: "old", Type: mcpconfig.TypeStdio}}})
	ready := plugin.Status{State: actors.Ready}
	assert.Equal(t, "  old  stdio  ready (8 tools, MCP 2025-11-25)", l.line("old", ready, 8, "2025-11-25"))
	assert.Equal(t, "  old  stdio  ready (8 tools)", l.line("old", ready, 8, "2026-07-28"))
	assert.Equal(t, "  old  stdio  ready (1 tool)", l.line("old", ready, 1, ""))
}
