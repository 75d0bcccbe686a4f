package testremote

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
)

// Start starts a remote for system on a free loopback port and shuts it
// down when the test ends.
//
// A graceful shutdown can panic inside protoactor-go (remote's
// endpointManager.stop sends on the channel of an endpoint reader whose
// peer has just gone, which the reader closes before it removes it): the
// peer shut down first, as one of two members of a test always does. Stop
// recovers from that panic and then stops the gRPC server at once, which is
// what the rest of the graceful shutdown would have done.
func Start(t testing.TB, system *actor.ActorSystem) *remote.Remote {
	t.Helper()
	r := remote.NewRemote(system, remote.Configure("127.0.0.1", 0))
	r.Start()
	t.Cleanup(func() { Stop(r) })
	return r
}

// Stop shuts r down gracefully, or at once when protoactor's graceful
// shutdown panics (see [Start]).
func Stop(r *remote.Remote) {
	defer func() {
		if recover() != nil {
			r.Shutdown(false)
		}
	}()
	r.Shutdown(true)
}
