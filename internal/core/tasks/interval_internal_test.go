package tasks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTheIntervalIsTheServersWithinBoundsAndJittered(t *testing.T) {
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
			d := &driver{cfg: tc.cfg, t: &Task{PollIntervalMilliseconds: tc.server}}
			seen := map[time.Duration]bool{}
			for range 200 {
				iv := d.interval()
				assert.GreaterOrEqual(t, iv, time.Duration(float64(tc.want)*(1-Jitter)))
				assert.LessOrEqual(t, iv, time.Duration(float64(tc.want)*(1+Jitter)))
				seen[iv] = true
			}
			assert.Greater(t, len(seen), 100, "the waits vary")
		})
	}
}
