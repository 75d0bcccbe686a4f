package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/messages"
)

// What happened to the server (a child's exit, an endpoint out of reach)
// crosses the wire with the cause, so that a facade on another member
// labels the error as the connection's member does.
func TestFailureSituationSurvivesTheWire(t *testing.T) {
	f := &messages.Failure{Kind: messages.FailureInternal, Op: `tools/call "x"`, Message: "the server exited (exit status 3)",
		Cause: messages.CauseConnectionLost, Exit: "exit status 3"}
	got := roundTrip(t, f).(*messages.Failure)
	assert.Equal(t, "exit status 3", got.Exit)
	assert.False(t, got.Unreachable)
	assert.Equal(t, messages.CauseConnectionLost, got.Cause)

	u := &messages.Failure{Kind: messages.FailureInternal, Op: "connect", Message: "could not reach", Unreachable: true}
	got = roundTrip(t, u).(*messages.Failure)
	assert.True(t, got.Unreachable)
	assert.Empty(t, got.Exit)
	assert.Equal(t, messages.CauseNone, got.Cause)
}
