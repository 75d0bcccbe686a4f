//go:build !race

// protoactor-go's remote.Start writes grpc's global logger (see
// grid/main_test.go), which the race detector reports when two remotes
// share a process: this test builds without -race.

package plugin_test

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/require"
)

// TestAttachedFacadeHasTheControlsAcrossRemote is
// TestAttachedFacadeHasTheControls with the facade and the connection in
// two actor systems joined by protoactor's remote over loopback gRPC: every
// message between them travels in its wire form.
func TestAttachedFacadeHasTheControlsAcrossRemote(t *testing.T) {
	host, facade := quietSystem(), quietSystem()
	for _, sys := range []*actor.ActorSystem{host, facade} {
		r := remote.NewRemote(sys, remote.Configure("127.0.0.1", 0))
		r.Start()
		t.Cleanup(func() { r.Shutdown(true) })
	}
	require.NotEqual(t, host.Address(), facade.Address())
	attachedControls(t, host, facade)
}
