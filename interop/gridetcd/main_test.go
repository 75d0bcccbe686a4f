//go:build !race

// Built without -race: see doc.go.

package gridetcd_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m,
		// protoactor-go's own throttles run on tickers that nothing stops,
		// even after a graceful Shutdown (as in grid/main_test.go); every
		// other goroutine is checked.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.(*Gossiper).StartGossiping.NewThrottle.func3.1"),
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/cluster.NewGossipActor.NewThrottleWithLogger.func2.1"),
		// protoactor-go's etcd provider never closes its etcd client: its
		// lease loops and their gRPC connection outlive Shutdown.
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).deadlineLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).recvKeepAliveLoop"),
		// The module's grpc names it resetTransport; the workspace's
		// newer one (raised by an adapter) resetTransportAndUnlock.
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*addrConn).resetTransport"),
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*addrConn).resetTransportAndUnlock"),
		goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run"),
		goleak.IgnoreTopFunction("google.golang.org/grpc.(*pickerWrapper).pick"),
	)
}
