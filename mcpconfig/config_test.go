package mcpconfig

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/transport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vars is a variable lookup over a fixed set, so that tests never touch the
// process environment.
func vars(kv map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := kv[name]
		return v, ok
	}
}

// testVars holds what every table below expands from; TOKEN is the secret
// no error may show.
var testVars = vars(map[string]string{
	"GITHUB_TOKEN": "ghp_secret",
	"HOME_DIR":     "/home/u",
	"TOKEN":        "s3cret-value",
	"EMPTY":        "",
	"NL":           "\n",
})

// servers wraps entries in {"mcpServers":{...}}: the first entry's key is at
// column 16, its '{' at 20 and its first field at 21.
func servers(entries string) string { return `{"mcpServers":{` + entries + `}}` }

func ptr(s string) *string { return &s }

func TestParseFormats(t *testing.T) {
	cases := []struct {
		file string
		want map[string]*Server
	}{
		{"claude.json", map[string]*Server{
			"github": {Name: "github", Type: TypeStdio, Command: "npx",
				Args: []string{"-y", "@modelcontextprotocol/server-github"},
				Env:  map[string]string{"GITHUB_TOKEN": "ghp_secret"}, Timeout: 30 * time.Second, Line: 3, Column: 5},
			"search": {Name: "search", Type: TypeHTTP, URL: "https://example.com/mcp",
				Headers:      map[string]string{"Authorization": "Bearer none"},
				IncludeTools: []string{"search_*"}, Prefix: ptr("web_"), Line: 9, Column: 5},
			"old": {Name: "old", Type: TypeStdio, Command: "x", Disabled: true, Line: 16, Column: 5},
		}},
		{"vscode.json", map[string]*Server{
			// "envFile" is VS Code's: its ${workspaceFolder} is the workspace's.
			"fs": {Name: "fs", Type: TypeStdio, Command: "/home/u/bin/fs", Args: []string{"--root", "."},
				Cwd: "/home/u", EnvFile: "/w/.env", Line: 4, Column: 5},
			"remote": {Name: "remote", Type: TypeHTTP, URL: "https://example.com/mcp",
				ExcludeTools: []string{"delete_*", "drop"}, Prefix: ptr(""), Line: 11, Column: 5},
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file))
			require.NoError(t, err)
			// No TOKEN: ${TOKEN:-none} takes its default.
			lookup := vars(map[string]string{"GITHUB_TOKEN": "ghp_secret", "HOME_DIR": "/home/u"})
			cfg, err := parseWith(data, "", &options{lookup: lookup, workspace: "/w", strict: true})
			require.NoError(t, err)
			assert.Empty(t, cfg.Path)
			assert.Equal(t, c.want, cfg.Servers)
		})
	}
}

func TestConfigTypeInference(t *testing.T) {
	cases := []struct {
		name, entry, want string
	}{
		{"stdio", `"type":"stdio","command":"x"`, TypeStdio},
		{"http", `"type":"http","url":"http://h"`, TypeHTTP},
		{"streamable-http", `"type":"streamable-http","url":"http://h"`, TypeHTTP},
		{"Cline's streamableHttp", `"type":"streamableHttp","url":"http://h"`, TypeHTTP},
		{"case-insensitive", `"type":"HTTP","url":"http://h"`, TypeHTTP},
		{"sse", `"type":"sse","url":"http://h/sse"`, TypeSSE},
		{"ws", `"type":"ws","url":"ws://h"`, TypeWS},
		{"websocket", `"type":"websocket","url":"ws://h"`, TypeWS},
		{"url without type", `"url":"https://h/mcp"`, TypeHTTP},
		{"Gemini's httpUrl without type", `"httpUrl":"https://h/mcp"`, TypeHTTP},
		{"command without type", `"command":"x"`, TypeStdio},
		{"type wins over inference", `"type":"stdio","command":"x","url":"http://h"`, TypeStdio},
		{"null type is absent", `"type":null,"command":"x"`, TypeStdio},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse([]byte(servers(`"a":{`+c.entry+`}`)), "", testVars)
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.Servers["a"].Type)
		})
	}
	t.Run("httpUrl fills URL", func(t *testing.T) {
		cfg, err := parse([]byte(servers(`"a":{"httpUrl":"https://h/mcp"}`)), "", testVars)
		require.NoError(t, err)
		assert.Equal(t, "https://h/mcp", cfg.Servers["a"].URL)
	})
}

func TestConfigExpandsEveryField(t *testing.T) {
	stdio := servers(`"a":{"command":"${HOME_DIR}/bin/x","args":["--t=${GITHUB_TOKEN}","$HOME_DIR","${EMPTY:-d}"],` +
		`"env":{"T":"${env:GITHUB_TOKEN}","U":"${UNSET:-u}"},"cwd":"${HOME_DIR}/w",` +
		`"includeTools":["${HOME_DIR}"],"prefix":"${HOME_DIR}"}`)
	cfg, err := parse([]byte(stdio), "", testVars)
	require.NoError(t, err)
	s := cfg.Servers["a"]
	assert.Equal(t, "/home/u/bin/x", s.Command)
	assert.Equal(t, []string{"--t=ghp_secret", "$HOME_DIR", "d"}, s.Args)
	assert.Equal(t, map[string]string{"T": "ghp_secret", "U": "u"}, s.Env)
	assert.Equal(t, "/home/u/w", s.Cwd)
	// Filters and prefix are names, not values: they are not expanded.
	assert.Equal(t, []string{"${HOME_DIR}"}, s.IncludeTools)
	assert.Equal(t, ptr("${HOME_DIR}"), s.Prefix)

	remote := servers(`"a":{"url":"https://${UNSET:-example.com}/mcp?u=${HOME_DIR}","headers":{"Authorization":"Bearer ${TOKEN}","X-Empty":"${EMPTY}"}}`)
	cfg, err = parse([]byte(remote), "", testVars)
	require.NoError(t, err)
	s = cfg.Servers["a"]
	assert.Equal(t, "https://example.com/mcp?u=/home/u", s.URL)
	assert.Equal(t, map[string]string{"Authorization": "Bearer s3cret-value", "X-Empty": ""}, s.Headers)
}

func TestConfigAcceptsNullsAndEmpties(t *testing.T) {
	cfg, err := parse([]byte(servers(`"a":{"command":"x","args":[],"env":{},"headers":null,"timeout":1.5,"disabled":false,"prefix":null}`)), "", testVars)
	require.NoError(t, err)
	assert.Equal(t, &Server{Name: "a", Type: TypeStdio, Command: "x", Timeout: 1500 * time.Microsecond, Line: 1, Column: 16},
		cfg.Servers["a"])
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"syntax error mid-file", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\" \"args\": []}\n  }\n}\n",
			`3:26: invalid character '"' after object key:value pair`},
		{"syntax error after a comment", "{\n  // é\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}\n",
			`4:26: invalid character ',' at start of value`},
		{"truncated", `{"mcpServers":{"a":{"command":"x"}}` + "\n", "1:36: unexpected end of JSON input"},
		{"empty file", "", "1:1: unexpected end of JSON input"},
		{"top level not an object", ` []`, "1:2: the top level must be a JSON object"},
		{"no servers", `{"inputs":[]}`, `1:1: no "mcpServers" or "servers" object`},
		{"both formats", `{"mcpServers":{},"servers":{}}`, `1:18: both "mcpServers" and "servers"; keep one`},
		{"mcpServers twice", `{"mcpServers":{},"mcpServers":{}}`, `1:18: duplicate "mcpServers"`},
		{"servers not an object", `{"servers":[]}`, `1:12: "servers" must be an object`},
		{"server not an object", servers(`"a":1`), `1:20: server "a": must be an object`},
		{"columns count characters", servers(`"é":1`), `1:20: server "é": must be an object`},
		{"BOM is not a column", "\xef\xbb\xbf" + servers(`"a":1`), `1:20: server "a": must be an object`},
		{"empty server name", servers(`"":{"command":"x"}`), `1:16: empty server name`},
		{"duplicate server", servers(`"a":{"command":"x"},"a":{"command":"y"}`), `1:36: server "a": duplicate server name`},
		{"duplicate field", servers(`"a":{"command":"x","command":"y"}`), `1:35: server "a": command: duplicate field`},
		{"args not an array", servers(`"a":{"command":"x","args":"y"}`), `1:42: server "a": args: must be an array of strings`},
		{"args element not a string", servers(`"a":{"command":"x","args":["y",2]}`), `1:47: server "a": args[1]: must be a string`},
		{"includeTools not strings", servers(`"a":{"command":"x","includeTools":[true]}`), `1:51: server "a": includeTools[0]: must be a string`},
		{"command not a string", servers(`"a":{"command":["x"]}`), `1:31: server "a": command: must be a string`},
		{"env not an object", servers(`"a":{"command":"x","env":["K=V"]}`), `1:41: server "a": env: must be an object of strings`},
		{"env value not a string", servers(`"a":{"command":"x","env":{"K":1}}`), `1:46: server "a": env.K: must be a string`},
		{"env name with =", servers(`"a":{"command":"x","env":{"K=":"v"}}`), `1:42: server "a": env.K=: invalid variable name`},
		{"env name twice", servers(`"a":{"command":"x","env":{"K":"v","K":"w"}}`), `1:50: server "a": env.K: duplicate name`},
		{"headers value not a string", servers(`"a":{"url":"http://h","headers":{"X":null}}`), `1:53: server "a": headers.X: must be a string`},
		{"bad header name", servers(`"a":{"url":"http://h","headers":{"X Y":"v"}}`), `1:49: server "a": headers.X Y: invalid header name`},
		{"header line break", servers(`"a":{"url":"http://h","headers":{"X":"a${NL}b"}}`), `1:53: server "a": headers.X: must not contain a line break`},
		{"disabled not a bool", servers(`"a":{"command":"x","disabled":"yes"}`), `1:46: server "a": disabled: must be true or false`},
		{"unknown type", servers(`"a":{"type":"grpc","url":"http://x"}`),
			`1:28: server "a": type: unknown transport "grpc" (want stdio, http, streamable-http, sse or ws)`},
		{"missing command", servers(`"a":{"type":"stdio"}`), `1:16: server "a": command: required for type "stdio"`},
		{"missing url", servers(`"a":{"type":"http","command":"x"}`), `1:16: server "a": url: required for type "http"`},
		{"sse needs a url", servers(`"a":{"type":"sse"}`), `1:16: server "a": url: required for type "sse"`},
		{"neither command nor url", servers(`"a":{"args":[]}`), `1:16: server "a": needs "command" (stdio) or "url" (http)`},
		{"both command and url", servers(`"a":{"command":"x","url":"http://h"}`), `1:16: server "a": both "command" and "url"; add "type" to choose`},
		{"url and httpUrl", servers(`"a":{"url":"http://h","httpUrl":"http://h"}`), `1:48: server "a": httpUrl: conflicts with "url"`},
		{"empty command", servers(`"a":{"command":""}`), `1:31: server "a": command: must not be empty`},
		{"command empty after expansion", servers(`"a":{"command":"${EMPTY}"}`), `1:31: server "a": command: must not be empty`},
		{"bad url scheme", servers(`"a":{"url":"ftp://h/x"}`), `1:27: server "a": url: must be an absolute http or https URL`},
		{"relative url", servers(`"a":{"url":"/mcp"}`), `1:27: server "a": url: must be an absolute http or https URL`},
		{"empty url", servers(`"a":{"type":"http","url":""}`), `1:41: server "a": url: must be an absolute http or https URL`},
		{"negative timeout", servers(`"a":{"command":"x","timeout":-1}`), `1:45: server "a": timeout: must not be negative`},
		{"timeout as a string", servers(`"a":{"command":"x","timeout":"5"}`), `1:45: server "a": timeout: must be a number of milliseconds`},
		{"huge timeout", servers(`"a":{"command":"x","timeout":1e300}`), `1:45: server "a": timeout: is too large`},
		{"unterminated ${", servers(`"a":{"command":"x","args":["${HOME_DIR"]}`), `1:43: server "a": args[0]: unterminated "${"`},
		{"invalid name", servers(`"a":{"command":"${1X}"}`),
			`1:31: server "a": command: invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}`},
		{"empty reference", servers(`"a":{"command":"${}"}`),
			`1:31: server "a": command: invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}`},
		{"input prompt without an answer", servers(`"a":{"command":"${input:key}"}`),
			`1:31: server "a": command: input "key" has no answer; answer it with mcpconfig.WithInputs`},
		{"unset in command", servers(`"a":{"command":"${NOPE}"}`), `1:31: server "a": command: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in args", servers(`"a":{"command":"x","args":["y","${NOPE}"]}`), `1:47: server "a": args[1]: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in env", servers(`"a":{"command":"x","env":{"GITHUB_TOKEN":"${NOPE}"}}`),
			`1:57: server "a": env.GITHUB_TOKEN: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in cwd", servers(`"a":{"command":"x","cwd":"${NOPE}/w"}`), `1:41: server "a": cwd: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in url", servers(`"a":{"url":"${NOPE}/mcp"}`), `1:27: server "a": url: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in httpUrl", servers(`"a":{"httpUrl":"${NOPE}"}`), `1:31: server "a": httpUrl: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"unset in headers", servers(`"a":{"url":"http://h","headers":{"Authorization":"Bearer ${NOPE}"}}`),
			`1:65: server "a": headers.Authorization: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{"disabled servers are still type-checked", servers(`"a":{"command":"x","disabled":true,"args":"y"}`),
			`1:58: server "a": args: must be an array of strings`},
		{"every broken server is reported", servers(`"a":{"command":"${NOPE}"},"b":{"url":"ftp://x"}`),
			"1:31: server \"a\": command: variable \"NOPE\" is not set; set it in the environment or supply it with mcpconfig.WithVariables\n" +
				`1:53: server "b": url: must be an absolute http or https URL`},
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

func TestErrorFields(t *testing.T) {
	_, err := parse([]byte(servers(`"a":{"command":"x","env":{"GITHUB_TOKEN":"${NOPE}"}}`)), "/etc/mcp.json", testVars)
	var cerr *Error
	require.ErrorAs(t, err, &cerr)
	assert.Equal(t, &Error{Path: "/etc/mcp.json", Line: 1, Column: 57, Server: "a", Field: "env.GITHUB_TOKEN",
		Msg: `variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`}, cerr)
	assert.Equal(t, `/etc/mcp.json:1:57: server "a": env.GITHUB_TOKEN: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`, err.Error())
}

// Values are often tokens: no error may quote one, whichever field or rule
// fails.
func TestConfigErrorsNeverShowValues(t *testing.T) {
	const secret = "s3cret-value"
	cases := map[string]string{
		"unset beside a secret":    `"a":{"command":"x","args":["${TOKEN}${NOPE}"]}`,
		"bad url holding a secret": `"a":{"url":"ftp://u:${TOKEN}@h/"}`,
		"bad url literal secret":   `"a":{"url":"s3cret-value"}`,
		"header line break":        `"a":{"url":"http://h","headers":{"Authorization":"${TOKEN}${NL}"}}`,
		"wrong type beside secret": `"a":{"command":"x","args":["s3cret-value",1]}`,
		"env value not a string":   `"a":{"command":"x","env":{"K":["s3cret-value"]}}`,
		"invalid reference":        `"a":{"command":"${s3cret-value}"}`,
		"unterminated":             `"a":{"command":"${TOKEN}${s3cret-value"}`,
		"empty command":            `"a":{"command":"${EMPTY}","args":["s3cret-value"]}`,
	}
	for name, entry := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parse([]byte(servers(entry)), "", testVars)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), secret)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

func TestConfigDisabledServerExpandsLeniently(t *testing.T) {
	// An expanded URL is still checked.
	_, err := parse([]byte(servers(`"b":{"url":"${HOME_DIR}","disabled":true}`)), "", testVars)
	require.EqualError(t, err, `1:27: server "b": url: must be an absolute http or https URL`)

	data := servers(`"a":{"type":"stdio","command":"x","disabled":true,"env":{"T":"${NOPE}"},"args":["${NOPE}-a","${HOME_DIR}"],"url":"${NOPE}"}`)
	cfg, err := parse([]byte(data), "", testVars)
	require.NoError(t, err)
	s := cfg.Servers["a"]
	assert.True(t, s.Disabled)
	assert.Equal(t, map[string]string{"T": "${NOPE}"}, s.Env, "a failed field keeps its text")
	assert.Equal(t, []string{"${NOPE}-a", "/home/u"}, s.Args)
	assert.Equal(t, []string{"a"}, cfg.Names())
	assert.Empty(t, cfg.Enabled())
}

func TestConfigNamesAndEnabled(t *testing.T) {
	cfg, err := parse([]byte(servers(`"zeta":{"command":"z"},"alpha":{"command":"a","disabled":true},"mid":{"url":"http://h"}`)), "", testVars)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "mid", "zeta"}, cfg.Names())
	assert.Equal(t, []string{"mid", "zeta"}, cfg.Enabled())
	assert.Equal(t, 1, cfg.Servers["mid"].Line)
	assert.Equal(t, 79, cfg.Servers["mid"].Column)
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(path, []byte("{\"mcpServers\": {\n  \"a\": {\"command\": \"echo\", \"args\": [\"hi\"]}\n}}\n"), 0o600))
	cfg, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, path, cfg.Path)
	assert.Equal(t, &Server{Name: "a", Type: TypeStdio, Command: "echo", Args: []string{"hi"}, Line: 2, Column: 3},
		cfg.Servers["a"])

	t.Run("error starts with the path", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		require.NoError(t, os.WriteFile(bad, []byte("{\"mcpServers\": {\n  \"a\": {\"command\": 1}\n}}\n"), 0o600))
		cfg, err := Load(bad)
		require.NoError(t, err, "one bad server does not sink the file")
		require.Len(t, cfg.Problems, 1)
		require.EqualError(t, cfg.Problems[0], bad+`:2:20: server "a": command: must be a string`)
		assert.Empty(t, cfg.Servers)
		_, err = Load(bad, WithStrict())
		require.EqualError(t, err, bad+`:2:20: server "a": command: must be a string`)
	})
	t.Run("missing file", func(t *testing.T) {
		_, err := Load(filepath.Join(dir, "none.json"))
		require.ErrorIs(t, err, fs.ErrNotExist)
		assert.Contains(t, err.Error(), filepath.Join(dir, "none.json"))
	})
}

func TestServerTransport(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		s := &Server{Name: "a", Type: TypeStdio, Command: "npx", Args: []string{"-y", "pkg"},
			Env: map[string]string{"B": "2", "A": "1", "A0": "3"}, Cwd: "/w"}
		tr, err := s.Transport()
		require.NoError(t, err)
		assert.Equal(t, transport.Stdio{Command: "npx", Args: []string{"-y", "pkg"}, Env: []string{"A=1", "A0=3", "B=2"}, Dir: "/w", Label: "a"}, tr)
	})
	t.Run("stdio without env", func(t *testing.T) {
		tr, err := (&Server{Name: "a", Type: TypeStdio, Command: "x"}).Transport()
		require.NoError(t, err)
		assert.Equal(t, transport.Stdio{Command: "x", Label: "a"}, tr)
	})
	t.Run("http", func(t *testing.T) {
		s := &Server{Name: "a", Type: TypeHTTP, URL: "https://h/mcp",
			Headers: map[string]string{"x-api-key": "k", "Authorization": "Bearer t"}}
		tr, err := s.Transport()
		require.NoError(t, err)
		assert.Equal(t, transport.StreamableHTTP{URL: "https://h/mcp",
			Header: http.Header{"X-Api-Key": {"k"}, "Authorization": {"Bearer t"}}, Label: "a"}, tr)
	})
	t.Run("http without headers", func(t *testing.T) {
		tr, err := (&Server{Name: "a", Type: TypeHTTP, URL: "https://h/mcp"}).Transport()
		require.NoError(t, err)
		assert.Equal(t, transport.StreamableHTTP{URL: "https://h/mcp", Label: "a"}, tr)
	})
	t.Run(TypeWS, func(t *testing.T) {
		tr, err := (&Server{Name: "legacy", Type: TypeWS, URL: "http://h/ws", LegacyFallback: true}).Transport()
		assert.Nil(t, tr)
		require.ErrorIs(t, err, transport.ErrNotSupported)
		assert.EqualError(t, err, `mcpconfig: server "legacy": type "ws" is not supported (MCP 2026-07-28 has Streamable HTTP only)`)
	})
	t.Run("unknown type", func(t *testing.T) {
		_, err := (&Server{Name: "a", Type: "grpc"}).Transport()
		require.EqualError(t, err, `mcpconfig: server "a": unknown type "grpc"`)
		assert.False(t, errors.Is(err, transport.ErrNotSupported))
	})
	t.Run("from a file", func(t *testing.T) {
		cfg, err := parse([]byte(servers(`"a":{"url":"http://h/mcp","headers":{"authorization":"Bearer ${TOKEN}"}}`)), "", testVars)
		require.NoError(t, err)
		tr, err := cfg.Servers["a"].Transport()
		require.NoError(t, err)
		assert.Equal(t, "Bearer s3cret-value", tr.(transport.StreamableHTTP).Header.Get("Authorization"))
	})
}

func TestExpand(t *testing.T) {
	lookup := vars(map[string]string{"A": "a", "B": "b", "EMPTY": "", "SECRET": "hunter2"})
	cases := []struct {
		in, want, err string
	}{
		{in: "plain", want: "plain"},
		{in: "", want: ""},
		{in: "${A}", want: "a"},
		{in: "pre-${A}-post", want: "pre-a-post"},
		{in: "${A}${B}/${UNSET:-x}", want: "ab/x"},
		{in: "${A:-d}", want: "a"},
		{in: "${UNSET:-d}", want: "d"},
		{in: "${EMPTY:-d}", want: "d"},
		{in: "${EMPTY}", want: ""},
		{in: "${UNSET:-}", want: ""},
		{in: "${UNSET:-a:b c}", want: "a:b c"},
		{in: "${env:A}", want: "a"},
		{in: "${env:UNSET:-d}", want: "d"},
		{in: "$A $ $$ ${A}$", want: "$A $ $$ a$"},
		{in: "$${A}", want: "$a"},
		{in: "}${A}}", want: "}a}"},
		{in: "${UNSET}", err: `variable "UNSET" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{in: "${env:UNSET}", err: `variable "UNSET" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{in: "${SECRET}${UNSET}", err: `variable "UNSET" is not set; set it in the environment or supply it with mcpconfig.WithVariables`},
		{in: "${A", err: `unterminated "${"`},
		{in: "${A}${", err: `unterminated "${"`},
		{in: "${}", err: "invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${1X}", err: "invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${A B}", err: "invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${A-d}", err: "invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${env:}", err: "invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${input:key}", err: `input "key" has no answer; answer it with mcpconfig.WithInputs`},
		{in: "${config:a.b}", err: "${config:...} is not supported here; use ${NAME}, ${NAME:-default} or ${env:NAME}"},
		{in: "${A:-${B}}", err: `the default of "A" cannot contain another reference`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			r := &resolver{host: HostGeneric, lookup: lookup, answered: map[string]answer{}}
			got, err := r.expand(c.in)
			if c.err != "" {
				require.EqualError(t, err, c.err)
				assert.NotContains(t, err.Error(), "hunter2")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// The lookup reaches the process environment only through Load and
// Parse; this checks that they use it.
func TestParseUsesProcessEnvironment(t *testing.T) {
	t.Setenv("TOOLBOX_TEST_CMD", "from-env")
	cfg, err := Parse([]byte(servers(`"a":{"command":"${TOOLBOX_TEST_CMD}"}`)))
	require.NoError(t, err)
	assert.Equal(t, "from-env", cfg.Servers["a"].Command)
	cfg, err = Parse([]byte(servers(`"a":1`)))
	require.NoError(t, err)
	require.Len(t, cfg.Problems, 1)
	require.EqualError(t, cfg.Problems[0], `1:20: server "a": must be an object`)
	assert.False(t, strings.HasPrefix(cfg.Problems[0].Error(), ":"))
}
