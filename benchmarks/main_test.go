package benchmarks_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/benchmarks"
	"github.com/cuca-go/mcpconnector/internal/fixture/taskserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunBenchIfChild()
	benchmarks.RunLegacyIfChild()
	benchmarks.RunTemplateIfChild()
	taskserver.RunIfChild()
	goleak.VerifyTestMain(m,
		// The grid scenario's cluster: protoactor-go's throttles and its
		// test provider's TTL loop run on tickers nothing stops (as in
		// grid/main_test.go).
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster/clusterproviders/test.(*Provider).startTtlReport.func1"),
	)
}
