package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// parser holds what every error needs: the data for positions and the path.
type parser struct {
	data []byte // the JSON read: the file with its comments and trailing commas blanked
	src  []byte // the file as written, for positions
	path string
	host Host
	res  *resolver
	// lookup is the variables' source, for Codex's env_vars and
	// env_http_headers.
	lookup func(string) (string, bool)
	base   *Config  // the layers below this file's, for Codex's merge
	notes  []*Error // problems of the file that are no server's
}

// parse is [Parse] in strict mode with the path for errors (whose name
// may choose the form and the host, see [isTOML] and [HostOf]) and the
// variable lookup injected, so tests need not touch the process
// environment.
func parse(data []byte, path string, lookup func(string) (string, bool)) (*Config, error) {
	return parseWith(data, path, &options{lookup: lookup, strict: true})
}

// parseWith reads data by o.
func parseWith(data []byte, path string, o *options) (*Config, error) {
	host := o.host
	if !o.hostSet {
		host = HostOf(path)
	}
	// Windows editors may write a BOM, which encoding/json rejects and an
	// editor does not show; dropping it keeps columns as the user sees them.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &parser{data: data, src: data, path: path, host: host, lookup: o.lookup, res: newResolver(host, path, o), base: o.base}
	var cfg *Config
	var err error
	if host == HostCodex || isTOML(path, data) {
		p.host, p.res.host = HostCodex, HostCodex
		cfg, err = p.parseCodexConfig()
	} else {
		cfg, err = p.parseJSONConfig()
	}
	if err != nil {
		return nil, err
	}
	cfg.Host = p.host
	if o.strict && len(cfg.Problems) > 0 {
		errs := make([]error, len(cfg.Problems))
		for i, e := range cfg.Problems {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// parseJSONConfig parses the JSON forms.
func (p *parser) parseJSONConfig() (*Config, error) {
	if err := p.checkSyntax(); err != nil {
		return nil, err
	}
	cfg := &Config{Path: p.path, Servers: map[string]*Server{}}
	inputs, err := p.inputs()
	if err != nil {
		return nil, err
	}
	cfg.Inputs = inputs
	p.res.inputs = map[string]Input{}
	for _, in := range inputs {
		p.res.inputs[in.ID] = in
	}
	servers, err := p.serversObject()
	if err != nil {
		return nil, err
	}
	if servers == nil {
		cfg.Problems = append(cfg.Problems, p.notes...)
		return cfg, nil // a host settings file that lists no servers
	}
	entries, ok := members(servers.val, servers.valOff)
	if !ok {
		return nil, p.errAt(servers.valOff, "", "", fmt.Sprintf("%q must be an object", servers.key))
	}
	for _, e := range entries {
		switch _, dup := cfg.Servers[e.key]; {
		case e.key == "":
			cfg.Problems = append(cfg.Problems, p.errAt(e.keyOff, "", "", "empty server name"))
		case dup:
			cfg.Problems = append(cfg.Problems, p.errAt(e.keyOff, e.key, "", "duplicate server name"))
		default:
			s, err := p.server(e)
			if err != nil {
				cfg.Problems = append(cfg.Problems, err)
				cfg.Servers[e.key] = nil // so that a later entry of that name is a duplicate
				continue
			}
			cfg.Servers[e.key] = s
		}
	}
	for name, s := range cfg.Servers {
		if s == nil {
			delete(cfg.Servers, name)
		}
	}
	if p.host == HostGemini {
		p.geminiFilter(cfg)
	}
	return cfg, nil
}

// checkSyntax reports the file's first syntax error, if any, where it is,
// and makes JSONC (comments, trailing commas) plain JSON for the rest of
// the parser, keeping every byte's offset: comments and those commas
// become blanks.
func (p *parser) checkSyntax() error {
	jsonErr, jsonOff := p.jsonSyntax(p.src)
	if jsonErr == nil {
		return nil
	}
	v, err := hujson.Parse(bytes.Clone(p.src))
	if err == nil {
		v.Standardize()
		p.data = v.Pack()
		if err, _ := p.jsonSyntax(p.data); err != nil {
			return err
		}
		return nil
	}
	// "hujson: line L, column C: message", C counting bytes. Its place
	// is the one to give when encoding/json stopped earlier, at a comment
	// or a trailing comma; otherwise encoding/json's words are clearer.
	var line, col int
	msg := err.Error()
	if _, scanErr := fmt.Sscanf(msg, "hujson: line %d, column %d:", &line, &col); scanErr != nil || strings.Contains(msg, "unexpected EOF") {
		return jsonErr
	}
	off := offsetOf(p.src, line, col)
	if jsonOff >= off {
		return jsonErr
	}
	_, rest, _ := strings.Cut(msg, ": ")
	_, rest, _ = strings.Cut(rest, ": ")
	return p.errAt(off, "", "", rest)
}

// jsonSyntax is encoding/json's first syntax error in data, at its offset.
func (p *parser) jsonSyntax(data []byte) (*Error, int) {
	var syntaxErr *json.SyntaxError
	if err := json.Unmarshal(data, new(json.RawMessage)); errors.As(err, &syntaxErr) {
		// Offset counts the offending byte; at the end of input there is
		// none, so point just after the last token.
		off := int(syntaxErr.Offset) - 1
		if err.Error() == "unexpected end of JSON input" {
			off = len(bytes.TrimRight(data, " \t\r\n"))
		}
		off = max(off, 0)
		return p.errAt(off, "", "", syntaxErr.Error()), off
	} else if err != nil {
		return p.errAt(0, "", "", err.Error()), 0
	}
	return nil, 0
}

// serversObject finds the top level's "mcpServers" or "servers", which
// must be there once, and not both.
func (p *parser) serversObject() (*member, error) {
	start := skipSep(p.data, 0)
	top, ok := members(p.data[start:], start)
	if !ok {
		return nil, p.errAt(start, "", "", "the top level must be a JSON object")
	}
	var servers *member
	for i, m := range top {
		if m.key != "mcpServers" && m.key != "servers" {
			continue
		}
		if servers != nil {
			if servers.key == m.key {
				return nil, p.errAt(m.keyOff, "", "", fmt.Sprintf("duplicate %q", m.key))
			}
			return nil, p.errAt(m.keyOff, "", "", `both "mcpServers" and "servers"; keep one`)
		}
		servers = &top[i]
	}
	if servers == nil {
		if p.host == HostGemini {
			return nil, nil // Gemini CLI's settings.json holds more than servers
		}
		return nil, p.errAt(start, "", "", `no "mcpServers" or "servers" object`)
	}
	if want := hostServersKey(p.host); want != "" && servers.key != want {
		// The host reads only its own key: it starts none of these.
		p.notes = append(p.notes, p.errAt(servers.keyOff, "", "", fmt.Sprintf("%s reads %q, not %q: it starts none of these servers", hostNames[p.host], want, servers.key)))
		return nil, nil
	}
	return servers, nil
}

// hostServersKey is the one key of the servers' object that host reads;
// "" when it reads both.
func hostServersKey(host Host) string {
	switch host {
	case HostVSCode:
		return "servers"
	case HostClaudeCode, HostClaudeDesktop, HostCursor, HostGemini, HostWindsurf:
		return "mcpServers"
	}
	return ""
}

// hostNames are the hosts as their users name them, for messages.
var hostNames = map[Host]string{
	HostGeneric: "this reader", HostClaudeCode: "Claude Code", HostClaudeDesktop: "Claude Desktop", HostCursor: "Cursor",
	HostVSCode: "VS Code", HostGemini: "Gemini CLI", HostWindsurf: "Windsurf", HostCodex: "Codex",
}

// geminiFilter applies Gemini CLI's top-level "mcp": {"allowed": [...],
// "excluded": [...]}: a server not allowed, or excluded, is disabled, as
// Gemini CLI does not start it.
func (p *parser) geminiFilter(cfg *Config) {
	start := skipSep(p.data, 0)
	top, _ := members(p.data[start:], start)
	for _, m := range top {
		if m.key != "mcp" {
			continue
		}
		var f struct {
			Allowed  *[]string `json:"allowed"`
			Excluded []string  `json:"excluded"`
		}
		if json.Unmarshal(m.val, &f) != nil {
			continue // a shape Gemini CLI would refuse is not ours to judge
		}
		for name, s := range cfg.Servers {
			if f.Allowed != nil && !slices.Contains(*f.Allowed, name) || slices.Contains(f.Excluded, name) {
				s.Disabled = true
			}
		}
	}
}

// errAt makes the error for data[off].
func (p *parser) errAt(off int, server, field, msg string) *Error {
	line, col := position(p.src, off)
	return &Error{Path: p.path, Line: line, Column: col, Server: server, Field: field, Msg: msg}
}

// position converts a byte offset in data to a 1-based line and a 1-based
// column counted in runes.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	before := data[:off]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[lineStart:]) + 1
}

// member is one key of a JSON object, with the offsets in the file of its
// key and its value.
type member struct {
	key            string
	keyOff, valOff int
	val            json.RawMessage
}

// members lists, in file order, the members of the object raw, which starts
// at offset base of the file. ok is false when raw is not an object. raw is
// valid JSON: parse checked the whole file first.
func members(raw []byte, base int) (ms []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		var m member
		m.keyOff = base + skipSep(raw, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		m.key, _ = tok.(string)
		m.valOff = base + skipSep(raw, int(dec.InputOffset()))
		if err := dec.Decode(&m.val); err != nil {
			return nil, false
		}
		ms = append(ms, m)
	}
	return ms, true
}

// element is one value of a JSON array with its offset in the file.
type element struct {
	off int
	val json.RawMessage
}

// elements is [members] for arrays.
func elements(raw []byte, base int) (es []element, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false
	}
	for dec.More() {
		e := element{off: base + skipSep(raw, int(dec.InputOffset()))}
		if err := dec.Decode(&e.val); err != nil {
			return nil, false
		}
		es = append(es, e)
	}
	return es, true
}

// skipSep skips whitespace and the separators a json.Decoder leaves before
// the next token, so the result is where that token starts.
func skipSep(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\r\n,:", b[i]) >= 0 {
		i++
	}
	return i
}

// jsonString decodes raw if it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// server parses and validates one entry of the servers object: its known
// fields as written, its transport, then the expanded values.
func (p *parser) server(e member) (*Server, *Error) {
	r, err := p.rawFields(e)
	if err != nil {
		return nil, err
	}
	s := &Server{Name: e.key, Disabled: r.disabled, Timeout: r.timeout, Trust: r.trust, MaxResultBytes: r.maxResultBytes, AlwaysLoad: r.alwaysLoad,
		Lazy: r.lazy, StopWhenIdle: r.stopWhenIdle, Required: r.required, ParallelToolCalls: r.parallel, Approval: r.approval, Tools: r.tools,
		Description: r.description, Tasks: r.tasks, LegacyFallback: r.legacy}
	if s.Trust && s.Approval == ApprovalUnset {
		s.Approval = ApprovalAuto // Gemini CLI's trust: no confirmation
	}
	s.Line, s.Column = position(p.src, e.keyOff)
	if r.stopWhenIdle > 0 && !r.lazy {
		return nil, p.errAt(r.idleOff, e.key, "stopWhenIdle", `needs "lazy": true`)
	}
	urlField, err := p.inferType(e, s, r)
	if err != nil {
		return nil, err
	}
	if err := p.expandFields(s, r, urlField); err != nil {
		return nil, err
	}
	for _, v := range r.list["includeTools"] {
		s.IncludeTools = append(s.IncludeTools, v.s)
	}
	for _, v := range r.list["excludeTools"] {
		s.ExcludeTools = append(s.ExcludeTools, v.s)
	}
	for _, v := range r.list["disabledTools"] {
		s.ExcludeTools = append(s.ExcludeTools, v.s)
	}
	for _, key := range []string{"alwaysAllow", "autoApprove"} {
		for _, v := range r.list[key] {
			if s.Tools[v.s].Approval != ApprovalUnset {
				continue // the tool's own "approval" wins
			}
			if s.Tools == nil {
				s.Tools = map[string]Tool{}
			}
			s.Tools[v.s] = Tool{Approval: ApprovalAuto}
		}
	}
	if pre := r.str["prefix"]; pre != nil {
		s.Prefix = &pre.s
	}
	return s, nil
}

// rawFields decodes the entry's known fields, each once; the others are
// skipped.
func (p *parser) rawFields(e member) (*rawServer, *Error) {
	fields, ok := members(e.val, e.valOff)
	if !ok {
		return nil, p.errAt(e.valOff, e.key, "", "must be an object")
	}
	r := &rawServer{str: map[string]*located{}, list: map[string][]located{}, obj: map[string][]located{}}
	seen := map[string]bool{}
	for _, f := range fields {
		if !knownFields[f.key] {
			continue
		}
		if seen[f.key] {
			return nil, p.errAt(f.keyOff, e.key, f.key, "duplicate field")
		}
		seen[f.key] = true
		if off, field, msg := r.decode(f); msg != "" {
			if lenientFields[f.key] && off == f.valOff {
				delete(r.list, f.key)
				if f.key == "tools" {
					r.tools = nil
				}
				continue // a shape of another host's key: ignored
			}
			return nil, p.errAt(off, e.key, field, msg)
		}
	}
	return r, nil
}

// inferType sets s.Type from "type", or else from "command" or "url"
// (Gemini CLI's "httpUrl" too), and checks the transport has what it
// needs. It returns which of "url" and "httpUrl" the entry gave.
func (p *parser) inferType(e member, s *Server, r *rawServer) (urlField string, err *Error) {
	fail := func(off int, field, format string, args ...any) (string, *Error) {
		return "", p.errAt(off, e.key, field, fmt.Sprintf(format, args...))
	}
	cmd := r.str["command"]
	u, urlField := r.str["url"], "url"
	if su := r.str["serverUrl"]; su != nil {
		if u != nil {
			return fail(su.off, "serverUrl", `conflicts with "url"`)
		}
		u, urlField = su, "serverUrl"
	}
	if h := r.str["httpUrl"]; h != nil {
		if p.host == HostGemini {
			// Gemini CLI takes httpUrl before everything else: it is
			// Streamable HTTP whatever "type", "url" or "command" say.
			s.Type = TypeHTTP
			return "httpUrl", nil
		}
		if u != nil {
			return fail(h.off, "httpUrl", `conflicts with "url"`)
		}
		u, urlField = h, "httpUrl"
	}
	if p.host == HostGemini && r.str["type"] == nil && u != nil {
		s.Type = TypeHTTP // Gemini CLI: url before command
		return urlField, nil
	}
	switch t := r.str["type"]; {
	case t != nil:
		var ok bool
		if s.Type, ok = typeNames[strings.ToLower(t.s)]; !ok {
			return fail(t.off, "type", "unknown transport %q (want stdio, http, streamable-http, sse or ws)", t.s)
		}
	case cmd != nil && u != nil:
		return fail(e.keyOff, "", `both "command" and %q; add "type" to choose`, urlField)
	case cmd != nil:
		s.Type = TypeStdio
	case u != nil:
		s.Type = TypeHTTP
	default:
		return fail(e.keyOff, "", `needs "command" (stdio) or "url" (http)`)
	}
	if s.Type == TypeStdio && cmd == nil {
		return fail(e.keyOff, "command", "required for type %q", s.Type)
	}
	if s.Type != TypeStdio && u == nil {
		return fail(e.keyOff, "url", "required for type %q", s.Type)
	}
	return urlField, nil
}

// knownFields are the server fields this package reads; the rest (VS Code's
// "envFile", ...) are ignored.
var knownFields = map[string]bool{
	"type": true, "command": true, "args": true, "env": true, "cwd": true, "url": true, "httpUrl": true,
	"headers": true, "disabled": true, "timeout": true, "includeTools": true, "excludeTools": true, "prefix": true,
	"trust": true, "maxResultBytes": true, "alwaysLoad": true, "lazy": true, "stopWhenIdle": true,
	"required": true, "parallelToolCalls": true, "approval": true, "tools": true,
	"serverUrl": true, "headersHelper": true, "envFile": true, "disabledTools": true, "alwaysAllow": true,
	"autoApprove": true, "description": true, "tasks": true, "legacyFallback": true,
}

// lenientFields are keys other hosts define: a shape this package does not
// read (Cursor's descriptive "tools" array, an "autoApprove": true) is
// ignored, as the hosts that do not own the key ignore it.
var lenientFields = map[string]bool{
	"tools": true, "disabledTools": true, "alwaysAllow": true, "autoApprove": true, "description": true,
}

// rawServer is a server entry's known fields as the file writes them,
// before inference, expansion and checks.
type rawServer struct {
	str            map[string]*located  // type, command, cwd, url, httpUrl, prefix
	list           map[string][]located // args, includeTools, excludeTools
	obj            map[string][]located // env, headers, in file order
	disabled       bool
	timeout        time.Duration
	trust          bool
	maxResultBytes int
	alwaysLoad     bool
	lazy           bool
	stopWhenIdle   time.Duration
	idleOff        int // where stopWhenIdle is
	required       bool
	parallel       *bool
	approval       ApprovalMode
	tools          map[string]Tool
	description    string
	tasks          *Tasks // tasks.go
	legacy         bool   // legacyFallback
}

// decode stores the known field f; a non-empty msg is the error, at off and
// named field.
func (r *rawServer) decode(f member) (off int, field, msg string) {
	if string(f.val) == "null" {
		return 0, "", ""
	}
	switch f.key {
	case "type", "command", "cwd", "url", "httpUrl", "prefix", "serverUrl", "headersHelper", "envFile":
		s, ok := jsonString(f.val)
		if !ok {
			return f.valOff, f.key, "must be a string"
		}
		r.str[f.key] = &located{s: s, off: f.valOff}
	case "description":
		s, ok := jsonString(f.val)
		if !ok {
			return f.valOff, f.key, "must be a string"
		}
		r.description = s
	case "args", "includeTools", "excludeTools", "disabledTools", "alwaysAllow", "autoApprove":
		return r.decodeList(f)
	case "env", "headers":
		return r.decodeObject(f)
	case "disabled", "trust", "alwaysLoad", "lazy", "required", "parallelToolCalls", "legacyFallback":
		return r.decodeBool(f)
	case "approval":
		m, msg := jsonApproval(f.val)
		if msg != "" {
			return f.valOff, f.key, msg
		}
		r.approval = m
	case "tools":
		return r.decodeTools(f)
	case "stopWhenIdle":
		return r.decodeIdle(f)
	case "maxResultBytes":
		return r.decodeMaxResultBytes(f)
	case "timeout":
		return r.decodeTimeout(f)
	case "tasks":
		return r.decodeTasks(f)
	}
	return 0, "", ""
}

// decodeList stores an array of strings: args, includeTools, excludeTools.
func (r *rawServer) decodeList(f member) (off int, field, msg string) {
	es, ok := elements(f.val, f.valOff)
	if !ok {
		return f.valOff, f.key, "must be an array of strings"
	}
	for i, el := range es {
		s, ok := jsonString(el.val)
		if !ok {
			return el.off, fmt.Sprintf("%s[%d]", f.key, i), "must be a string"
		}
		r.list[f.key] = append(r.list[f.key], located{s: s, off: el.off})
	}
	return 0, "", ""
}

// decodeObject stores an object of strings, env or headers, in file order,
// checking its names.
func (r *rawServer) decodeObject(f member) (off int, field, msg string) {
	ms, ok := members(f.val, f.valOff)
	if !ok {
		return f.valOff, f.key, "must be an object of strings"
	}
	seen := map[string]bool{}
	for _, m := range ms {
		field := f.key + "." + m.key
		switch s, ok := jsonString(m.val); {
		case seen[m.key]:
			return m.keyOff, field, "duplicate name"
		case f.key == "env" && (m.key == "" || strings.ContainsAny(m.key, "=\x00")):
			return m.keyOff, field, "invalid variable name"
		case f.key == "headers" && !validHeaderName(m.key):
			return m.keyOff, field, "invalid header name"
		case !ok:
			return m.valOff, field, "must be a string"
		default:
			seen[m.key] = true
			r.obj[f.key] = append(r.obj[f.key], located{s: s, key: m.key, off: m.valOff})
		}
	}
	return 0, "", ""
}

// decodeBool stores one of the boolean fields.
func (r *rawServer) decodeBool(f member) (off int, field, msg string) {
	var b bool
	switch string(f.val) {
	case "true":
		b = true
	case "false":
	default:
		return f.valOff, f.key, "must be true or false"
	}
	switch f.key {
	case "trust":
		r.trust = b
	case "alwaysLoad":
		r.alwaysLoad = b
	case "lazy":
		r.lazy = b
	case "required":
		r.required = b
	case "parallelToolCalls":
		r.parallel = &b
	case "legacyFallback":
		r.legacy = b
	default:
		r.disabled = b
	}
	return 0, "", ""
}

// decodeIdle stores stopWhenIdle, a positive duration such as "10m".
func (r *rawServer) decodeIdle(f member) (off int, field, msg string) {
	text, ok := jsonString(f.val)
	if !ok {
		return f.valOff, f.key, `must be a duration such as "10m"`
	}
	d, err := time.ParseDuration(text)
	switch {
	case err != nil:
		return f.valOff, f.key, `must be a duration such as "10m" or "90s"`
	case d <= 0:
		return f.valOff, f.key, "must be positive"
	}
	r.stopWhenIdle, r.idleOff = d, f.valOff
	return 0, "", ""
}

// decodeMaxResultBytes stores maxResultBytes, a whole number of bytes.
func (r *rawServer) decodeMaxResultBytes(f member) (off int, field, msg string) {
	var n float64
	switch err := json.Unmarshal(f.val, &n); {
	case err != nil:
		return f.valOff, f.key, "must be a number of bytes"
	case n < 0:
		return f.valOff, f.key, "must not be negative"
	case n != math.Trunc(n):
		return f.valOff, f.key, "must be a whole number"
	case n > math.MaxInt32:
		return f.valOff, f.key, "is too large"
	}
	r.maxResultBytes = int(n)
	return 0, "", ""
}

// decodeTimeout stores timeout, a number of milliseconds.
func (r *rawServer) decodeTimeout(f member) (off int, field, msg string) {
	var ms float64
	switch err := json.Unmarshal(f.val, &ms); {
	case err != nil:
		return f.valOff, f.key, "must be a number of milliseconds"
	case ms < 0:
		return f.valOff, f.key, "must not be negative"
	case ms > maxTimeoutMillis:
		return f.valOff, f.key, "is too large"
	}
	r.timeout = time.Duration(ms * float64(time.Millisecond))
	return 0, "", ""
}

// decodeTools stores "tools": an object of the server's tools by name, each
// an object whose known field is "approval"; the others are ignored.
func (r *rawServer) decodeTools(f member) (off int, field, msg string) {
	tools, ok := members(f.val, f.valOff)
	if !ok {
		return f.valOff, f.key, "must be an object of tools by name"
	}
	for _, t := range tools {
		field := "tools." + t.key
		switch _, dup := r.tools[t.key]; {
		case t.key == "":
			return t.keyOff, field, "empty tool name"
		case dup:
			return t.keyOff, field, "duplicate tool name"
		}
		var tc Tool
		if string(t.val) != "null" {
			settings, ok := members(t.val, t.valOff)
			if !ok {
				return t.valOff, field, "must be an object"
			}
			seen := false
			for _, m := range settings {
				if m.key != "approval" || string(m.val) == "null" {
					continue
				}
				if seen {
					return m.keyOff, field + ".approval", "duplicate field"
				}
				seen = true
				mode, msg := jsonApproval(m.val)
				if msg != "" {
					return m.valOff, field + ".approval", msg
				}
				tc.Approval = mode
			}
		}
		if r.tools == nil {
			r.tools = map[string]Tool{}
		}
		r.tools[t.key] = tc
	}
	return 0, "", ""
}

// jsonApproval decodes an approval mode; a non-empty msg is the error.
func jsonApproval(raw json.RawMessage) (ApprovalMode, string) {
	s, ok := jsonString(raw)
	if !ok {
		return "", approvalWant
	}
	return checkApproval(s)
}

// approvalWant is the message for a value that is not a mode.
const approvalWant = `must be "auto", "prompt", "writes" or "approve"`

// checkApproval makes s a mode, refusing "" and any other string.
func checkApproval(s string) (ApprovalMode, string) {
	m := ApprovalMode(s)
	if m == ApprovalUnset || !m.valid() {
		return "", approvalWant
	}
	return m, ""
}

// validHeaderName reports whether name is an HTTP token (RFC 9110 5.6.2).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !isAlnum && strings.IndexByte("!#$%&'*+-.^_`|~", c) < 0 {
			return false
		}
	}
	return true
}

// maxTimeoutMillis keeps a "timeout" within time.Duration.
const maxTimeoutMillis = float64(math.MaxInt64 / int64(time.Millisecond))

// located is a string of the file with where it starts, so that errors
// about it, expansion's included, point at it. key is the key of an env or
// headers entry.
type located struct {
	s, key string
	off    int
}

// checkURL says whether u is an absolute http or https URL with a host; the
// parse error is dropped because it quotes the URL, which may hold a token.
func checkURL(u string) bool {
	parsed, err := url.Parse(u)
	return err == nil && (parsed.Scheme == "http" || parsed.Scheme == "https") && parsed.Host != ""
}

// inputs reads the top level's "inputs", VS Code's declarations of what
// ${input:ID} asks: an array of objects with "id", "type", "description",
// "password", "default" and "options". An entry without a string id, and
// the array in any other shape, is ignored, as what a server cannot use.
func (p *parser) inputs() ([]Input, error) {
	start := skipSep(p.data, 0)
	top, ok := members(p.data[start:], start)
	if !ok {
		return nil, p.errAt(start, "", "", "the top level must be a JSON object")
	}
	var out []Input
	for _, m := range top {
		if m.key != "inputs" {
			continue
		}
		es, _ := elements(m.val, m.valOff)
		for _, e := range es {
			var raw struct {
				ID          any `json:"id"`
				Type        any `json:"type"`
				Description any `json:"description"`
				Password    any `json:"password"`
				Default     any `json:"default"`
				Options     any `json:"options"`
			}
			if json.Unmarshal(e.val, &raw) != nil {
				continue
			}
			id, ok := raw.ID.(string)
			if !ok || id == "" {
				continue
			}
			in := Input{ID: id}
			in.Type, _ = raw.Type.(string)
			in.Description, _ = raw.Description.(string)
			in.Password, _ = raw.Password.(bool)
			in.Default, _ = raw.Default.(string)
			if opts, ok := raw.Options.([]any); ok {
				for _, o := range opts {
					switch o := o.(type) {
					case string:
						in.Options = append(in.Options, o)
					case map[string]any:
						if v, ok := o["value"].(string); ok {
							in.Options = append(in.Options, v)
						}
					}
				}
			}
			in.Line, in.Column = position(p.src, e.off)
			out = append(out, in)
		}
	}
	return out, nil
}
