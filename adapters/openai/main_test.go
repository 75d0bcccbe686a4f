package openaimcp_test

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
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"),
		// net/http's idle keep-alive connections of the SDK's client to the
		// test server, closed by the server's Close.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}
