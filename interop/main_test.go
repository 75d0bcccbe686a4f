package interop

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	runIfChild()
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a message to an actor that has just stopped) that ends
		// by itself one throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
