package mcpconfig

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigJSONTasks(t *testing.T) {
	cfg, err := parse([]byte(servers(`
"on":{"command":"x","tasks":true},
"off":{"command":"x","tasks":false},
"nul":{"command":"x","tasks":null},
"none":{"command":"x"},
"set":{"command":"x","tasks":{"pollInterval":"2s","minPollInterval":"100ms","maxPollInterval":"1m","timeout":"3h","detachAfter":"45s"}},
"empty":{"command":"x","tasks":{}}`)), "", testVars)
	require.NoError(t, err)
	assert.Equal(t, &Tasks{}, cfg.Servers["on"].Tasks)
	assert.Nil(t, cfg.Servers["off"].Tasks)
	assert.Nil(t, cfg.Servers["nul"].Tasks)
	assert.Nil(t, cfg.Servers["none"].Tasks)
	assert.Equal(t, &Tasks{PollInterval: 2 * time.Second, MinPollInterval: 100 * time.Millisecond, MaxPollInterval: time.Minute,
		Timeout: 3 * time.Hour, DetachAfter: 45 * time.Second}, cfg.Servers["set"].Tasks)
	assert.Equal(t, &Tasks{}, cfg.Servers["empty"].Tasks)
}

func TestConfigJSONTasksErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"a number", servers(`"a":{"command":"x","tasks":1}`), `server "a": tasks: must be true, false or an object of durations`},
		{"unknown setting", servers(`"a":{"command":"x","tasks":{"interval":"1s"}}`), `server "a": tasks.interval: unknown setting`},
		{"not a duration", servers(`"a":{"command":"x","tasks":{"timeout":5}}`), `server "a": tasks.timeout: must be a duration such as "30s"`},
		{"bad duration", servers(`"a":{"command":"x","tasks":{"timeout":"5 minutes"}}`), `server "a": tasks.timeout: must be a duration such as "30s" or "2m", not "5 minutes"`},
		{"not positive", servers(`"a":{"command":"x","tasks":{"detachAfter":"0s"}}`), `server "a": tasks.detachAfter: must be positive`},
		{"twice", servers(`"a":{"command":"x","tasks":{"timeout":"1h","timeout":"2h"}}`), `server "a": tasks.timeout: duplicate setting`},
		{"bounds crossed", servers(`"a":{"command":"x","tasks":{"minPollInterval":"2s","maxPollInterval":"1s"}}`),
			`server "a": tasks: minPollInterval is above maxPollInterval`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse([]byte(c.data), "", testVars)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
