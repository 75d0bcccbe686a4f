package toolbox_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/fixture/countserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	countserver.RunIfChild()
	taskserver.RunIfChild()
	runFlipServerIfChild()
	goleak.VerifyTestMain(m,
		// Closing a toolbox may send Stop to a server's actor that has
		// just stopped (the toolbox actor stops its children before it has
		// heard of their end); protoactor's dead-letter throttle then
		// runs a one-second timer that outlives the last test when it
		// closes in that second. Every other goroutine is checked.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
	)
}
