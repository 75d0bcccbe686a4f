package actors_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a call to a stopped supervisor from another member,
		// in remote_test.go) that ends by itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
