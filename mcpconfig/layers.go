package mcpconfig

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Layer is one file of [LoadLayers].
type Layer struct {
	// Path is the file; its host is told by its name (see [HostOf]) unless
	// [WithHost] is given.
	Path string
	// Untrusted marks a file the user did not write for this machine, such
	// as a repository's own .mcp.json, .cursor/mcp.json or
	// .codex/config.toml: every server it defines or changes is listed in
	// [Config.Untrusted] until the caller approves it (see [WithApprove]
	// and [Config.Approve]); package toolbox starts no command and runs no
	// helper of such a server.
	Untrusted bool
}

// LoadLayers loads the files of one host in its order, lowest first, and
// merges them: Codex's user ~/.codex/config.toml then a project's
// .codex/config.toml; Claude Code's user (~/.claude.json's mcpServers),
// project (.mcp.json) and local scopes; Gemini CLI's user
// ~/.gemini/settings.json then the project's .gemini/settings.json. A later
// layer's server of the same name wins: in the JSON forms it replaces the
// earlier entry whole, as Claude Code and Gemini CLI do; in Codex's
// config.toml its keys are merged into the earlier table, as Codex merges
// its layers, so that a project's table with only enabled = false switches
// the user's server off (env, env_vars and the headers merge by name; any
// other key replaces the earlier one). A layer that does not exist is
// skipped, so a caller can list every place the host reads. The result's
// Problems are every layer's, and Path is the last layer read. A file
// that cannot be read or parsed at all is LoadLayers' error; [WithStrict]
// makes any problem one too.
func LoadLayers(layers []Layer, opts ...Option) (*Config, error) {
	o := newOptions(opts)
	strict := o.strict
	o.strict = false
	merged := &Config{Servers: map[string]*Server{}}
	untrusted := map[string]bool{}
	for _, l := range layers {
		data, err := os.ReadFile(l.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("mcpconfig: reading MCP config: %w", err)
		}
		o.base = merged
		cfg, err := parseWith(data, l.Path, o)
		if err != nil {
			return nil, err
		}
		merged.Path, merged.Host = cfg.Path, cfg.Host
		merged.Problems = append(merged.Problems, cfg.Problems...)
		merged.Inputs = append(merged.Inputs, cfg.Inputs...)
		for _, p := range cfg.Problems {
			delete(merged.Servers, p.Server) // the host reads the later, broken entry
			delete(untrusted, p.Server)
		}
		for name, s := range cfg.Servers {
			merged.Servers[name] = s
			if l.Untrusted {
				untrusted[name] = true
			}
		}
	}
	o.base = nil
	for name := range untrusted {
		if s := merged.Servers[name]; s != nil && !s.Disabled && (o.approve == nil || !o.approve(s, s.ApprovalText())) {
			if merged.Untrusted == nil {
				merged.Untrusted = map[string]bool{}
			}
			merged.Untrusted[name] = true
		}
	}
	if strict && len(merged.Problems) > 0 {
		errs := make([]error, len(merged.Problems))
		for i, e := range merged.Problems {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return merged, nil
}

// Approve trusts the server name of an untrusted layer: it leaves
// [Config.Untrusted], so that package toolbox starts it. Call it once the
// user has accepted its [Server.ApprovalText].
func (c *Config) Approve(name string) {
	delete(c.Untrusted, name)
}

// ApprovalText says what trusting the server lets run, for a prompt such
// as Claude Code's before it uses a project's .mcp.json: the command with
// its arguments, its working directory and the names (not the values) of
// its env variables and env file; or the URL, the header names and the
// headersHelper command.
func (s *Server) ApprovalText() string {
	var b strings.Builder
	if s.Type == TypeStdio {
		fmt.Fprintf(&b, "run %s", quoteArgs(append([]string{s.Command}, s.Args...)))
		if s.Cwd != "" {
			fmt.Fprintf(&b, " in %s", s.Cwd)
		}
		if len(s.Env) > 0 {
			fmt.Fprintf(&b, " with env %s", strings.Join(slices.Sorted(maps.Keys(s.Env)), ", "))
		}
		if s.EnvFile != "" {
			fmt.Fprintf(&b, " and the variables of %s", s.EnvFile)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "connect to %s", s.URL)
	if len(s.Headers) > 0 {
		fmt.Fprintf(&b, " with headers %s", strings.Join(slices.Sorted(maps.Keys(s.Headers)), ", "))
	}
	if s.HeadersHelper != "" {
		fmt.Fprintf(&b, ", running %s for its headers", s.HeadersHelper)
	}
	return b.String()
}

// quoteArgs joins a command line, quoting the words a shell would split.
func quoteArgs(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n\"'\\$`") {
			w = fmt.Sprintf("%q", w)
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// overlay merges Codex's table over, whose keys are keys, into base, a
// server of an earlier layer.
func overlay(base, over *Server, keys map[string]any) *Server {
	if over.Type != base.Type {
		return over // another transport: the earlier keys do not apply
	}
	m := *base
	m.Line, m.Column = over.Line, over.Column
	mergeMap := func(dst, src map[string]string) map[string]string {
		if len(src) == 0 {
			return dst
		}
		out := maps.Clone(dst)
		if out == nil {
			out = map[string]string{}
		}
		maps.Copy(out, src)
		return out
	}
	for k := range keys {
		switch k {
		case "command":
			m.Command = over.Command
		case "url":
			m.URL = over.URL
		case "args":
			m.Args = over.Args
		case "cwd":
			m.Cwd = over.Cwd
		case "env", "env_vars":
			m.Env = mergeMap(m.Env, over.Env)
		case "http_headers", "env_http_headers", "bearer_token_env_var":
			m.Headers = mergeMap(m.Headers, over.Headers)
		case "enabled":
			m.Disabled = over.Disabled
		case "required":
			m.Required = over.Required
		case "supports_parallel_tool_calls":
			m.ParallelToolCalls = over.ParallelToolCalls
		case "startup_timeout_sec", "startup_timeout_ms":
			m.ConnectTimeout = over.ConnectTimeout
		case "tool_timeout_sec":
			m.Timeout = over.Timeout
		case "default_tools_approval_mode":
			m.Approval = over.Approval
		case "enabled_tools":
			m.IncludeTools = over.IncludeTools
		case "disabled_tools":
			m.ExcludeTools = over.ExcludeTools
		case "tools":
			tools := maps.Clone(m.Tools)
			if tools == nil {
				tools = map[string]Tool{}
			}
			maps.Copy(tools, over.Tools)
			m.Tools = tools
		}
	}
	return &m
}
