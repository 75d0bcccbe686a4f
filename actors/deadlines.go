package actors

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// deadlines are the deadlines of a connection's calls in flight, on one
// timer: a call's deadline costs no timer of its own, nor an allocation.
// The timer is set for the earliest deadline; a call that ends leaves the
// table and the timer as they are, so that the timer moves only when an
// earlier deadline comes in or when it fires, and then it cancels every
// call whose deadline has passed and is set for the next.
type deadlines struct {
	mu    sync.Mutex
	h     deadlineHeap
	timer *time.Timer
	armed time.Time // when timer fires; zero when it is not set
}

// deadline is one call's entry in its connection's deadlines; Stop takes
// it out. It lives in the call.
type deadline struct {
	at     time.Time
	cancel context.CancelCauseFunc
	cl     *call // a posted call's deadline, which cl.expire cancels; cancel is nil
	d      *deadlines
	i      int // index in d.h; -1 when not in it
}

// add puts e in the table: at at, cancel (or, nil, e's call's expire) is
// called with context.DeadlineExceeded unless e has been stopped.
func (d *deadlines) add(e *deadline, at time.Time, cancel context.CancelCauseFunc) {
	e.at, e.cancel, e.d = at, cancel, d
	d.mu.Lock()
	heap.Push(&d.h, e)
	if d.armed.IsZero() || at.Before(d.armed) {
		d.arm(at)
	}
	d.mu.Unlock()
}

// arm sets the timer for at; d.mu is held.
func (d *deadlines) arm(at time.Time) {
	d.armed = at
	if d.timer == nil {
		d.timer = time.AfterFunc(time.Until(at), d.fire)
		return
	}
	d.timer.Reset(time.Until(at))
}

// fire cancels the calls whose deadline has passed and sets the timer for
// the next.
func (d *deadlines) fire() {
	var due []*deadline
	d.mu.Lock()
	now := time.Now()
	for len(d.h) > 0 && !d.h[0].at.After(now) {
		due = append(due, heap.Pop(&d.h).(*deadline))
	}
	d.armed = time.Time{}
	if len(d.h) > 0 {
		d.arm(d.h[0].at)
	}
	d.mu.Unlock()
	for _, e := range due {
		if e.cancel == nil {
			e.cl.expire(context.DeadlineExceeded)
			continue
		}
		e.cancel(context.DeadlineExceeded)
	}
}

// Stop takes e out of its table: its deadline no longer cancels it. It may
// be called more than once.
func (e *deadline) Stop() {
	d := e.d
	if d == nil {
		return
	}
	d.mu.Lock()
	if e.i >= 0 {
		heap.Remove(&d.h, e.i)
	}
	d.mu.Unlock()
}

// deadlineHeap orders entries by deadline, earliest first.
type deadlineHeap []*deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *deadlineHeap) Push(x any) {
	e := x.(*deadline)
	e.i = len(*h)
	*h = append(*h, e)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.i = -1
	return e
}
