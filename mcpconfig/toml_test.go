package mcpconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuca-go/mcpconnector/transport"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codexVars is the environment the Codex tables read from.
var codexVars = vars(map[string]string{
	"LOCAL_TOKEN":       "local-value",
	"REMOTE_TOKEN":      "remote-value",
	"FIGMA_OAUTH_TOKEN": "figma-token",
	"FIGMA_API_KEY":     "figma-key",
	"EMPTY":             "",
	"NL":                "a\nb",
	"HOME":              "/home/u",
})

func boolPtr(b bool) *bool { return &b }

// Every key of Codex's [mcp_servers.<name>] tables, mapped.
func TestParseCodexTOML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "codex.toml"))
	require.NoError(t, err)
	cfg, err := parse(data, "testdata/codex.toml", codexVars)
	require.NoError(t, err)
	assert.Equal(t, "testdata/codex.toml", cfg.Path)
	assert.Equal(t, []string{"chrome_devtools", "context7", "figma"}, cfg.Names())
	assert.Equal(t, []string{"context7", "figma"}, cfg.Enabled())

	assert.Equal(t, &Server{
		Name: "context7", Type: TypeStdio, Command: "npx", Args: []string{"-y", "@upstash/context7-mcp"},
		// env as written (no expansion), env_vars forwarded when set.
		Env: map[string]string{"MY_ENV_VAR": "MY_ENV_VALUE", "LITERAL": "${HOME}", "LOCAL_TOKEN": "local-value", "REMOTE_TOKEN": "remote-value"},
		Cwd: "/srv/context7", Required: true, ConnectTimeout: 20 * time.Second, Timeout: 60500 * time.Millisecond,
		IncludeTools: []string{"resolve-library-id", "get-library-docs"}, ParallelToolCalls: boolPtr(true),
		Line: 6, Column: 14,
	}, cfg.Servers["context7"])

	figma := cfg.Servers["figma"]
	assert.Equal(t, &Server{
		Name: "figma", Type: TypeHTTP, URL: "https://mcp.figma.com/mcp",
		Headers:      map[string]string{"X-Figma-Region": "us-east-1", "X-Api-Key": "figma-key", "Authorization": "Bearer figma-token"},
		ExcludeTools: []string{"delete_*"}, Approval: ApprovalWrites, ParallelToolCalls: boolPtr(false),
		Tools: map[string]Tool{"get_file": {Approval: ApprovalAuto}, "post_comment": {Approval: ApprovalApprove}},
		Line:  22, Column: 14,
	}, figma)

	assert.Equal(t, &Server{
		Name: "chrome_devtools", Type: TypeStdio, Command: "npx", Args: []string{"chrome-devtools-mcp@latest"},
		Disabled: true, ConnectTimeout: 15 * time.Second,
		Tools: map[string]Tool{"take_screenshot": {Approval: ApprovalPrompt}, "list_pages": {}},
		Line:  37, Column: 14,
	}, cfg.Servers["chrome_devtools"])

	// The transport carries what the file said.
	tr, err := figma.Transport()
	require.NoError(t, err)
	require.IsType(t, transport.StreamableHTTP{}, tr)
	assert.Equal(t, "https://mcp.figma.com/mcp", tr.(transport.StreamableHTTP).URL)
	assert.Equal(t, "Bearer figma-token", tr.(transport.StreamableHTTP).Header.Get("Authorization"))
	assert.Equal(t, "figma-key", tr.(transport.StreamableHTTP).Header.Get("X-Api-Key"))
}

// startup_timeout_sec wins over Codex's older startup_timeout_ms; fractions
// of seconds are kept.
func TestConfigCodexTOMLTimeouts(t *testing.T) {
	cfg, err := parse([]byte(`[mcp_servers.a]
command = "x"
startup_timeout_sec = 2.5
startup_timeout_ms = 9000
tool_timeout_sec = 0.25
`), "c.toml", codexVars)
	require.NoError(t, err)
	assert.Equal(t, 2500*time.Millisecond, cfg.Servers["a"].ConnectTimeout)
	assert.Equal(t, 250*time.Millisecond, cfg.Servers["a"].Timeout)
}

func TestParseChoosesTheForm(t *testing.T) {
	toml := "[mcp_servers.a]\ncommand = \"x\"\n"
	for _, path := range []string{"config.toml", "CONFIG.TOML", "mcp.conf", ""} {
		cfg, err := parse([]byte(toml), path, codexVars)
		require.NoError(t, err, path)
		assert.Equal(t, "x", cfg.Servers["a"].Command, path)
	}
	// .json is JSON whatever it holds; so is content that looks like JSON.
	_, err := parse([]byte(toml), "mcp.json", codexVars)
	assert.ErrorContains(t, err, "mcp.json:1:2: invalid character 'm' looking for beginning of value")
	for _, data := range []string{"", " []", "{\"mcpServers\": {", `{"mcpServers":{"a":{"command":"x"}}}`} {
		_, err := parse([]byte(data), "config.conf", codexVars)
		if err != nil {
			assert.NotContains(t, err.Error(), "toml", "%q", data)
			assert.NotContains(t, err.Error(), "mcp_servers", "%q", data)
		}
	}
	// A .toml file that is JSON gets TOML's errors, pointing at the file.
	_, err = parse([]byte(`{"mcpServers":{}}`), "config.toml", codexVars)
	var cerr *Error
	require.ErrorAs(t, err, &cerr)
	assert.Equal(t, "config.toml", cerr.Path)
	assert.Equal(t, 1, cerr.Line)
}

func TestLoadCodexTOML(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	require.NoError(t, os.WriteFile(path, []byte("[mcp_servers.a]\ncommand = \"x\"\nargs = [\"y\", 2]\n"), 0o600))
	cfg, err := Load(path)
	require.NoError(t, err)
	require.Len(t, cfg.Problems, 1)
	assert.EqualError(t, cfg.Problems[0], path+`:3:14: server "a": args[1]: must be a string`)
	_, err = Load(path, WithStrict())
	assert.EqualError(t, err, path+`:3:14: server "a": args[1]: must be a string`)
}

func TestConfigCodexTOMLErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"syntax", "[mcp_servers.a]\ncommand = \"x\n", "2:13: basic strings cannot have new lines"},
		{"duplicate key", "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", "3:1: "},
		{"servers not a table", "mcp_servers = 1\n", `1:15: "mcp_servers" must be a table`},
		{"server not a table", "mcp_servers.a = 1\n", `1:17: server "a": must be a table`},
		{"no transport", "[mcp_servers.a]\nenabled = true\n", `1:14: server "a": needs "command" (stdio) or "url" (http)`},
		{"both transports", "[mcp_servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n", `3:1: server "a": both "command" and "url"; keep one`},
		{"command not a string", "[mcp_servers.a]\ncommand = [\"x\"]\n", `2:11: server "a": command: must be a string`},
		{"empty command", "[mcp_servers.a]\ncommand = \" \"\n", `2:11: server "a": command: must not be empty`},
		{"args not an array", "[mcp_servers.a]\ncommand = \"x\"\nargs = \"y\"\n", `3:8: server "a": args: must be an array of strings`},
		{"args element in an inline table", "mcp_servers.a = { command = \"x\", args = [\"y\",\n  true] }\n",
			`2:3: server "a": args[1]: must be a string`},
		{"env not a table", "[mcp_servers.a]\ncommand = \"x\"\nenv = [\"K=V\"]\n", `3:7: server "a": env: must be a table of strings`},
		{"env value not a string", "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a.env]\nK = 1\n", `4:5: server "a": env.K: must be a string`},
		{"env name with =", "[mcp_servers.a]\ncommand = \"x\"\nenv = { \"K=\" = \"v\" }\n", `3:9: server "a": env.K=: invalid variable name`},
		{"env_vars not an array", "[mcp_servers.a]\ncommand = \"x\"\nenv_vars = \"A\"\n", `3:12: server "a": env_vars: must be an array of variable names`},
		{"env_vars element", "[mcp_servers.a]\ncommand = \"x\"\nenv_vars = [\"A\", 3]\n", `3:18: server "a": env_vars[1]: must be a variable name`},
		{"env_vars source", "[mcp_servers.a]\ncommand = \"x\"\nenv_vars = [{ name = \"A\", source = \"cloud\" }]\n",
			`3:36: server "a": env_vars[0].source: must be "local" or "remote"`},
		{"cwd not a string", "[mcp_servers.a]\ncommand = \"x\"\ncwd = 1\n", `3:7: server "a": cwd: must be a string`},
		{"bad url", "[mcp_servers.a]\nurl = \"ftp://h\"\n", `2:7: server "a": url: must be an absolute http or https URL`},
		{"bearer not set", "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token_env_var = \"NOPE\"\n",
			`3:24: server "a": bearer_token_env_var: variable "NOPE" is not set`},
		{"bearer empty", "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token_env_var = \"EMPTY\"\n",
			`3:24: server "a": bearer_token_env_var: variable "EMPTY" is empty`},
		{"bearer line break", "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token_env_var = \"NL\"\n",
			`3:24: server "a": bearer_token_env_var: variable "NL" holds a line break`},
		{"bearer not a name", "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token_env_var = 1\n",
			`3:24: server "a": bearer_token_env_var: must be a variable name`},
		{"inline bearer token", "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token = \"t\"\n",
			`3:1: server "a": bearer_token: is not supported: put the token in an environment variable and name it in bearer_token_env_var`},
		{"bad header name", "[mcp_servers.a]\nurl = \"http://h\"\nhttp_headers = { \"X Y\" = \"v\" }\n",
			`3:18: server "a": http_headers.X Y: invalid header name`},
		{"header line break", "[mcp_servers.a]\nurl = \"http://h\"\nhttp_headers = { X = \"a\\nb\" }\n",
			`3:22: server "a": http_headers.X: must not contain a line break`},
		{"env header not a name", "[mcp_servers.a]\nurl = \"http://h\"\nenv_http_headers = { X = \"\" }\n",
			`3:26: server "a": env_http_headers.X: must be a variable name`},
		{"env header line break", "[mcp_servers.a]\nurl = \"http://h\"\nenv_http_headers = { X = \"NL\" }\n",
			`3:26: server "a": env_http_headers.X: variable "NL" holds a line break`},
		{"http field on stdio", "[mcp_servers.a]\ncommand = \"x\"\nhttp_headers = {}\n", `3:1: server "a": http_headers: is not supported for a stdio server`},
		{"stdio field on http", "[mcp_servers.a]\nurl = \"http://h\"\nargs = []\n", `3:1: server "a": args: is not supported for a http server`},
		{"enabled not a bool", "[mcp_servers.a]\ncommand = \"x\"\nenabled = \"no\"\n", `3:11: server "a": enabled: must be true or false`},
		{"required not a bool", "[mcp_servers.a]\ncommand = \"x\"\nrequired = 1\n", `3:12: server "a": required: must be true or false`},
		{"parallel not a bool", "[mcp_servers.a]\ncommand = \"x\"\nsupports_parallel_tool_calls = \"yes\"\n",
			`3:32: server "a": supports_parallel_tool_calls: must be true or false`},
		{"startup timeout negative", "[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout_sec = -1\n",
			`3:23: server "a": startup_timeout_sec: must not be negative`},
		{"startup timeout a string", "[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout_sec = \"10s\"\n",
			`3:23: server "a": startup_timeout_sec: must be a number of seconds`},
		{"startup timeout ms a float", "[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout_ms = 1.5\n",
			`3:22: server "a": startup_timeout_ms: must be a whole number of milliseconds`},
		{"tool timeout too large", "[mcp_servers.a]\ncommand = \"x\"\ntool_timeout_sec = 1e300\n",
			`3:20: server "a": tool_timeout_sec: is too large`},
		{"tool timeout nan", "[mcp_servers.a]\ncommand = \"x\"\ntool_timeout_sec = nan\n",
			`3:20: server "a": tool_timeout_sec: must not be negative`},
		{"enabled_tools element", "[mcp_servers.a]\ncommand = \"x\"\nenabled_tools = [\"a\",\n\"b\", 1]\n",
			`4:6: server "a": enabled_tools[2]: must be a string`},
		{"disabled_tools not an array", "[mcp_servers.a]\ncommand = \"x\"\ndisabled_tools = \"a\"\n",
			`3:18: server "a": disabled_tools: must be an array of strings`},
		{"unknown approval mode", "[mcp_servers.a]\ncommand = \"x\"\ndefault_tools_approval_mode = \"never\"\n",
			`3:31: server "a": default_tools_approval_mode: must be "auto", "prompt", "writes" or "approve"`},
		{"tool approval mode", "[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.a.tools.search]\napproval_mode = \"ask\"\n",
			`4:17: server "a": tools.search.approval_mode: must be "auto", "prompt", "writes" or "approve"`},
		{"tool approval not a string", "[mcp_servers.a]\ncommand = \"x\"\ntools = { search = { approval_mode = true } }\n",
			`3:38: server "a": tools.search.approval_mode: must be "auto", "prompt", "writes" or "approve"`},
		{"tool not a table", "[mcp_servers.a]\ncommand = \"x\"\ntools.search = \"auto\"\n", `3:16: server "a": tools.search: must be a table`},
		{"tools not a table", "[mcp_servers.a]\ncommand = \"x\"\ntools = []\n", `3:9: server "a": tools: must be a table of tools by name`},
		{"columns count characters", "[mcp_servers.\"é\"]\ncommand = 1\n", `2:11: server "é": command: must be a string`},
		{"server name position counts characters", "[mcp_servers.\"é\"]\n", `1:14: server "é": needs "command" (stdio) or "url" (http)`},
		{"BOM is not a column", "\xef\xbb\xbf[mcp_servers.a]\ncommand = 1\n", `2:11: server "a": command: must be a string`},
		{"every broken server is reported", "[mcp_servers.a]\ncommand = 1\n[mcp_servers.b]\nurl = \"x\"\n",
			"2:11: server \"a\": command: must be a string\nconfig.toml:" + `4:7: server "b": url: must be an absolute http or https URL`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parse([]byte(c.data), "config.toml", codexVars)
			require.Error(t, err)
			assert.Nil(t, cfg)
			assert.Contains(t, err.Error(), "config.toml:"+c.want)
			if c.want[len(c.want)-2:] != ": " {
				assert.Equal(t, "config.toml:"+c.want, err.Error())
			}
		})
	}
}

// A disabled server whose variables are not set still loads, as in the
// JSON forms; its types are still checked.
func TestConfigCodexTOMLDisabledServerIsLenient(t *testing.T) {
	cfg, err := parse([]byte("[mcp_servers.a]\nurl = \"http://h\"\nenabled = false\nbearer_token_env_var = \"NOPE\"\n"), "c.toml", codexVars)
	require.NoError(t, err)
	assert.True(t, cfg.Servers["a"].Disabled)
	assert.Empty(t, cfg.Servers["a"].Headers)

	_, err = parse([]byte("[mcp_servers.a]\nurl = \"http://h\"\nenabled = false\nbearer_token_env_var = 1\n"), "c.toml", codexVars)
	assert.ErrorContains(t, err, "bearer_token_env_var: must be a variable name")
}

// bearer_token_env_var wins over an Authorization of http_headers, whatever
// its case; an env header whose variable is unset or empty is left out.
func TestConfigCodexTOMLHeaders(t *testing.T) {
	cfg, err := parse([]byte(`[mcp_servers.a]
url = "https://h/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
http_headers = { authorization = "Basic x", "X-A" = "1" }
env_http_headers = { "X-B" = "EMPTY", "X-C" = "NOPE", "X-A" = "FIGMA_API_KEY" }
`), "c.toml", codexVars)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"Authorization": "Bearer figma-token", "X-A": "figma-key"}, cfg.Servers["a"].Headers)
}

// Values are often tokens: no error may quote one.
func TestConfigCodexTOMLErrorsNeverShowValues(t *testing.T) {
	for name, data := range map[string]string{
		"bad url":          "[mcp_servers.a]\nurl = \"s3cret-value\"\n",
		"header break":     "[mcp_servers.a]\nurl = \"http://h\"\nhttp_headers = { X = \"s3cret-value\\n\" }\n",
		"env not a string": "[mcp_servers.a]\ncommand = \"x\"\nenv = { K = [\"s3cret-value\"] }\n",
		"bearer break":     "[mcp_servers.a]\nurl = \"http://h\"\nbearer_token_env_var = \"SECRET_NL\"\n",
		"args element":     "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"s3cret-value\", 1]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse([]byte(data), "", vars(map[string]string{"SECRET_NL": "s3cret\n"}))
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

// Empty tables give nil maps, as the JSON forms' empty objects do.
func TestConfigCodexTOMLEmptyTables(t *testing.T) {
	cfg, err := parse([]byte("[mcp_servers.a]\ncommand = \"x\"\nenv = {}\nargs = []\n[mcp_servers.b]\nurl = \"http://h\"\nhttp_headers = {}\n"), "c.toml", codexVars)
	require.NoError(t, err)
	assert.Nil(t, cfg.Servers["a"].Env)
	assert.Empty(t, cfg.Servers["a"].Args)
	assert.Nil(t, cfg.Servers["b"].Headers)
}

// Whatever the bytes, parsing returns a Config or an error, never panics;
// an error is a *Error located in the data.
func FuzzParseTOML(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "codex.toml"))
	require.NoError(f, err)
	f.Add(string(seed))
	f.Add("[mcp_servers.a]\ncommand = 1\n")
	f.Add("mcp_servers = { a = { url = \"http://h\", tools = { t = { approval_mode = \"auto\" } } } }\n")
	f.Add("[[mcp_servers.a.env_vars]]\nname = \"X\"\n")
	f.Fuzz(func(t *testing.T, data string) {
		cfg, err := parse([]byte(data), "c.toml", codexVars)
		if err != nil {
			assert.Nil(t, cfg)
			var cerr *Error
			require.ErrorAs(t, err, &cerr)
			assert.GreaterOrEqual(t, cerr.Line, 1)
			assert.GreaterOrEqual(t, cerr.Column, 1)
			return
		}
		require.NotNil(t, cfg)
	})
}
