package mcpconfig

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/transport"
)

// "legacyFallback" is read in each JSON form, legacy_fallback in Codex's
// TOML; absent is false.
func TestConfigLegacyFallback(t *testing.T) {
	forms := map[string]string{
		"mcpServers": `{"mcpServers":{"old":{"command":"x","legacyFallback":true},"new":{"command":"y","legacyFallback":false},"plain":{"url":"http://h/mcp"}}}`,
		"servers (VS Code)": `{"servers":{"old":{"type":"stdio","command":"x","legacyFallback":true},"new":{"command":"y","legacyFallback":null},
			"plain":{"type":"http","url":"http://h/mcp"}},"inputs":[]}`,
		"Codex TOML": "[mcp_servers.old]\ncommand = \"x\"\nlegacy_fallback = true\n\n[mcp_servers.new]\ncommand = \"y\"\nlegacy_fallback = false\n\n" +
			"[mcp_servers.plain]\nurl = \"http://h/mcp\"\n",
	}
	for name, data := range forms {
		t.Run(name, func(t *testing.T) {
			cfg, err := parse([]byte(data), "", testVars)
			require.NoError(t, err)
			require.Empty(t, cfg.Problems)
			assert.True(t, cfg.Servers["old"].LegacyFallback)
			assert.False(t, cfg.Servers["new"].LegacyFallback)
			assert.False(t, cfg.Servers["plain"].LegacyFallback)
		})
	}
}

func TestConfigLegacyFallbackErrors(t *testing.T) {
	_, err := parse([]byte(servers(`"a":{"command":"x","legacyFallback":"yes"}`)), "", testVars)
	require.EqualError(t, err, `1:52: server "a": legacyFallback: must be true or false`)
	_, err = parse([]byte("[mcp_servers.a]\ncommand = \"x\"\nlegacy_fallback = 1\n"), "", testVars)
	require.ErrorContains(t, err, `server "a": legacy_fallback: must be true or false`)
}

// A "type": "sse" entry is transport.SSE with "legacyFallback", and refused
// without it, the error naming the key.
func TestConfigSSENeedsLegacyFallback(t *testing.T) {
	cfg, err := parse([]byte(servers(`"with":{"type":"sse","url":"http://h/sse","headers":{"x-api-key":"k"},"legacyFallback":true},
"without":{"type":"sse","url":"http://h/sse"}`)), "", testVars)
	require.NoError(t, err)
	tr, err := cfg.Servers["with"].Transport()
	require.NoError(t, err)
	assert.Equal(t, transport.SSE{URL: "http://h/sse", Header: http.Header{"X-Api-Key": {"k"}}, Label: "with"}, tr)

	tr, err = cfg.Servers["without"].Transport()
	assert.Nil(t, tr)
	require.ErrorIs(t, err, transport.ErrNotSupported)
	assert.EqualError(t, err, `mcpconfig: server "without": type "sse" (the HTTP+SSE transport of MCP 2024-11-05) needs "legacyFallback": true in its entry (Codex: legacy_fallback = true), or plugin.WithLegacyFallback in toolbox.WithPluginOptions`)
}
