package main

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/examples/demoserver"
)

func TestMain(m *testing.M) {
	demoserver.RunIfAsked()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a message to an actor that has just stopped) that ends
		// by itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}

// TestRun runs the example end to end: a real server, killed for real, and
// the call after the restart must succeed.
func TestRun(t *testing.T) {
	require.NoError(t, run())
}
