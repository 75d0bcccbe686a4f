package genkitmcp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/fixture/agenttest"
)

func TestMain(m *testing.M) {
	agenttest.RunIfChild()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine that a
		// dead letter sent while a toolbox closes starts, and that ends by
		// itself a second later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
