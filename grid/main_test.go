//go:build !race

// The grid tests build without -race. protoactor-go's cluster has data
// races of its own that the race detector reports in any cluster test:
// remote.Start writes grpc's global logger whenever a member starts
// (grpclog.SetLoggerV2), and the member list blocks members
// (remote.BlockList.Block) while the provider reads the block list, without
// a lock. .ci/run runs `go test ./grid/` without -race after the README's
// test command; the facade's own code (internal/core/attach, the wire forms) is
// also tested under -race in internal/core/attach, plugin and messages, without a cluster.

package grid_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/fixture/gridmember"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	gridmember.RunIfAsked()
	goleak.VerifyTestMain(m,
		// protoactor-go's own throttles and the test provider's TTL loop
		// run on tickers that nothing stops, even after a graceful
		// Shutdown; every other goroutine is checked.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster/clusterproviders/test.(*Provider).startTtlReport.func1"),
		// protoactor-go's remote keeps the gRPC client connections of its
		// endpoints after Shutdown: a member that outlives another one
		// goes on redialling it. The module's grpc names the loop
		// resetTransport; the workspace's newer one (raised by an adapter)
		// resetTransportAndUnlock.
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*addrConn).resetTransport"),
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*addrConn).resetTransportAndUnlock"),
		goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run"),
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*pickerWrapper).pick"),
	)
}
