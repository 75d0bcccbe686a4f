package grid_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m,
		// protoactor-go's own throttles and the test provider's TTL loop
		// run on tickers that nothing stops, even after a graceful
		// Shutdown; every other goroutine is checked.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster/clusterproviders/test.(*Provider).startTtlReport.func1"),
	)
}
