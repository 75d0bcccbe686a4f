package actors_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/messages"
)

// nextTry is how long after a server's return after an outage of l the
// schedule tries again: the first try at or after l.
func nextTry(t *testing.T, times []time.Duration, l time.Duration) time.Duration {
	t.Helper()
	for _, at := range times {
		if at >= l {
			return at - l
		}
	}
	t.Fatalf("no try after an outage of %s", l)
	return 0
}

// The default schedule makes an outage cost about what it lasts: a server
// back after 10s is tried within 3s of its return, after 60s within 10s,
// and one that never returns is tried at most 20 times in its first hour
// (the first connection of a RetryConnect supervisor included), whatever
// the jitter does.
func TestDefaultScheduleCostsAboutWhatTheOutageLasts(t *testing.T) {
	var cfg actors.SupervisorConfig
	shortest, longest := cfg.TryTimes(time.Hour, 0), cfg.TryTimes(time.Hour, 1)
	cases := []struct {
		outage, within time.Duration
	}{
		{time.Second, time.Second},
		{5 * time.Second, 2500 * time.Millisecond},
		{10 * time.Second, 3 * time.Second},
		{30 * time.Second, 10 * time.Second},
		{60 * time.Second, 10 * time.Second},
		{2 * time.Minute, 4 * time.Minute},
		{10 * time.Minute, 25 * time.Minute},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %-18s %s\n", "outage", "next try (jitter 0)", "(jitter 1)")
	for _, tc := range cases {
		lo, hi := nextTry(t, shortest, tc.outage), nextTry(t, longest, tc.outage)
		fmt.Fprintf(&table, "%-8s %-18s %s\n", tc.outage, lo.Round(time.Millisecond), hi.Round(time.Millisecond))
		assert.LessOrEqual(t, lo, tc.within, "outage %s, shortest waits", tc.outage)
		assert.LessOrEqual(t, hi, tc.within, "outage %s, longest waits", tc.outage)
		// The jitter moves each try; the worst gap a return can meet is
		// the longest wait between two tries around it.
		for _, times := range [][]time.Duration{shortest, longest} {
			prev := time.Duration(0)
			for _, at := range times {
				if at >= tc.outage {
					if tc.outage <= time.Minute {
						assert.LessOrEqual(t, at-prev, tc.within, "outage %s: the wait around it", tc.outage)
					}
					break
				}
				prev = at
			}
		}
	}
	t.Logf("\n%s", table.String())
	t.Logf("tries in the first hour: %d (jitter 0) to %d (jitter 1); at %v", len(shortest), len(longest), shortest)
	assert.LessOrEqual(t, len(shortest)+1, 20, "tries of a server that never returns, the first connection included")
	assert.LessOrEqual(t, len(longest), len(shortest))
	require.NotEmpty(t, longest)
}

// The schedule follows its options: the doubling backoff capped at
// MaxBackoff within the budget, then one try per CoolDown, and past a
// minute of outage each cool-down is twice the outage so far, capped at
// MaxCoolDown.
func TestScheduleFollowsItsOptions(t *testing.T) {
	cfg := actors.SupervisorConfig{InitialBackoff: time.Second, MaxBackoff: 4 * time.Second, MaxRestarts: 3,
		CoolDown: 10 * time.Second, MaxCoolDown: 5 * time.Minute}
	s := time.Second
	assert.Equal(t, []time.Duration{1 * s, 3 * s, 7 * s, 17 * s, 27 * s, 37 * s, 47 * s, 57 * s, 67 * s,
		67*s + 134*s, 201*s + 300*s, 501*s + 300*s}, cfg.TryTimes(801*s, 0))
	jit := cfg.TryTimes(20*s, 1)
	assert.Equal(t, []time.Duration{1250 * time.Millisecond, 3750 * time.Millisecond, 8750 * time.Millisecond}, jit,
		"each wait a quarter longer; the cool-down after 8.75s would end at 21.25s")

	never := actors.SupervisorConfig{MaxRestarts: -1, InitialBackoff: s, MaxBackoff: 2 * s}
	assert.Equal(t, []time.Duration{1 * s, 3 * s, 5 * s, 7 * s}, never.TryTimes(8*s, 0), "no budget: the backoff for ever")
}

// A supervisor follows the schedule: with its server away for an hour,
// each try falls between the schedule's tries on the shortest and on the
// longest waits, and there are no more of them, after a lost session as
// for a RetryConnect supervisor's first connection.
func TestSupervisorFollowsTheSchedule(t *testing.T) {
	for _, first := range []bool{false, true} {
		t.Run(fmt.Sprintf("first connection %v", first), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := &memory{}
				t.Cleanup(mem.closeAll)
				cfg := actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}, RetryConnect: first}
				var st statusLog
				cfg.OnStatus = st.add
				if first {
					mem.refuseAll(errors.New("server down"))
				}
				start := time.Now()
				startSupervisor(t, cfg)
				synctest.Wait()
				if !first {
					require.Equal(t, actors.Ready, st.last().State)
					mem.refuseAll(errors.New("server down"))
					start = time.Now()
					mem.kill()
				}
				time.Sleep(time.Hour)
				synctest.Wait()

				mem.mu.Lock()
				at := slices.Clone(mem.openedAt[1:])
				mem.mu.Unlock()
				lo, hi := cfg.TryTimes(time.Hour, 0), cfg.TryTimes(time.Hour, 1)
				require.GreaterOrEqual(t, len(at), len(hi))
				require.LessOrEqual(t, len(at), len(lo))
				for k, when := range at {
					d := when.Sub(start)
					assert.GreaterOrEqual(t, d, lo[k], "try %d", k+1)
					if k < len(hi) {
						assert.LessOrEqual(t, d, hi[k], "try %d", k+1)
					}
				}
				assert.LessOrEqual(t, len(at)+1, 20, "tries in the hour, the first connection or the lost session's included")
				assert.Equal(t, actors.Failed, st.last().State, "the breaker is open between tries")
			})
		})
	}
}

// A server back after an outage of 10s is called again within 3s of its
// return, after 60s within 10s: a call sent every 100ms from its return
// succeeds within that.
func TestSupervisorServesSoonAfterTheOutage(t *testing.T) {
	for _, tc := range []struct{ outage, within time.Duration }{
		{10 * time.Second, 3 * time.Second},
		{60 * time.Second, 10 * time.Second},
	} {
		t.Run(tc.outage.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := &memory{}
				t.Cleanup(mem.closeAll)
				var st statusLog
				system, pid := startSupervisor(t, actors.SupervisorConfig{Connection: actors.ConnectionConfig{Transport: mem}, OnStatus: st.add})
				synctest.Wait()
				require.Equal(t, actors.Ready, st.last().State)
				mem.refuseAll(errors.New("server down"))
				mem.kill()
				time.Sleep(tc.outage)
				mem.refuseAll(nil)
				back := time.Now()
				for id := uint64(1); ; id++ {
					reply := ask(t, system, pid, &messages.CallTool{ID: id, Name: "add", Arguments: []byte(`{"a":1,"b":1}`)}).(*messages.CallToolReply)
					if reply.Failure == nil {
						break
					}
					require.Less(t, time.Since(back), tc.within, "no good call within %s of the return: %v", tc.within, reply.Failure)
					time.Sleep(100 * time.Millisecond)
				}
				t.Logf("first good call %s after the return", time.Since(back))
				assert.LessOrEqual(t, time.Since(back), tc.within)
			})
		})
	}
}

// statusLog keeps every status OnStatus tells.
type statusLog struct {
	mu  sync.Mutex
	all []actors.Status
}

func (l *statusLog) add(st actors.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, st)
}

func (l *statusLog) last() actors.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return actors.Status{}
	}
	return l.all[len(l.all)-1]
}
