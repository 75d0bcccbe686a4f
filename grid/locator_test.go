//go:build !race

// Built without -race: see main_test.go.

package grid

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The cluster's lookup takes no context: a caller whose context ends stops
// waiting for it, a caller that comes meanwhile waits for the same lookup,
// and closing the locator waits for it, so no goroutine is left.
func TestGrainLocatorOwnsItsLookup(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	var gets atomic.Int32
	want := actor.NewPID("member:1", "grain")
	loc := &grainLocator{server: "calc", get: func() *actor.PID {
		gets.Add(1)
		started <- struct{}{}
		<-release
		return want
	}}

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := loc.locate(gone)
	require.ErrorIs(t, err, context.Canceled, "an ended context ends the wait, not the lookup")
	<-started // the lookup runs, with nobody waiting
	_, err = loc.locate(gone)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int32(1), gets.Load(), "a caller that comes while a lookup runs waits for that one")

	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	close(release)
	pid, err := loc.locate(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, pid)

	loc.close()
	_, err = loc.locate(ctx)
	require.ErrorContains(t, err, "closed")
	goleak.VerifyNone(t, ignore)
}

// A lookup that finds no member fails the caller; the next call looks
// again.
func TestGrainLocatorLooksAgainAfterNothingFound(t *testing.T) {
	var gets atomic.Int32
	loc := &grainLocator{server: "calc", get: func() *actor.PID {
		if gets.Add(1) == 1 {
			return nil
		}
		return actor.NewPID("member:1", "grain")
	}}
	defer loc.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := loc.locate(ctx)
	require.ErrorContains(t, err, `no member could activate the mcp-connection grain "calc"`)
	pid, err := loc.locate(ctx)
	require.NoError(t, err)
	assert.Equal(t, "grain", pid.Id)
}
