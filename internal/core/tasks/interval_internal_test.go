package tasks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTheIntervalIsTheServersWithinBoundsItsFirstJittered(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name   string
		cfg    Config
		server *int64
		want   time.Duration
	}{
		{"the server's", Config{}, ms(2000), 2 * time.Second},
		{"none: the default", Config{}, nil, DefaultInterval},
		{"none: the config's default", Config{DefaultInterval: 3 * time.Second}, nil, 3 * time.Second},
		{"too short", Config{}, ms(1), MinInterval},
		{"too long", Config{}, ms(3_600_000), MaxInterval},
		{"the config's bounds", Config{MinInterval: time.Second, MaxInterval: 2 * time.Second}, ms(10), time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firsts := map[time.Duration]bool{}
			for range 200 {
				d := &driver{cfg: tc.cfg, t: &Task{PollIntervalMilliseconds: tc.server}}
				first := d.interval()
				assert.GreaterOrEqual(t, first, tc.want, "never sooner than the server suggests")
				assert.LessOrEqual(t, first, time.Duration(float64(tc.want)*(1+Jitter)))
				firsts[first] = true
				for range 3 {
					assert.Equal(t, tc.want, d.interval(), "the later waits are the interval exactly")
				}
			}
			assert.Greater(t, len(firsts), 100, "the first waits vary")
		})
	}
}
