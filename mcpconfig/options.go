package mcpconfig

import (
	"os"
	"path/filepath"
	"strings"
)

// Option configures [Load], [Parse] and [LoadLayers].
type Option interface {
	apply(*options)
}

// optionFunc is an [Option] that is a func over the options.
type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

type options struct {
	host      Host
	hostSet   bool
	lookup    func(string) (string, bool)
	workspace string
	inputs    func(Input) (string, error)
	strict    bool
	approve   func(*Server, string) bool
	// untrustedApproval: WithUntrustedApprovalModes.
	untrustedApproval bool
	base              *Config // LoadLayers: the layers below the one being read
}

func newOptions(opts []Option) *options {
	o := &options{lookup: os.LookupEnv}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(o)
		}
	}
	return o
}

// WithHost reads the file by host's rules (its variables, its spelling of
// keys, whether a file without servers is empty or wrong) instead of the
// host [HostOf] tells by the file's name.
func WithHost(host Host) Option {
	return optionFunc(func(o *options) { o.host, o.hostSet = host, true })
}

// WithVariables resolves the variables a file names in place of the
// process environment: ${NAME} and ${env:NAME} ask resolve("NAME"), and the
// hosts' predefined variables (${workspaceFolder}, ${userHome},
// CLAUDE_PROJECT_DIR, ...) ask it first too, falling back to their defaults
// (see [Host]). resolve returns false for a name it does not know.
func WithVariables(resolve func(name string) (value string, ok bool)) Option {
	return optionFunc(func(o *options) { o.lookup = resolve })
}

// WithWorkspaceFolder sets ${workspaceFolder} (and its basename) and Claude
// Code's CLAUDE_PROJECT_DIR. Without it they are the folder that holds the
// file's .vscode/ or .cursor/ folder, or else the file's own folder.
func WithWorkspaceFolder(dir string) Option {
	return optionFunc(func(o *options) { o.workspace = dir })
}

// WithInputs answers VS Code's ${input:ID} references: answer is called
// once per input id a server uses, with the file's declaration of it (see
// [Config.Inputs]; only ID is set when the file declares none), and its
// value replaces every reference to that id. An error leaves the servers
// that use the input unstartable, each with a problem naming it. Without
// WithInputs a server that uses an input is such a problem.
func WithInputs(answer func(Input) (string, error)) Option {
	return optionFunc(func(o *options) { o.inputs = answer })
}

// WithStrict makes any problem of a server fail the whole file, as hosts
// that refuse a broken file do: Load returns nil and the problems joined
// with errors.Join instead of a [Config] with [Config.Problems].
func WithStrict() Option {
	return optionFunc(func(o *options) { o.strict = true })
}

// WithApprove asks approve, for each server of an untrusted [Layer] of
// [LoadLayers], whether the user trusts it; what is its
// [Server.ApprovalText], naming the command it would run. A server
// approve refuses stays in [Config.Untrusted]. approve may prompt.
func WithApprove(approve func(server *Server, what string) bool) Option {
	return optionFunc(func(o *options) { o.approve = approve })
}

// WithUntrustedApprovalModes honours, in an untrusted [Layer] of
// [LoadLayers], the settings that relax approval: Gemini CLI's "trust",
// an "approval" (Codex's default_tools_approval_mode or approval_mode) of
// "auto" or "writes", Cline's "alwaysAllow" and "autoApprove". Without it
// they are not honoured, even once the user approved the server to run
// ([Config.Approve], [WithApprove]): a repository's file cannot switch off
// the host's approval function. Either way [Server.RelaxedApproval] and
// [Server.ApprovalText] name them. Give it only when the user has said that
// a project's files may decide their approvals.
func WithUntrustedApprovalModes() Option {
	return optionFunc(func(o *options) { o.untrustedApproval = true })
}

// Host names the application whose config file is read: it decides which
// variables a file may use and what an unresolved one becomes, and how a
// few keys are read. The rules are in docs/toolbox.md, "Variables by host".
type Host string

// The hosts whose files this package reads.
const (
	// HostGeneric is any other file: ${NAME}, ${NAME:-default},
	// ${env:NAME}, the predefined variables and ${input:ID} are resolved,
	// and one that stays unresolved is the server's problem.
	HostGeneric Host = ""
	// HostClaudeCode is Claude Code's .mcp.json (and ~/.claude.json):
	// ${NAME} and ${NAME:-default} from the environment, CLAUDE_PROJECT_DIR
	// defaulting to the project folder; unset is the server's problem.
	HostClaudeCode Host = "claude-code"
	// HostClaudeDesktop is claude_desktop_config.json: no variables, every
	// value is taken as written.
	HostClaudeDesktop Host = "claude-desktop"
	// HostCursor is Cursor's .cursor/mcp.json: ${env:NAME} (empty when
	// unset) and the predefined variables; other ${...} stay as written.
	HostCursor Host = "cursor"
	// HostVSCode is VS Code's .vscode/mcp.json and user mcp.json:
	// ${env:NAME} (empty when unset), the predefined variables and
	// ${input:ID}; other ${...} stay as written.
	HostVSCode Host = "vscode"
	// HostGemini is Gemini CLI's settings.json: $NAME and ${NAME} from
	// the environment; an unset one stays as written.
	HostGemini Host = "gemini"
	// HostWindsurf is Windsurf's (and Antigravity's) mcp_config.json:
	// ${env:NAME}, unset being the server's problem; other ${...} stay as
	// written.
	HostWindsurf Host = "windsurf"
	// HostCodex is Codex's config.toml: no ${...} expansion.
	HostCodex Host = "codex"
)

// HostOf tells the host by the file's name: .mcp.json (and the user's
// ~/.claude.json, whose top-level "mcpServers" is the user scope) is Claude Code's,
// claude_desktop_config.json Claude Desktop's, mcp.json in .cursor/
// Cursor's, mcp.json in .vscode/ or VS Code's User folder VS Code's,
// settings.json in .gemini/ Gemini CLI's, mcp_config.json Windsurf's, a
// .toml file Codex's, and any other [HostGeneric].
func HostOf(path string) Host {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case strings.EqualFold(filepath.Ext(base), ".toml"):
		return HostCodex
	case base == ".mcp.json", base == ".claude.json":
		return HostClaudeCode
	case base == "claude_desktop_config.json":
		return HostClaudeDesktop
	case base == "mcp_config.json":
		return HostWindsurf
	case base == "mcp.json" && dir == ".cursor":
		return HostCursor
	case base == "mcp.json" && (dir == ".vscode" || dir == "User"):
		return HostVSCode
	case base == "settings.json" && dir == ".gemini":
		return HostGemini
	}
	return HostGeneric
}

// workspaceOf is the default ${workspaceFolder}: the folder holding the
// file's .vscode/, .cursor/, .gemini/ or .codex/ folder, or the file's own
// folder; "" for [Parse] without a path.
func workspaceOf(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir := filepath.Dir(abs)
	switch filepath.Base(dir) {
	case ".vscode", ".cursor", ".gemini", ".codex", ".claude":
		return filepath.Dir(dir)
	}
	return dir
}
