package mcpconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigTrustAndMaxResultBytes(t *testing.T) {
	cfg, err := parse([]byte(servers(`"a":{"command":"x","trust":true,"maxResultBytes":4096},"b":{"command":"y","trust":false},"c":{"command":"z","trust":null,"maxResultBytes":0}`)), "", testVars)
	require.NoError(t, err)
	assert.True(t, cfg.Servers["a"].Trust)
	assert.Equal(t, 4096, cfg.Servers["a"].MaxResultBytes)
	assert.False(t, cfg.Servers["b"].Trust)
	assert.Equal(t, 0, cfg.Servers["b"].MaxResultBytes, "absent: no cap")
	assert.False(t, cfg.Servers["c"].Trust, "null counts as absent")
	assert.Equal(t, 0, cfg.Servers["c"].MaxResultBytes)
}

func TestConfigTrustAndMaxResultBytesErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"trust not a bool", servers(`"a":{"command":"x","trust":"yes"}`), `1:43: server "a": trust: must be true or false`},
		{"trust twice", servers(`"a":{"command":"x","trust":true,"trust":false}`), `1:48: server "a": trust: duplicate field`},
		{"cap as a string", servers(`"a":{"command":"x","maxResultBytes":"1k"}`), `1:52: server "a": maxResultBytes: must be a number of bytes`},
		{"negative cap", servers(`"a":{"command":"x","maxResultBytes":-1}`), `1:52: server "a": maxResultBytes: must not be negative`},
		{"fractional cap", servers(`"a":{"command":"x","maxResultBytes":1.5}`), `1:52: server "a": maxResultBytes: must be a whole number`},
		{"huge cap", servers(`"a":{"command":"x","maxResultBytes":1e12}`), `1:52: server "a": maxResultBytes: is too large`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse([]byte(c.data), "", testVars)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Equal(t, c.want, err.Error())
		})
	}
}
