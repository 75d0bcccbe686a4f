package toolbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/mcpconfig"
)

func TestConfigAlwaysLoad(t *testing.T) {
	cfg, err := mcpconfig.Parse([]byte(`{"mcpServers":{"a":{"command":"x","alwaysLoad":true},"b":{"command":"y","alwaysLoad":false},"c":{"command":"z","alwaysLoad":null},"d":{"command":"w"}}}`))
	require.NoError(t, err)
	assert.True(t, cfg.Servers["a"].AlwaysLoad)
	assert.False(t, cfg.Servers["b"].AlwaysLoad)
	assert.False(t, cfg.Servers["c"].AlwaysLoad, "null counts as absent")
	assert.False(t, cfg.Servers["d"].AlwaysLoad)
}

func TestConfigAlwaysLoadErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"not a bool", `{"mcpServers":{"a":{"command":"x","alwaysLoad":"yes"}}}`, `1:48: server "a": alwaysLoad: must be true or false`},
		{"a number", `{"mcpServers":{"a":{"command":"x","alwaysLoad":1}}}`, `1:48: server "a": alwaysLoad: must be true or false`},
		{"twice", `{"mcpServers":{"a":{"command":"x","alwaysLoad":true,"alwaysLoad":false}}}`, `1:53: server "a": alwaysLoad: duplicate field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := mcpconfig.Parse([]byte(c.data), mcpconfig.WithStrict())
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Equal(t, c.want, err.Error())
		})
	}
}
