package mcpconfig

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/cuca-go/mcpconnector/internal/core/safetext"
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
	// relaxed holds, by server, what an untrusted layer added that relaxes
	// approval; trusted, the server as the trusted layers last left it.
	relaxed := map[string][]relaxation{}
	trusted := map[string]*Server{}
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
				relaxed[name] = newRelaxations(s, trusted[name])
			} else {
				trusted[name] = s
				delete(relaxed, name)
			}
		}
	}
	o.base = nil
	for name, rs := range relaxed {
		s := merged.Servers[name]
		if s == nil || len(rs) == 0 {
			continue
		}
		for _, r := range rs {
			s.RelaxedApproval = append(s.RelaxedApproval, r.key)
		}
		if !o.untrustedApproval {
			if s.Tools != nil {
				s.Tools = maps.Clone(s.Tools) // a Codex layer's map may be an earlier layer's
			}
			for _, r := range rs {
				r.undo(s)
			}
		}
	}
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
// It lets the server run; it does not honour the settings of its file
// that relax approval ([Server.RelaxedApproval]), which only
// [WithUntrustedApprovalModes] does.
func (c *Config) Approve(name string) {
	delete(c.Untrusted, name)
}

// ApprovalText says what trusting the server lets run, for a prompt such
// as Claude Code's before it uses a project's .mcp.json: the command with
// its arguments as it will be run, its working directory and the names
// (not the values) of its env variables and env file; or the URL, the
// header names and the headersHelper command as the shell will run it. It
// names every key of an untrusted layer that relaxes approval
// ([Server.RelaxedApproval]) and says whether it is honoured. Every
// control character (and every bidirectional formatting character) of what
// the file wrote is escaped, as in a Go string (\x1b, \r, \u202e), so that
// the text shows what runs: a hostile file cannot hide an argument, move
// the cursor or erase a line of the prompt.
func (s *Server) ApprovalText() string {
	var b strings.Builder
	if s.Type == TypeStdio {
		fmt.Fprintf(&b, "run %s", quoteArgs(append([]string{s.Command}, s.Args...)))
		if s.Cwd != "" {
			fmt.Fprintf(&b, " in %s", quoteArgs([]string{s.Cwd}))
		}
		if len(s.Env) > 0 {
			fmt.Fprintf(&b, " with env %s", escapedNames(s.Env))
		}
		if s.EnvFile != "" {
			fmt.Fprintf(&b, " and the variables of %s", quoteArgs([]string{s.EnvFile}))
		}
	} else {
		fmt.Fprintf(&b, "connect to %s", safetext.Escape(s.URL))
		if len(s.Headers) > 0 {
			fmt.Fprintf(&b, " with headers %s", escapedNames(s.Headers))
		}
		if s.HeadersHelper != "" {
			fmt.Fprintf(&b, ", running %s for its headers", quoteArgs(helperCommand(s.HeadersHelper)))
		}
	}
	if len(s.RelaxedApproval) > 0 {
		if len(newRelaxations(s, nil)) > 0 {
			fmt.Fprintf(&b, "; its untrusted file relaxes approval, honoured: %s", strings.Join(s.RelaxedApproval, ", "))
		} else {
			fmt.Fprintf(&b, "; its untrusted file asks to relax approval, not honoured: %s", strings.Join(s.RelaxedApproval, ", "))
		}
	}
	return b.String()
}

// helperCommand is the command line that runs a headersHelper, as package
// toolbox runs it: through the system's shell.
func helperCommand(command string) []string {
	if runtime.GOOS == "windows" {
		return []string{"cmd", "/C", command}
	}
	return []string{"/bin/sh", "-c", command}
}

// escapedNames is m's keys, sorted, escaped and joined.
func escapedNames(m map[string]string) string {
	names := slices.Sorted(maps.Keys(m))
	for i, n := range names {
		names[i] = safetext.Escape(n)
	}
	return strings.Join(names, ", ")
}

// quoteArgs joins a command line, quoting (as a Go string, every control
// character escaped) the words a shell would split or a terminal would
// take for commands.
func quoteArgs(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n\"'\\$`;&|<>()*?#~") || safetext.Escape(w) != w {
			w = strconv.Quote(w) // escapes every rune that is not printable: controls, bidi, separators
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// relaxation is one setting of a server that relaxes approval: key names
// it as the file wrote it, undo takes it back.
type relaxation struct {
	key  string
	undo func(*Server)
}

// newRelaxations lists the settings of s that relax approval ("trust",
// an approval mode of "auto" or "writes" for the server or a tool, which
// Cline's "alwaysAllow" and "autoApprove" give too) and that base, the
// server as trusted layers left it (nil: none), does not have.
func newRelaxations(s, base *Server) []relaxation {
	var out []relaxation
	had := map[string]bool{}
	if base != nil {
		for _, r := range newRelaxations(base, nil) {
			had[r.key] = true
		}
	}
	add := func(key string, undo func(*Server)) {
		if !had[key] {
			out = append(out, relaxation{key, undo})
		}
	}
	if s.Trust {
		add(`"trust": true`, func(s *Server) {
			s.Trust = false
			if s.Approval == ApprovalAuto {
				s.Approval = ApprovalUnset
			}
		})
	}
	if (s.Approval == ApprovalAuto && !s.Trust) || s.Approval == ApprovalWrites {
		add(fmt.Sprintf("approval %q", s.Approval), func(s *Server) { s.Approval = ApprovalUnset })
	}
	for _, name := range slices.Sorted(maps.Keys(s.Tools)) {
		if m := s.Tools[name].Approval; m == ApprovalAuto || m == ApprovalWrites {
			add(fmt.Sprintf("tool %s approval %q (tools, alwaysAllow or autoApprove)", strconv.Quote(safetext.Escape(name)), m), func(s *Server) {
				tc := s.Tools[name]
				tc.Approval = ApprovalUnset
				s.Tools[name] = tc
			})
		}
	}
	return out
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
		case "legacy_fallback":
			m.LegacyFallback = over.LegacyFallback
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
