package auth_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// protoactor's dead-letter throttle: a timer goroutine started by a
		// dead letter (a connection actor that stops as its supervisor
		// stops it too, in the plugin tests here) that ends by itself one
		// throttle period later.
		goleak.IgnoreTopFunction("github.com/asynkron/protoactor-go/actor.NewDeadLetter.NewThrottle.func4.1"))
}
