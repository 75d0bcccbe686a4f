package actors

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The deadlines of many calls on one timer: each call is cancelled at its
// own deadline, in any order of arrival, and a stopped one never is.
func TestDeadlinesCancelEachAtItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &deadlines{}
		start := time.Now()
		var es [4]deadline
		ctxs := make([]context.Context, 4)
		cancelledAt := make([]time.Time, 4)
		for i, after := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second, 4 * time.Second} {
			ctx, cancel := context.WithCancelCause(context.Background())
			ctxs[i] = ctx
			d.add(&es[i], start.Add(after), func(cause error) {
				cancelledAt[i] = time.Now()
				cancel(cause)
			})
		}
		es[2].Stop() // the call ended first
		es[2].Stop() // twice is fine
		time.Sleep(5 * time.Second)
		synctest.Wait()
		for i, want := range []time.Duration{3 * time.Second, time.Second, 0, 4 * time.Second} {
			if want == 0 {
				assert.NoError(t, ctxs[i].Err(), "a stopped deadline cancels nothing")
				continue
			}
			require.ErrorIs(t, context.Cause(ctxs[i]), context.DeadlineExceeded, "call %d", i)
			assert.Equal(t, want, cancelledAt[i].Sub(start), "call %d", i)
		}
		assert.Empty(t, d.h)
		// An earlier deadline than the timer's comes in: it is kept.
		ctx, cancel := context.WithCancelCause(context.Background())
		var late, early deadline
		d.add(&late, time.Now().Add(time.Hour), func(error) {})
		d.add(&early, time.Now().Add(time.Second), cancel)
		time.Sleep(time.Second)
		synctest.Wait()
		require.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
		late.Stop()
		d.timer.Stop()
	})
}
