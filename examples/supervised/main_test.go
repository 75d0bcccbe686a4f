package main

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
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
// Its output shows the cause while it reconnects and, once ready again,
// the failure it recovered from.
func TestRun(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	runErr := run()
	os.Stdout = stdout
	require.NoError(t, w.Close())
	got := <-out
	require.NoError(t, runErr)
	assert.Contains(t, got, "status: reconnecting")
	assert.Contains(t, got, "    cause: ")
	assert.Regexp(t, `status: ready \(restarts: 1\)\n    recovered from \(\d\d:\d\d:\d\d\): `, got)
}
