package mcpconfig

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/joho/godotenv"

	"github.com/cuca-go/mcpconnector/transport"
)

// Transport types after normalisation: the values of [Server.Type].
const (
	// TypeStdio is a child process that speaks MCP on its stdin and stdout.
	TypeStdio = "stdio"
	// TypeHTTP is Streamable HTTP, written "http" or "streamable-http" in
	// the file.
	TypeHTTP = "http"
	// TypeSSE is the HTTP+SSE transport of MCP 2024-11-05. [Server.Transport]
	// connects it ([transport.SSE]) only for an entry with LegacyFallback,
	// and refuses it otherwise, naming the key.
	TypeSSE = "sse"
	// TypeWS is WebSocket, written "ws" or "websocket"; refused like
	// [TypeSSE].
	TypeWS = "ws"
)

// typeNames maps the lower-cased "type" values that clients write to the
// Type* constants; "streamablehttp" is Cline's "streamableHttp".
var typeNames = map[string]string{
	"stdio": TypeStdio, "http": TypeHTTP, "streamable-http": TypeHTTP, "streamablehttp": TypeHTTP,
	"sse": TypeSSE, "ws": TypeWS, "websocket": TypeWS,
}

// Config is a parsed mcp.json, or Codex's config.toml.
type Config struct {
	// Path is the file it came from; "" for [Parse]. For [LoadLayers] it
	// is the last layer's.
	Path string
	// Host is the host whose rules read the file (see [HostOf], [WithHost]).
	Host Host
	// Servers holds every server that parsed, disabled ones included, by
	// the name that is its key in the file.
	Servers map[string]*Server
	// Problems holds one error per server entry that did not parse, or
	// whose variables or inputs stay unresolved, in file order: that
	// server is not in Servers, and the others are. Each is an [*Error]
	// at the entry's file:line:column naming the server ("" for an entry
	// without a name). [WithStrict] turns them into Load's error.
	Problems []*Error
	// Inputs are the file's "inputs" declarations (VS Code), in file
	// order, so that a host can prompt for them (see [WithInputs]).
	Inputs []Input
	// Untrusted names the servers that came from a layer marked
	// untrusted (see [Layer]) and have not been approved: a caller must
	// start no command and run no helper of theirs until it approves
	// them (see [Server.ApprovalText]).
	Untrusted map[string]bool
}

// Input is one of VS Code's "inputs": what ${input:ID} asks the user.
type Input struct {
	// ID is what ${input:ID} names.
	ID string
	// Type is "promptString" or "pickString" as written.
	Type string
	// Description is the prompt's text.
	Description string
	// Password says the answer is a secret: a prompt hides what is typed.
	Password bool
	// Default is the answer offered first.
	Default string
	// Options are a pickString's choices.
	Options []string
	// Line and Column locate the declaration in the file.
	Line, Column int
}

// Server is one entry of "mcpServers" (or of Codex's [mcp_servers]),
// validated, with its variables expanded (see [Parse]).
type Server struct {
	// Name is the entry's key in the file, as written.
	Name string
	// Description ("description", Gemini CLI's) says what the server is
	// for; it is kept, not used.
	Description string
	// Type is one of the Type* constants. When the file has none it is
	// inferred: "command" means stdio, "url" (or Gemini CLI's "httpUrl")
	// means http.
	Type string
	// Command is the stdio server's executable, run without a shell.
	Command string
	// Args are the command's arguments, each passed as it is.
	Args []string
	// Env holds the variables added to the stdio child's environment.
	Env map[string]string
	// Cwd is the stdio child's working directory; "" means this process's.
	Cwd string
	// URL is the HTTP endpoint (or, for sse and ws, the one refused).
	URL string
	// Headers are sent with every HTTP request, e.g. an Authorization.
	Headers map[string]string
	// HeadersHelper ("headersHelper", Claude Code's) is a shell command
	// whose standard output is one JSON object of header names to string
	// values, sent with the server's requests on top of Headers; it is
	// run before the server is reached and again when the server answers
	// 401. package toolbox runs it (with a timeout, never logging what it
	// prints); Transport does not.
	HeadersHelper string
	// EnvFile ("envFile", VS Code's and Cursor's) is a dotenv file whose
	// variables are added to the stdio child's environment, Env winning;
	// Transport reads it.
	EnvFile string
	// Disabled servers are parsed and kept but not meant to be connected
	// ("disabled": true, or Codex's enabled = false).
	Disabled bool
	// Required ("required", Codex's required) makes toolbox.Open fail when this
	// server does not come up, naming it and why; a server that is not
	// required fails open (it is reported by Toolbox.Status and retried).
	Required bool
	// Timeout is the call timeout: it bounds each tool call. The JSON forms
	// give it in milliseconds ("timeout"), Codex in seconds
	// (tool_timeout_sec). Zero means the file gave none.
	Timeout time.Duration
	// ConnectTimeout bounds each of this server's connection attempts, and
	// so how long toolbox.Open or a lazy server's first call waits for it to
	// start, in place of the plugin options' plugin.WithConnectTimeout; Codex writes it
	// startup_timeout_sec. Zero means the file gave none.
	ConnectTimeout time.Duration
	// ParallelToolCalls ("parallelToolCalls", Codex's
	// supports_parallel_tool_calls) says whether the server is safe for
	// calls at once: false runs the calls of one turn to this server one
	// after another, in the model's order. nil means the file gave none,
	// which is parallel, as before.
	ParallelToolCalls *bool
	// Approval ("approval", Codex's default_tools_approval_mode) says when
	// a call of one of this server's tools asks the approval handler of
	// plugin.WithApproval first; [Server.Tools] overrides it per
	// tool. Gemini CLI's "trust": true gives [ApprovalAuto] when the entry
	// sets no mode (as it does for a Server built by hand with Trust and
	// no mode). "" means the file gave none; see [ApprovalMode].
	Approval ApprovalMode
	// Tools holds per-tool settings ("tools": {"<tool>": {"approval": ...}},
	// Codex's [mcp_servers.<name>.tools.<tool>]), by the server's own,
	// unprefixed tool name; nil when the file has none.
	Tools map[string]Tool
	// IncludeTools and ExcludeTools are Gemini CLI's tool filters: exact
	// names or globs where '*' matches any run of characters (every other
	// character only itself). A tool (by its own, unprefixed name) is
	// exposed when it matches one of IncludeTools, if there are any, and
	// none of ExcludeTools, which wins.
	IncludeTools []string
	ExcludeTools []string
	// Prefix is put before each tool's name; nil means the file has no
	// "prefix" (the toolbox then puts Name+"__"), a pointer to "" means raw
	// names.
	Prefix *string
	// Trust is Gemini CLI's "trust": no confirmation for this server's
	// tools. It is kept as written; what counts is [Server.Approval],
	// which the parser sets to [ApprovalAuto] when Trust is true and the
	// entry gives no mode of its own.
	Trust bool
	// RelaxedApproval names, as the file spelt them, the settings of an
	// untrusted [Layer] that relax approval ("trust", an approval mode of
	// "auto" or "writes" for the server or a tool, "alwaysAllow",
	// "autoApprove") beyond what the trusted layers gave the server. They
	// are not honoured (Trust, Approval and the tools' modes are left
	// unset) unless [WithUntrustedApprovalModes] is given; nil for a server
	// of a trusted layer, of [Load] and of [Parse].
	RelaxedApproval []string
	// MaxResultBytes ("maxResultBytes") caps the text the model reads of
	// each of this server's results (plugin.WithMaxResultBytes); zero
	// means the file gave none.
	MaxResultBytes int
	// AlwaysLoad ("alwaysLoad") keeps this server's tools in every request
	// when tool search defers the others (toolbox.WithToolSearch).
	AlwaysLoad bool
	// Lazy ("lazy") leaves the server unstarted at Open when a manifest of
	// its tools is on disk (toolbox.WithManifestDir): its tools are exposed from
	// the manifest and the first call of one of them (or Toolbox.Start)
	// starts it. Without a manifest it starts at Open, to learn its tools.
	Lazy bool
	// StopWhenIdle ("stopWhenIdle", a duration such as "10m") stops a lazy
	// server after that long without calls; the next call starts it again.
	// Zero means never; it needs "lazy": true. Idle time counts from the
	// end of the latest call through the hooks, and from the start of the
	// latest Toolbox.CallTool.
	StopWhenIdle time.Duration
	// Tasks ("tasks") drives the server's tasks (SEP-2663) with its
	// settings; nil when the file gives none or false.
	Tasks *Tasks
	// LegacyFallback ("legacyFallback", Codex's legacy_fallback) lets a
	// server that does not speak MCP 2026-07-28 start at an older revision
	// (plugin.WithLegacyFallback, which package toolbox passes for it); it
	// is also what makes a "type": "sse" entry connectable.
	LegacyFallback bool
	// Line and Column (1-based, column in characters) locate the entry's
	// name in the file, for errors about the server found after loading.
	Line, Column int
}

// ApprovalMode says when a tool call asks the host's approval handler
// (plugin.WithApproval) before it goes to the server. The values are
// Codex's approval modes, spelt as Codex spells them in config.toml and as
// the JSON forms' "approval" takes them.
type ApprovalMode string

// The approval modes. A mode that asks ([ApprovalPrompt], [ApprovalApprove],
// and [ApprovalWrites] for a tool not annotated read-only) denies the call
// with a tool error saying so when no approval handler is set.
const (
	// ApprovalUnset is the zero value: the file gave no mode. The call is
	// handled as before modes existed: the approval handler, when one is
	// set, is asked; without one the call goes ahead.
	ApprovalUnset ApprovalMode = ""
	// ApprovalAuto runs the call without a question (Gemini CLI's "trust").
	ApprovalAuto ApprovalMode = "auto"
	// ApprovalPrompt asks the approval handler.
	ApprovalPrompt ApprovalMode = "prompt"
	// ApprovalWrites asks the approval handler unless the tool's
	// annotations say readOnlyHint: true.
	ApprovalWrites ApprovalMode = "writes"
	// ApprovalApprove always asks the approval handler, even for a
	// trusted server or a read-only tool.
	ApprovalApprove ApprovalMode = "approve"
)

// approvalModes are the modes a file may write.
var approvalModes = []ApprovalMode{ApprovalAuto, ApprovalPrompt, ApprovalWrites, ApprovalApprove}

// valid reports whether m is one of the four modes or [ApprovalUnset].
func (m ApprovalMode) valid() bool {
	return m == ApprovalUnset || slices.Contains(approvalModes, m)
}

// Tool is what an entry says about one of its server's tools.
type Tool struct {
	// Approval overrides the server's [Server.Approval] for this
	// tool; [ApprovalUnset] leaves the server's.
	Approval ApprovalMode
}

// Error is a problem in an mcp.json, located like a compiler's:
// "path:line:column: server "name": field: message". Line and Column are
// 1-based; Column counts characters (runes), not bytes. Messages name
// fields and variables but never quote a value, which may be a secret.
type Error struct {
	// Path is the file; "" for [Parse], whose errors start at the line.
	Path         string
	Line, Column int
	// Server is the entry's name; "" for errors outside the servers.
	Server string
	// Field is where in the entry, e.g. "args[1]", "env.TOKEN",
	// "headers.Authorization"; "" for the entry as a whole.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error reads "path:line:column: server "name": field: message", leaving
// out the parts that are empty.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path + ":")
	}
	fmt.Fprintf(&b, "%d:%d: ", e.Line, e.Column)
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and parses the mcp.json, or Codex's config.toml, at
// path by the rules of its host (told by its name, see [HostOf], or given
// with [WithHost]); see [Parse] for the rules. A path ending in ".toml" is
// read as TOML and one ending in ".json" as JSON (or JSONC); any other is
// told by its content. A file that cannot be read gives an error wrapping
// the os.ReadFile one (so errors.Is(err, fs.ErrNotExist) works); a file
// that is not JSON, JSONC or TOML at all, or whose servers' object is
// missing or of the wrong type, gives one [*Error]. A server entry that is
// wrong only makes that server a problem (see [Config.Problems]);
// [WithStrict] fails the whole file instead.
func Load(path string, opts ...Option) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcpconfig: reading MCP config: %w", err)
	}
	return parseWith(data, path, newOptions(opts))
}

// Parse parses an mcp.json: a JSON object with "mcpServers" (Claude,
// Cursor, Gemini CLI, Windsurf) or "servers" (VS Code), not both. JSONC's
// comments and trailing commas are allowed, as VS Code allows them, and
// errors still point at the line and column of the text as written.
// Unknown fields, at the top and in servers, are ignored; known ones are
// case-sensitive, must have the right JSON type (null counts as absent)
// and must not repeat, except that a shape of another host's key this
// package does not read (Cursor's descriptive "tools" array) is ignored.
// Beside the fields of those hosts it reads "required",
// "parallelToolCalls", "approval" and "tools": {"<tool>": {"approval":
// ...}} (see [Server]). The hosts' own keys: Windsurf's "serverUrl" is
// "url"; Gemini CLI's "httpUrl" is Streamable HTTP before any "type",
// "url" or "command" (and its "url" before "command"); Claude Code's
// "headersHelper" and VS Code's "envFile" are kept on the [Server];
// "disabledTools" adds to ExcludeTools; Cline's "alwaysAllow" and
// "autoApprove" give those tools [ApprovalAuto] unless "tools" says
// otherwise; "description" is kept. VS Code's top-level "inputs" are
// [Config.Inputs].
//
// Data that is neither valid JSON(C) nor starts with '{' (empty data is JSON)
// is read as Codex's config.toml: its [mcp_servers.<name>] tables, the rest
// of the file ignored, unknown keys too. Codex's keys map onto the same
// fields: command, args, env, cwd, url, enabled (false is Disabled),
// required, enabled_tools and disabled_tools (IncludeTools, ExcludeTools),
// startup_timeout_sec or the older startup_timeout_ms (ConnectTimeout),
// tool_timeout_sec (Timeout), supports_parallel_tool_calls,
// default_tools_approval_mode and [mcp_servers.<name>.tools.<tool>]
// approval_mode; http_headers as Headers; env_vars (names, or tables with a
// name and a source of "local" or "remote") copies those variables of this
// process that are set into Env, env winning; env_http_headers maps a header
// to a variable, left out when unset or empty; bearer_token_env_var gives
// "Authorization: Bearer <value>", an error when unset or empty, and wins
// over a header of that name. As in Codex, a stdio server's table with
// url, http_headers, env_http_headers or bearer_token_env_var, an HTTP
// server's with args, env, env_vars or cwd, and an inline bearer_token are
// errors. Codex expands no ${VAR} in its file: neither does Parse
// there, and a disabled server's unset variables are no error. A Codex or
// Gemini CLI file without servers is a Config without servers.
//
// Variables are resolved as the host resolves them (see [Host]; the
// table is in docs/toolbox.md, "Variables by host"); by default, with no
// host ([HostGeneric]), ${VAR}, ${VAR:-default} (the default when VAR is
// unset or empty), VS Code's ${env:VAR}, the predefined
// ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome},
// ${pathSeparator}, ${/} and ${CLAUDE_PROJECT_DIR}, and ${input:ID} (see
// [WithInputs]) are replaced, in command, args, env values, cwd, envFile,
// url and header values and headersHelper; the values come from the process
// environment or [WithVariables]. A '$' not followed by '{' is literal;
// there is no escape for "${"; a default is literal text up to the first
// '}'. An unset variable without a default, an unterminated or malformed
// reference, and other "${x:...}" forms are the server's problem, except
// in a disabled server: disabling a server whose token is not set must not
// break the file, so there such a field keeps its text as written. The
// other checks apply to disabled servers too.
//
// Errors, in either form, are [*Error]s without a path: "3:14:
// message". A problem of the file as a whole is Parse's error; a
// problem of one server is in [Config.Problems] (the first problem of each
// broken server), unless [WithStrict] is given.
func Parse(data []byte, opts ...Option) (*Config, error) {
	return parseWith(data, "", newOptions(opts))
}

// Names returns the names of all servers, disabled ones included, sorted.
func (c *Config) Names() []string {
	return slices.Sorted(maps.Keys(c.Servers))
}

// Enabled returns the names of the servers that are not disabled, sorted.
func (c *Config) Enabled() []string {
	var names []string
	for _, name := range c.Names() {
		if !c.Servers[name].Disabled {
			names = append(names, name)
		}
	}
	return names
}

// Transport returns the transport that reaches the server: [transport.Stdio]
// with Env as "K=V" entries in key order (added by the transport on top of
// [transport.DefaultEnv]), or [transport.StreamableHTTP] with Headers. SSE
// and WebSocket servers give an error wrapping [transport.ErrNotSupported].
func (s *Server) Transport() (transport.McpTransport, error) {
	switch s.Type {
	case TypeStdio:
		vars := s.Env
		if s.EnvFile != "" {
			fromFile, err := readEnvFile(s.EnvFile)
			if err != nil {
				return nil, fmt.Errorf("mcpconfig: server %q: envFile: %w", s.Name, err)
			}
			maps.Copy(fromFile, s.Env)
			vars = fromFile
		}
		var env []string
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			env = append(env, k+"="+vars[k])
		}
		return transport.Stdio{Command: s.Command, Args: slices.Clone(s.Args), Env: env, Dir: s.Cwd, Label: s.Name}, nil
	case TypeHTTP:
		return transport.StreamableHTTP{URL: s.URL, Header: s.httpHeader(), Label: s.Name}, nil
	case TypeSSE:
		if !s.LegacyFallback {
			return nil, &unsupportedError{server: s.Name, typ: s.Type}
		}
		return transport.SSE{URL: s.URL, Header: s.httpHeader(), Label: s.Name}, nil
	case TypeWS:
		return nil, &unsupportedError{server: s.Name, typ: s.Type}
	default:
		return nil, fmt.Errorf("mcpconfig: server %q: unknown type %q", s.Name, s.Type)
	}
}

// httpHeader is Headers as an http.Header; nil when there are none.
func (s *Server) httpHeader() http.Header {
	if len(s.Headers) == 0 {
		return nil
	}
	header := make(http.Header, len(s.Headers))
	for k, v := range s.Headers {
		header.Add(k, v) // Add canonicalises the key, as the wire would
	}
	return header
}

// unsupportedError is [Server.Transport]'s refusal of SSE and
// WebSocket. It is a type rather than fmt.Errorf("%w") so that the message
// says it once, without the sentinel's text appended.
type unsupportedError struct{ server, typ string }

func (e *unsupportedError) Error() string {
	if e.typ == TypeSSE {
		return fmt.Sprintf(`mcpconfig: server %q: type "sse" (the HTTP+SSE transport of MCP 2024-11-05) needs "legacyFallback": true in its entry (Codex: legacy_fallback = true), or plugin.WithLegacyFallback in toolbox.WithPluginOptions`, e.server)
	}
	return fmt.Sprintf("mcpconfig: server %q: type %q is not supported (MCP 2026-07-28 has Streamable HTTP only)", e.server, e.typ)
}

func (e *unsupportedError) Unwrap() error { return transport.ErrNotSupported }

// readEnvFile reads a dotenv file. Its parse error is replaced, because
// godotenv's quotes the line, which may hold a secret.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vars, err := godotenv.Parse(f)
	if err != nil {
		return nil, errors.New("not a dotenv file of NAME=value lines")
	}
	return vars, nil
}
