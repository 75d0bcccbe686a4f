package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/transport"
)

// hostFile writes data at dir/rel and returns its path.
func hostFile(t *testing.T, dir, rel, data string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

func TestHostOf(t *testing.T) {
	for path, want := range map[string]Host{
		"/p/.mcp.json": HostClaudeCode, "/h/.claude.json": HostClaudeCode, "/x/claude_desktop_config.json": HostClaudeDesktop,
		"/p/.cursor/mcp.json": HostCursor, "/p/.vscode/mcp.json": HostVSCode, "/h/Code/User/mcp.json": HostVSCode,
		"/p/.gemini/settings.json": HostGemini, "/h/.codeium/windsurf/mcp_config.json": HostWindsurf,
		"/p/.codex/config.toml": HostCodex, "/p/mcp.json": HostGeneric, "/p/settings.json": HostGeneric,
	} {
		assert.Equal(t, want, HostOf(path), path)
	}
}

// TestVariablesByHost is the table of docs/toolbox.md, "Variables by
// host": what each form of reference becomes in each host, with SET set
// to "v", EMPTY set to "", UNSET not set, and the workspace /w.
func TestVariablesByHost(t *testing.T) {
	lookup := vars(map[string]string{"SET": "v", "EMPTY": ""})
	const keep, problem = "(kept)", "(problem)"
	cases := []struct {
		in   string
		want map[Host]string
	}{
		{"${SET}", map[Host]string{HostGeneric: "v", HostClaudeCode: "v", HostClaudeDesktop: keep, HostCursor: keep, HostVSCode: keep, HostGemini: "v", HostWindsurf: keep}},
		{"${UNSET}", map[Host]string{HostGeneric: problem, HostClaudeCode: problem, HostClaudeDesktop: keep, HostCursor: keep, HostVSCode: keep, HostGemini: keep, HostWindsurf: keep}},
		{"${UNSET:-d}", map[Host]string{HostGeneric: "d", HostClaudeCode: "d", HostClaudeDesktop: keep, HostCursor: keep, HostVSCode: keep, HostGemini: keep, HostWindsurf: keep}},
		{"${env:SET}", map[Host]string{HostGeneric: "v", HostClaudeCode: problem, HostClaudeDesktop: keep, HostCursor: "v", HostVSCode: "v", HostGemini: keep, HostWindsurf: "v"}},
		{"${env:UNSET}", map[Host]string{HostGeneric: problem, HostClaudeCode: problem, HostClaudeDesktop: keep, HostCursor: "", HostVSCode: "", HostGemini: keep, HostWindsurf: problem}},
		{"$SET", map[Host]string{HostGeneric: keep, HostClaudeCode: keep, HostClaudeDesktop: keep, HostCursor: keep, HostVSCode: keep, HostGemini: "v", HostWindsurf: keep}},
		{"$EMPTY", map[Host]string{HostGeneric: keep, HostGemini: ""}},
		{"${workspaceFolder}", map[Host]string{HostGeneric: "/w", HostClaudeCode: problem, HostClaudeDesktop: keep, HostCursor: "/w", HostVSCode: "/w", HostGemini: keep, HostWindsurf: keep}},
		{"${workspaceFolderBasename}", map[Host]string{HostVSCode: "w", HostCursor: "w"}},
		{"${CLAUDE_PROJECT_DIR}", map[Host]string{HostGeneric: "/w", HostClaudeCode: "/w", HostVSCode: keep}},
		{"${input:key}", map[Host]string{HostGeneric: "answer-key", HostVSCode: "answer-key", HostCursor: keep, HostClaudeCode: problem, HostWindsurf: keep}},
		{"${config:a.b}", map[Host]string{HostGeneric: problem, HostVSCode: keep, HostCursor: keep}},
		{"${unterminated", map[Host]string{HostGeneric: problem, HostClaudeCode: problem, HostVSCode: keep, HostGemini: keep}},
	}
	for _, c := range cases {
		for host, want := range c.want {
			o := &options{lookup: lookup, workspace: "/w", inputs: func(in Input) (string, error) { return "answer-" + in.ID, nil }}
			r := newResolver(host, "", o)
			got, err := r.expand(c.in)
			switch want {
			case problem:
				assert.Error(t, err, "%s in %q", c.in, host)
			case keep:
				require.NoError(t, err, "%s in %q", c.in, host)
				assert.Equal(t, c.in, got, "%s in %q", c.in, host)
			default:
				require.NoError(t, err, "%s in %q", c.in, host)
				assert.Equal(t, want, got, "%s in %q", c.in, host)
			}
		}
	}
}

func TestAnUnresolvedVariableMakesOnlyItsServerAProblem(t *testing.T) {
	dir := t.TempDir()
	path := hostFile(t, dir, ".mcp.json", `{"mcpServers": {
  "a": {"command": "x", "env": {"TOKEN": "${NOPE}"}},
  "b": {"command": "y"}
}}`)
	cfg, err := Load(path, WithVariables(vars(nil)))
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, cfg.Names())
	require.Len(t, cfg.Problems, 1)
	p := cfg.Problems[0]
	assert.Equal(t, path+`:2:42: server "a": env.TOKEN: variable "NOPE" is not set; set it in the environment or supply it with mcpconfig.WithVariables`, p.Error())
	_, err = Load(path, WithVariables(vars(nil)), WithStrict())
	var cerr *Error
	require.ErrorAs(t, err, &cerr)
	assert.Equal(t, "a", cerr.Server)
}

func TestInputsAreDeclaredAndAnsweredOncePerID(t *testing.T) {
	path := hostFile(t, t.TempDir(), ".vscode/mcp.json", `{
  // VS Code's mcp.json is JSONC
  "inputs": [
    {"type": "promptString", "id": "token", "description": "API token", "password": true},
    {"type": "pickString", "id": "region", "options": ["eu", "us"], "default": "eu"},
  ],
  "servers": {
    "a": {"command": "x", "env": {"T": "${input:token}", "U": "${input:token}"}},
    "b": {"type": "http", "url": "https://h/${input:region}/mcp", "headers": {"Authorization": "Bearer ${input:token}"}},
  },
}`)
	var asked []Input
	cfg, err := Load(path, WithInputs(func(in Input) (string, error) {
		asked = append(asked, in)
		if in.ID == "region" {
			return "", errors.New("cancelled")
		}
		return "s3cret", nil
	}))
	require.NoError(t, err)
	require.Len(t, cfg.Inputs, 2)
	assert.Equal(t, Input{ID: "token", Type: "promptString", Description: "API token", Password: true, Line: 4, Column: 5}, cfg.Inputs[0])
	assert.Equal(t, []string{"eu", "us"}, cfg.Inputs[1].Options)
	require.Len(t, asked, 2, "one question per id")
	assert.Equal(t, "API token", asked[0].Description)
	assert.Equal(t, map[string]string{"T": "s3cret", "U": "s3cret"}, cfg.Servers["a"].Env)
	require.Len(t, cfg.Problems, 1)
	assert.Contains(t, cfg.Problems[0].Error(), `server "b": url: input "region" has no answer: cancelled`)

	cfg, err = Load(path)
	require.NoError(t, err)
	assert.Len(t, cfg.Problems, 2, "without WithInputs both servers are problems")
	assert.Contains(t, cfg.Problems[0].Error(), `answer it with mcpconfig.WithInputs`)
}

func TestJSONCThatStartsWithACommentIsJSON(t *testing.T) {
	cfg, err := Parse([]byte("// my servers\n{\"servers\": {\"a\": {\"command\": \"x\"},}}"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, cfg.Names())
	_, err = Parse([]byte("/* block */ {\"servers\": {\"a\": }}"))
	assert.EqualError(t, err, "1:31: invalid character '}' at start of value")
}

func TestJSONCWithEveryServerCommentedOut(t *testing.T) {
	path := hostFile(t, t.TempDir(), ".vscode/mcp.json", "{\n  \"servers\": {\n    // \"a\": {\"command\": \"x\"},\n  }\n}\n")
	cfg, err := Load(path)
	require.NoError(t, err)
	assert.Empty(t, cfg.Servers)
	assert.Empty(t, cfg.Problems)
}

func TestEachHostsKeys(t *testing.T) {
	dir := t.TempDir()
	t.Run("Windsurf serverUrl", func(t *testing.T) {
		cfg, err := Load(hostFile(t, dir, "w/mcp_config.json", `{"mcpServers": {"r": {"serverUrl": "https://h/mcp", "headers": {"X": "1"}, "disabledTools": ["drop"]}}}`))
		require.NoError(t, err)
		s := cfg.Servers["r"]
		assert.Equal(t, TypeHTTP, s.Type)
		assert.Equal(t, "https://h/mcp", s.URL)
		assert.Equal(t, []string{"drop"}, s.ExcludeTools)
	})
	t.Run("Gemini httpUrl before type and command, url before command", func(t *testing.T) {
		cfg, err := Load(hostFile(t, dir, "g/.gemini/settings.json", `{"mcpServers": {
			"a": {"type": "stdio", "command": "x", "httpUrl": "https://h/a"},
			"b": {"command": "x", "url": "https://h/b"},
			"c": {"command": "x", "description": "does c"}}}`))
		require.NoError(t, err)
		assert.Equal(t, TypeHTTP, cfg.Servers["a"].Type)
		assert.Equal(t, "https://h/a", cfg.Servers["a"].URL)
		assert.Empty(t, cfg.Servers["a"].Command)
		assert.Equal(t, TypeHTTP, cfg.Servers["b"].Type)
		assert.Equal(t, "does c", cfg.Servers["c"].Description)
	})
	t.Run("Gemini mcp.allowed and mcp.excluded", func(t *testing.T) {
		cfg, err := Load(hostFile(t, dir, "g2/.gemini/settings.json", `{"mcp": {"allowed": ["a", "b"], "excluded": ["b"]},
			"mcpServers": {"a": {"command": "x"}, "b": {"command": "x"}, "c": {"command": "x"}}}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, cfg.Enabled())
	})
	t.Run("Cline alwaysAllow and autoApprove, tools' own approval wins", func(t *testing.T) {
		cfg, err := Parse([]byte(`{"mcpServers": {"a": {"command": "x", "alwaysAllow": ["read", "write"], "autoApprove": ["list"],
			"tools": {"write": {"approval": "prompt"}}}}}`))
		require.NoError(t, err)
		s := cfg.Servers["a"]
		assert.Equal(t, map[string]Tool{"read": {Approval: ApprovalAuto}, "list": {Approval: ApprovalAuto}, "write": {Approval: ApprovalPrompt}}, s.Tools)
		assert.Equal(t, ApprovalUnset, s.Approval)
	})
	t.Run("shapes of other hosts' keys are ignored", func(t *testing.T) {
		cfg, err := Parse([]byte(`{"mcpServers": {"a": {"command": "x", "tools": [{"name": "t"}], "autoApprove": true, "description": 1}}}`))
		require.NoError(t, err)
		assert.Empty(t, cfg.Problems)
		assert.Nil(t, cfg.Servers["a"].Tools)
	})
	t.Run("Claude Code headersHelper", func(t *testing.T) {
		cfg, err := Load(hostFile(t, dir, "c/.mcp.json", `{"mcpServers": {"a": {"type": "http", "url": "https://h", "headersHelper": "${CLAUDE_PROJECT_DIR}/auth.sh"}}}`),
			WithVariables(vars(nil)))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "c")+"/auth.sh", cfg.Servers["a"].HeadersHelper)
	})
	t.Run("each host reads its own servers key", func(t *testing.T) {
		cfg, err := Load(hostFile(t, dir, "k/.cursor/mcp.json", `{"servers": {"a": {"command": "x"}}}`))
		require.NoError(t, err)
		assert.Empty(t, cfg.Servers)
		require.Len(t, cfg.Problems, 1)
		assert.Contains(t, cfg.Problems[0].Error(), `Cursor reads "mcpServers", not "servers": it starts none of these servers`)
	})
}

func TestEnvFile(t *testing.T) {
	dir := t.TempDir()
	hostFile(t, dir, ".env", "# comment\nFROM_FILE=1\nBOTH=file\n")
	cfg, err := Load(hostFile(t, dir, ".vscode/mcp.json", `{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/.env", "env": {"BOTH": "entry"}},
		"b": {"command": "x", "envFile": "missing.env"}}}`))
	require.NoError(t, err)
	tr, err := cfg.Servers["a"].Transport()
	require.NoError(t, err)
	assert.Equal(t, []string{"BOTH=entry", "FROM_FILE=1"}, tr.(transport.Stdio).Env, "the entry's env wins over the file's")
	_, err = cfg.Servers["b"].Transport()
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, filepath.Join(dir, "missing.env"), cfg.Servers["b"].EnvFile, "relative to the workspace folder")
}

func TestLayers(t *testing.T) {
	dir := t.TempDir()
	t.Run("Codex merges a project's keys into the user's table", func(t *testing.T) {
		user := hostFile(t, dir, "home/.codex/config.toml", "[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"docs\"]\nenv = { A = \"1\" }\n\n[mcp_servers.other]\nurl = \"https://h/mcp\"\n")
		project := hostFile(t, dir, "repo/.codex/config.toml", "[mcp_servers.docs]\nenv = { B = \"2\" }\ntool_timeout_sec = 5\n\n[mcp_servers.other]\nenabled = false\n")
		cfg, err := LoadLayers([]Layer{{Path: user}, {Path: project}, {Path: filepath.Join(dir, "absent.toml")}})
		require.NoError(t, err)
		docs := cfg.Servers["docs"]
		assert.Equal(t, "npx", docs.Command)
		assert.Equal(t, []string{"docs"}, docs.Args)
		assert.Equal(t, map[string]string{"A": "1", "B": "2"}, docs.Env)
		assert.Equal(t, "5s", docs.Timeout.String())
		assert.True(t, cfg.Servers["other"].Disabled, "the project switched it off")
		assert.Equal(t, []string{"docs"}, cfg.Enabled())
	})
	t.Run("Claude Code's later scope replaces the entry", func(t *testing.T) {
		user := hostFile(t, dir, "u/.mcp.json", `{"mcpServers": {"a": {"command": "x", "env": {"K": "1"}}, "b": {"command": "y"}}}`)
		project := hostFile(t, dir, "p/.mcp.json", `{"mcpServers": {"a": {"type": "http", "url": "https://h"}}}`)
		cfg, err := LoadLayers([]Layer{{Path: user}, {Path: project, Untrusted: true}})
		require.NoError(t, err)
		assert.Equal(t, TypeHTTP, cfg.Servers["a"].Type)
		assert.Equal(t, map[string]bool{"a": true}, cfg.Untrusted, "the project's server waits for approval")
		assert.Equal(t, "connect to https://h", cfg.Servers["a"].ApprovalText())
		cfg.Approve("a")
		assert.Empty(t, cfg.Untrusted)
	})
	t.Run("the approval names the command", func(t *testing.T) {
		project := hostFile(t, dir, "q/.mcp.json", `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "some pkg"], "env": {"TOKEN": "t"}}}}`)
		var what string
		cfg, err := LoadLayers([]Layer{{Path: project, Untrusted: true}}, WithApprove(func(_ *Server, w string) bool { what = w; return true }))
		require.NoError(t, err)
		assert.Equal(t, `run npx -y "some pkg" with env TOKEN`, what)
		assert.Empty(t, cfg.Untrusted, "approved")
	})
}

// Whatever the bytes, reading a JSON(C) file by any host's rules returns a
// Config or an error, never panics; an error and every problem are located
// in the data.
func FuzzParseJSONC(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "vscode.json"))
	require.NoError(f, err)
	f.Add(string(seed), uint8(0))
	f.Add("{\n  // c\n  \"servers\": {\"a\": {\"command\": \"x\",},},\n}", uint8(4))
	f.Add(`{"mcpServers": {"a": {"httpUrl": "https://h", "type": "stdio", "headersHelper": "${CLAUDE_PROJECT_DIR}/h"}}}`, uint8(5))
	f.Add(`{"mcp": {"allowed": ["a"]}, "mcpServers": {"a": {"command": "$HOME/x", "env": {"K": "${input:k}"}}}}`, uint8(5))
	hosts := []Host{HostGeneric, HostClaudeCode, HostClaudeDesktop, HostCursor, HostVSCode, HostGemini, HostWindsurf}
	f.Fuzz(func(t *testing.T, data string, h uint8) {
		cfg, err := Parse([]byte(data), WithHost(hosts[int(h)%len(hosts)]), WithVariables(everyVariableSet))
		if err != nil {
			assert.Nil(t, cfg)
			var cerr *Error
			require.ErrorAs(t, err, &cerr)
			assert.GreaterOrEqual(t, cerr.Line, 1)
			assert.GreaterOrEqual(t, cerr.Column, 1)
			return
		}
		require.NotNil(t, cfg)
		for _, p := range cfg.Problems {
			assert.GreaterOrEqual(t, p.Line, 1)
			assert.GreaterOrEqual(t, p.Column, 1)
		}
	})
}
