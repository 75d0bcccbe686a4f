package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/examples/internal/demoserver"
)

func TestMain(m *testing.M) {
	demoserver.RunIfAsked()
	goleak.VerifyTestMain(m)
}

// TestRun runs the example end to end: a real server, killed for real, and
// the call after the restart must succeed.
func TestRun(t *testing.T) {
	require.NoError(t, run())
}
