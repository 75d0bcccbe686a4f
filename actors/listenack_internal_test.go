package actors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The wait for a subscription's ack: an ack that came first, or comes
// while waiting, ends it; one that comes after it gave up calls late, once;
// the connection's close ends it at once, and no ack counts after it.
func TestListenAckWait(t *testing.T) {
	var early listenAck
	early.saw()
	acked, ended := early.wait(context.Background(), time.Hour, func() { t.Error("late called for an ack in time") })
	assert.True(t, acked)
	assert.False(t, ended)

	var during listenAck
	go func() { time.Sleep(10 * time.Millisecond); during.saw() }()
	acked, _ = during.wait(context.Background(), time.Hour, func() { t.Error("late called for an ack in time") })
	assert.True(t, acked)

	var after listenAck
	var lates atomic.Int32
	acked, ended = after.wait(context.Background(), time.Millisecond, func() { lates.Add(1) })
	assert.False(t, acked)
	assert.False(t, ended)
	after.saw()
	after.saw()
	assert.Equal(t, int32(1), lates.Load(), "a late ack is told once")

	var closed listenAck
	go func() { time.Sleep(10 * time.Millisecond); closed.end() }()
	acked, ended = closed.wait(context.Background(), time.Hour, func() { t.Error("late called after the end") })
	assert.False(t, acked)
	assert.True(t, ended)
	closed.saw()
	closed.end()

	var cancelled listenAck
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	acked, ended = cancelled.wait(ctx, time.Hour, nil)
	assert.False(t, acked)
	assert.False(t, ended)
}
