package actors

import (
	"slices"
	"time"
)

// The retry schedule: when a supervisor tries again while its server is
// away. It is chosen so that an outage costs about what it lasts, and a
// server that never returns costs a bounded number of tries:
//
//   - the first restarts follow a jittered exponential backoff from
//     InitialBackoff (100ms) doubling up to MaxBackoff (2s), within the
//     restart budget (9 in a minute), which lasts past the tenth second of
//     an outage even on the shortest waits (its ninth restart comes at
//     11.1s at the earliest): a server back after 10s is tried within 2.5s
//     of its return;
//   - once the budget is spent the breaker opens (calls fail at once) and
//     one reconnection is tried per cool-down: CoolDown (7.5s, at most
//     9.4s with its jitter) while the outage is shorter than a minute,
//     so that a server back after a minute is tried within 10s of its
//     return;
//   - past a minute each cool-down is twice the outage so far (the next
//     try comes when the outage has tripled), up to MaxCoolDown (1h): a
//     server that never returns is tried 19 times in its first hour.
//
// Every wait is stretched by a random part of up to a quarter of itself
// (jitter), so that many clients of one server do not retry in step. The
// arithmetic is in docs/guarantees.md; TryTimes computes the schedule.

// longOutage is how long an outage lasts before each cool-down grows with
// it: past it, a cool-down is twice the outage so far, up to MaxCoolDown.
const longOutage = time.Minute

// Schedule defaults, beside defaultCoolDown.
const (
	defaultInitialBackoff = 100 * time.Millisecond
	defaultMaxBackoff     = 2 * time.Second
	defaultMaxRestarts    = 9
	defaultRestartWindow  = time.Minute
	defaultMaxCoolDown    = time.Hour
	// jitterSpread is the largest part of a wait its jitter adds.
	jitterSpread = 0.25
)

// scheduleDefaults is c with the schedule's zero fields at their defaults.
func (c SupervisorConfig) scheduleDefaults() SupervisorConfig {
	if c.InitialBackoff <= 0 {
		c.InitialBackoff = defaultInitialBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = defaultMaxBackoff
	}
	if c.MaxBackoff < c.InitialBackoff {
		c.MaxBackoff = c.InitialBackoff
	}
	if c.MaxRestarts == 0 {
		c.MaxRestarts = defaultMaxRestarts
	}
	if c.RestartWindow <= 0 {
		c.RestartWindow = defaultRestartWindow
	}
	if c.CoolDown <= 0 {
		c.CoolDown = defaultCoolDown
	}
	if c.MaxCoolDown <= 0 {
		c.MaxCoolDown = defaultMaxCoolDown
	}
	if c.MaxCoolDown < c.CoolDown {
		c.MaxCoolDown = c.CoolDown
	}
	return c
}

// jittered is d stretched by jitter (in [0, 1]) times a quarter of itself.
func jittered(d time.Duration, jitter float64) time.Duration {
	return d + time.Duration(float64(d)*jitterSpread*min(max(jitter, 0), 1))
}

// backoffFor is the wait before restart attempt (from 1): InitialBackoff
// doubled attempt-1 times, capped at MaxBackoff, then jittered.
func (c SupervisorConfig) backoffFor(attempt int, jitter float64) time.Duration {
	d := c.InitialBackoff
	for i := 1; i < attempt && d < c.MaxBackoff; i++ {
		d *= 2
	}
	return jittered(min(d, c.MaxBackoff), jitter)
}

// coolDownFor is how long the breaker stays open when it opens outage
// into an outage: CoolDown until [longOutage], then twice the outage,
// capped at MaxCoolDown, then jittered.
func (c SupervisorConfig) coolDownFor(outage time.Duration, jitter float64) time.Duration {
	d := c.CoolDown
	if outage >= longOutage {
		d = max(d, min(2*outage, c.MaxCoolDown))
	}
	return jittered(d, jitter)
}

// TryTimes is the schedule of a supervisor configured by c (zero fields at
// their defaults) whose server stays away: the times, from the start of
// the outage (the failure that lost the session, or the first failed
// connection of a RetryConnect supervisor), of each try to connect again
// within horizon, each try failing at once, with every wait's jitter at
// jitter (0: the shortest waits, 1: the longest; in between, the
// supervisor's tries fall between the two). The first try after a
// server's return after an outage of L is the first time at or after L.
// The try that lost the session, or the first connection, is not in it.
func (c SupervisorConfig) TryTimes(horizon time.Duration, jitter float64) []time.Duration {
	c = c.scheduleDefaults()
	var times, restarts []time.Duration
	var now time.Duration
	failures, breakerOpen := 0, false
	for {
		// The try at now failed (at 0: the loss).
		restarts = slices.DeleteFunc(restarts, func(t time.Duration) bool { return now-t > c.RestartWindow })
		var wait time.Duration
		if breakerOpen || c.MaxRestarts >= 0 && len(restarts) >= c.MaxRestarts {
			breakerOpen = true
			wait = c.coolDownFor(now, jitter)
		} else {
			restarts = append(restarts, now)
			failures++
			wait = c.backoffFor(failures, jitter)
		}
		now += wait
		if now > horizon {
			return times
		}
		times = append(times, now)
	}
}
