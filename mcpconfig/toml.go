package mcpconfig

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// isTOML says whether the file is Codex's config.toml rather than an
// mcp.json: by its extension when it has ".toml" or ".json", else by its
// content, which is JSON when it is empty, valid JSON, or starts with '{'
// or a JSONC comment (so that a broken mcp.json still gets JSON's errors).
func isTOML(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		return true
	case ".json", ".jsonc":
		return false
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	jsonc := bytes.HasPrefix(trimmed, []byte("//")) || bytes.HasPrefix(trimmed, []byte("/*"))
	return len(trimmed) > 0 && trimmed[0] != '{' && !jsonc && !json.Valid(trimmed)
}

// tomlServers is the table of Codex's config.toml that lists the servers.
const tomlServers = "mcp_servers"

// parseCodexConfig parses Codex's config.toml: its [mcp_servers.<name>]
// tables, the rest of the file being ignored. See [Parse].
func (p *parser) parseCodexConfig() (*Config, error) {
	data := p.data
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if !errors.As(err, &de) {
			return nil, p.errAt(0, "", "", err.Error())
		}
		line, col := de.Position()
		return nil, p.errAt(offsetOf(data, line, col), "", "", strings.TrimPrefix(de.Error(), "toml: "))
	}
	locs := tomlLocations(data)
	cfg := &Config{Path: p.path, Servers: map[string]*Server{}}
	raw, ok := doc[tomlServers]
	if !ok {
		return cfg, nil // Codex's config.toml holds more than servers
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, p.errAt(locs.val(tomlServers), "", "", `"mcp_servers" must be a table`)
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	// Problems come in file order, as the JSON forms' do.
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(locs.key(tomlServers, a), locs.key(tomlServers, b)), strings.Compare(a, b))
	})
	for _, name := range names {
		if name == "" {
			cfg.Problems = append(cfg.Problems, p.errAt(locs.key(tomlServers, name), "", "", "empty server name"))
			continue
		}
		c := &codexServer{p: p, locs: locs, name: name}
		var base *Server
		if p.base != nil {
			base = p.base.Servers[name]
		}
		raw := entries[name]
		keys, isTable := raw.(map[string]any)
		if isTable && base == nil && keys["enabled"] == false && keys["command"] == nil && keys["url"] == nil {
			// Only switches off a server of another layer: nothing to start here.
			continue
		}
		if base != nil && isTable {
			raw = withTransportOf(keys, base)
		}
		s, err := c.parse(raw)
		if err == nil && base != nil {
			s = overlay(base, s, keys)
		}
		if err != nil {
			cfg.Problems = append(cfg.Problems, err)
			continue
		}
		cfg.Servers[name] = s
	}
	return cfg, nil
}

// withTransportOf gives a later layer's table that names neither command
// nor url the earlier layer's, so that it parses as the same server.
func withTransportOf(keys map[string]any, base *Server) map[string]any {
	_, hasCommand := keys["command"]
	_, hasURL := keys["url"]
	if hasCommand || hasURL {
		return keys
	}
	m := maps.Clone(keys)
	if base.Type == TypeStdio {
		m["command"] = base.Command
	} else {
		m["url"] = base.URL
	}
	return m
}

// offsetOf turns go-toml's 1-based line and byte column into an offset.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return min(off+max(col-1, 0), len(data))
}

// tomlLocs maps a key's path (its parts joined by "\x00", an array element
// adding "[i]") to where its key and its value start in the file.
type tomlLocs map[string]tomlLoc

type tomlLoc struct{ key, val int }

func locPath(parts ...string) string { return strings.Join(parts, "\x00") }

// key is where the key at parts is written first; 0 when it is not.
func (l tomlLocs) key(parts ...string) int { return l[locPath(parts...)].key }

// val is where the value at parts starts; its key's offset for a table
// given by a header, 0 when it is not in the file.
func (l tomlLocs) val(parts ...string) int { return l[locPath(parts...)].val }

// tomlLocations walks the file's expressions with go-toml's parser, which
// keeps each node's place in the file, to locate every key and value.
// The file is valid TOML: [toml.Unmarshal] accepted it first.
func tomlLocations(data []byte) tomlLocs {
	locs := tomlLocs{}
	add := func(path []string, key, val int) {
		if _, ok := locs[locPath(path...)]; !ok {
			locs[locPath(path...)] = tomlLoc{key: key, val: val}
		}
	}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = nil
			for it := e.Key(); it.Next(); {
				table = append(table, string(it.Node().Data))
				off := int(it.Node().Raw.Offset)
				add(table, off, off)
			}
		case unstable.KeyValue:
			walkKeyValue(data, slices.Clone(table), e, add)
		}
	}
	return locs
}

// walkKeyValue locates the key-value kv under prefix, and what its value
// holds.
func walkKeyValue(data []byte, prefix []string, kv *unstable.Node, add func([]string, int, int)) {
	path := prefix
	var keyOff, end int
	for it := kv.Key(); it.Next(); {
		if len(path) > len(prefix) {
			add(path, keyOff, keyOff) // a dotted key's table
		}
		k := it.Node()
		path = append(path, string(k.Data))
		keyOff, end = int(k.Raw.Offset), int(k.Raw.Offset+k.Raw.Length)
	}
	// Arrays carry no range: the value starts after the '='.
	val := end
	for val < len(data) && (data[val] == ' ' || data[val] == '\t' || data[val] == '=') {
		val++
	}
	add(path, keyOff, val)
	walkValue(data, path, kv.Value(), val, add)
}

// walkValue locates the elements of an array and the members of an inline
// table, the value node n starting at off.
func walkValue(data []byte, path []string, n *unstable.Node, off int, add func([]string, int, int)) {
	switch n.Kind {
	case unstable.Array:
		i := 0
		for it := n.Children(); it.Next(); {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			elOff := off
			if c.Raw.Length > 0 {
				elOff = int(c.Raw.Offset)
			}
			elPath := append(slices.Clone(path[:len(path)-1]), path[len(path)-1]+fmt.Sprintf("[%d]", i))
			add(elPath, elOff, elOff)
			walkValue(data, elPath, c, elOff, add)
			i++
		}
	case unstable.InlineTable:
		for it := n.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				walkKeyValue(data, slices.Clone(path), c, add)
			}
		}
	}
}

// codexServer parses one [mcp_servers.<name>] table.
type codexServer struct {
	p      *parser
	locs   tomlLocs
	name   string
	fields map[string]any // the table's keys
	err    *Error         // the first problem
}

// at is where the server's field (a path below the server) starts.
func (c *codexServer) at(field ...string) int {
	return c.locs.val(append([]string{tomlServers, c.name}, field...)...)
}

// keyAt is where the server's key (a path below the server) is written.
func (c *codexServer) keyAt(field ...string) int {
	return c.locs.key(append([]string{tomlServers, c.name}, field...)...)
}

// fail keeps the first problem, at the value of field.
func (c *codexServer) fail(off int, field, format string, args ...any) {
	if c.err == nil {
		c.err = c.p.errAt(off, c.name, field, fmt.Sprintf(format, args...))
	}
}

// parse reads the table raw: the settings every server may have, then
// those of its transport. Each check keeps going after a problem, so that
// the first one in the table's order of checks is the one reported.
func (c *codexServer) parse(raw any) (*Server, *Error) {
	fields, ok := raw.(map[string]any)
	if !ok {
		return nil, c.p.errAt(c.at(), c.name, "", "must be a table")
	}
	c.fields = fields
	s := &Server{Name: c.name}
	s.Line, s.Column = position(c.p.data, c.keyAt())
	c.settings(s)
	if c.err != nil {
		return nil, c.err
	}
	c.transport(s)
	if c.err != nil {
		return nil, c.err
	}
	return s, nil
}

// settings reads what does not depend on the transport: enabled, required,
// the parallel flag, the timeouts, the approval modes and the tool filters.
func (c *codexServer) settings(s *Server) {
	enabled, set := c.boolean("enabled")
	s.Disabled = set && !enabled
	s.Required, _ = c.boolean("required")
	s.LegacyFallback, _ = c.boolean("legacy_fallback")
	if b, set := c.boolean("supports_parallel_tool_calls"); set {
		s.ParallelToolCalls = &b
	}
	s.ConnectTimeout = c.startupTimeout()
	s.Timeout, _ = c.seconds("tool_timeout_sec")
	if mode, ok := c.str("default_tools_approval_mode"); ok {
		if s.Approval, ok = c.approval(mode, "default_tools_approval_mode"); !ok {
			return
		}
	}
	c.tools(s)
	s.IncludeTools = c.strs("enabled_tools")
	s.ExcludeTools = c.strs("disabled_tools")
}

// startupTimeout is startup_timeout_sec, or Codex's older
// startup_timeout_ms when that is not set; zero when neither is.
func (c *codexServer) startupTimeout() time.Duration {
	if d, ok := c.seconds("startup_timeout_sec"); ok {
		return d
	}
	v, ok := c.fields["startup_timeout_ms"]
	if !ok {
		return 0
	}
	n, isInt := v.(int64)
	switch {
	case !isInt:
		c.fail(c.at("startup_timeout_ms"), "startup_timeout_ms", "must be a whole number of milliseconds")
	case n < 0:
		c.fail(c.at("startup_timeout_ms"), "startup_timeout_ms", "must not be negative")
	default:
		return time.Duration(n) * time.Millisecond
	}
	return 0
}

// Codex refuses the keys of the other transport rather than ignore them.
var (
	stdioOnlyKeys = []string{"args", "env", "env_vars", "cwd"}
	httpOnlyKeys  = []string{"bearer_token_env_var", "http_headers", "env_http_headers"}
)

// transport tells stdio ("command") from HTTP ("url") and reads that
// transport's keys, refusing those of the other one, pointing at the first.
func (c *codexServer) transport(s *Server) {
	command, hasCommand := c.str("command")
	url, hasURL := c.str("url")
	if c.err != nil {
		return
	}
	if _, ok := c.fields["bearer_token"]; ok {
		c.fail(c.keyAt("bearer_token"), "bearer_token",
			"is not supported: put the token in an environment variable and name it in bearer_token_env_var")
	}
	switch {
	case hasCommand && hasURL:
		c.fail(c.keyAt("url"), "", `both "command" and "url"; keep one`)
	case hasCommand:
		s.Type = TypeStdio
		c.refuse(httpOnlyKeys, "stdio")
		c.stdio(s, command, c.strs("args"), c.table("env", "variable", validEnvName))
	case hasURL:
		s.Type = TypeHTTP
		c.refuse(stdioOnlyKeys, "http")
		c.http(s, url, c.table("http_headers", "header", validHeaderName), c.table("env_http_headers", "header", validHeaderName))
	default:
		c.fail(c.keyAt(), "", `needs "command" (stdio) or "url" (http)`)
	}
}

// refuse fails on the first of keys the table has: they are not for a
// server of this transport.
func (c *codexServer) refuse(keys []string, transport string) {
	for _, k := range keys {
		if _, ok := c.fields[k]; ok {
			c.fail(c.keyAt(k), k, "is not supported for a %s server", transport)
		}
	}
}

// str gives the string at key; ok is false when it is absent or not a
// string (which fails).
func (c *codexServer) str(key string) (string, bool) {
	v, ok := c.fields[key]
	if !ok {
		return "", false
	}
	text, ok := v.(string)
	if !ok {
		c.fail(c.at(key), key, "must be a string")
	}
	return text, ok
}

// boolean gives the boolean at key; set is false when it is absent or not
// a boolean (which fails).
func (c *codexServer) boolean(key string) (b, set bool) {
	v, ok := c.fields[key]
	if !ok {
		return false, false
	}
	b, ok = v.(bool)
	if !ok {
		c.fail(c.at(key), key, "must be true or false")
	}
	return b, ok
}

// strs gives the array of strings at key; nil when it is absent or wrong.
func (c *codexServer) strs(key string) []string {
	v, ok := c.fields[key]
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.fail(c.at(key), key, "must be an array of strings")
		return nil
	}
	out := make([]string, 0, len(list))
	for i, el := range list {
		text, ok := el.(string)
		if !ok {
			field := fmt.Sprintf("%s[%d]", key, i)
			c.fail(c.at(field), field, "must be a string")
			return nil
		}
		out = append(out, text)
	}
	return out
}

// table gives a table of strings, checking its names with valid; nameKind
// names them in the error.
func (c *codexServer) table(key, nameKind string, valid func(string) bool) map[string]string {
	v, ok := c.fields[key]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(c.at(key), key, "must be a table of strings")
		return nil
	}
	if len(m) == 0 {
		return nil // as the JSON forms give an empty object
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedByPlace(m, func(k string) int { return c.at(key, k) }) {
		field := key + "." + k
		text, ok := m[k].(string)
		switch {
		case !valid(k):
			c.fail(c.keyAt(key, k), field, "invalid %s name", nameKind)
		case !ok:
			c.fail(c.at(key, k), field, "must be a string")
		}
		out[k] = text
	}
	return out
}

// seconds gives the number of seconds at key, an integer or not, as a
// duration; ok is false when it is absent or wrong.
func (c *codexServer) seconds(key string) (time.Duration, bool) {
	v, ok := c.fields[key]
	if !ok {
		return 0, false
	}
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		c.fail(c.at(key), key, "must be a number of seconds")
		return 0, false
	}
	switch {
	case math.IsNaN(f) || f < 0:
		c.fail(c.at(key), key, "must not be negative")
	case f > maxTimeoutMillis/1000:
		c.fail(c.at(key), key, "is too large")
	default:
		return time.Duration(f * float64(time.Second)), true
	}
	return 0, false
}

// approval checks a mode written at field.
func (c *codexServer) approval(mode string, field ...string) (ApprovalMode, bool) {
	m, msg := checkApproval(mode)
	if msg != "" {
		c.fail(c.at(field...), strings.Join(field, "."), "%s", msg)
		return "", false
	}
	return m, true
}

// tools reads [mcp_servers.<name>.tools.<tool>] approval_mode.
func (c *codexServer) tools(s *Server) {
	v, ok := c.fields["tools"]
	if !ok {
		return
	}
	tools, ok := v.(map[string]any)
	if !ok {
		c.fail(c.at("tools"), "tools", "must be a table of tools by name")
		return
	}
	for _, name := range sortedByPlace(tools, func(k string) int { return c.at("tools", k) }) {
		field := "tools." + name
		settings, ok := tools[name].(map[string]any)
		switch {
		case name == "":
			c.fail(c.keyAt("tools", name), field, "empty tool name")
			return
		case !ok:
			c.fail(c.at("tools", name), field, "must be a table")
			return
		}
		var tc Tool
		if raw, ok := settings["approval_mode"]; ok {
			mode, isStr := raw.(string)
			if !isStr {
				c.fail(c.at("tools", name, "approval_mode"), field+".approval_mode", "%s", approvalWant)
				return
			}
			if tc.Approval, ok = c.approval(mode, "tools", name, "approval_mode"); !ok {
				return
			}
		}
		if s.Tools == nil {
			s.Tools = map[string]Tool{}
		}
		s.Tools[name] = tc
	}
}

// stdio fills a stdio server. Codex does not expand ${VAR} in its file:
// values are taken as written, and the environment is read only where a
// key names a variable (env_vars here).
func (c *codexServer) stdio(s *Server, command string, args []string, env map[string]string) {
	if strings.TrimSpace(command) == "" {
		c.fail(c.at("command"), "command", "must not be empty")
	}
	s.Command, s.Args, s.Env = command, args, env
	if cwd, ok := c.fields["cwd"]; ok {
		if s.Cwd, ok = cwd.(string); !ok {
			c.fail(c.at("cwd"), "cwd", "must be a string")
		}
	}
	raw, ok := c.fields["env_vars"]
	if !ok {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		c.fail(c.at("env_vars"), "env_vars", "must be an array of variable names")
		return
	}
	for i, el := range list {
		field := fmt.Sprintf("env_vars[%d]", i)
		off := c.at(field)
		name, ok := el.(string)
		if t, isTable := el.(map[string]any); isTable {
			// Codex's { name = "X", source = "local" | "remote" }.
			name, ok = t["name"].(string)
			if src, has := t["source"]; has && src != "local" && src != "remote" {
				c.fail(c.at(field, "source"), field+".source", `must be "local" or "remote"`)
				return
			}
		}
		if !ok || !validEnvName(name) {
			c.fail(off, field, "must be a variable name")
			return
		}
		// Forwarded when this process has it, as Codex does; an unset one
		// is left out. A value in env wins.
		if v, set := c.p.lookup(name); set {
			if _, given := s.Env[name]; !given {
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[name] = v
			}
		}
	}
}

// http fills an HTTP server: its URL, http_headers as written,
// env_http_headers read from the environment (an unset or empty variable
// leaves its header out, as Codex does), and bearer_token_env_var as
// "Authorization: Bearer <token>", which wins over a header of that name.
func (c *codexServer) http(s *Server, url string, headers, envHeaders map[string]string) {
	if !checkURL(url) {
		c.fail(c.at("url"), "url", "must be an absolute http or https URL")
	}
	s.URL = url
	for k, v := range headers {
		if strings.ContainsAny(v, "\r\n") {
			c.fail(c.at("http_headers", k), "http_headers."+k, "must not contain a line break")
		}
	}
	s.Headers = headers
	for _, k := range slices.Sorted(maps.Keys(envHeaders)) {
		field := "env_http_headers." + k
		name := envHeaders[k]
		if !validEnvName(name) {
			c.fail(c.at("env_http_headers", k), field, "must be a variable name")
			continue
		}
		switch v, ok := c.p.lookup(name); {
		case !ok || v == "":
		case strings.ContainsAny(v, "\r\n"):
			c.fail(c.at("env_http_headers", k), field, "variable %q holds a line break", name)
		default:
			setHeader(s, k, v)
		}
	}
	c.bearer(s)
}

// bearer reads bearer_token_env_var into "Authorization: Bearer <token>".
func (c *codexServer) bearer(s *Server) {
	const key = "bearer_token_env_var"
	raw, ok := c.fields[key]
	if !ok {
		return
	}
	name, ok := raw.(string)
	if !ok || !validEnvName(name) {
		c.fail(c.at(key), key, "must be a variable name")
		return
	}
	v, isSet := c.p.lookup(name)
	switch {
	case s.Disabled:
		// A disabled server whose token is not set must not break the file.
		if isSet {
			setHeader(s, "Authorization", "Bearer "+v)
		}
	case !isSet:
		c.fail(c.at(key), key, "variable %q is not set", name)
	case v == "":
		c.fail(c.at(key), key, "variable %q is empty", name)
	case strings.ContainsAny(v, "\r\n"):
		c.fail(c.at(key), key, "variable %q holds a line break", name)
	default:
		setHeader(s, "Authorization", "Bearer "+v)
	}
}

// setHeader sets the header k of s, replacing any of that name in another
// case.
func setHeader(s *Server, k, v string) {
	if s.Headers == nil {
		s.Headers = map[string]string{}
	}
	for have := range s.Headers {
		if strings.EqualFold(have, k) {
			delete(s.Headers, have)
		}
	}
	s.Headers[k] = v
}

// validEnvName reports whether name can be an environment variable's name.
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// sortedByPlace lists m's keys in the order the file writes them.
func sortedByPlace(m map[string]any, place func(string) int) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(place(a), place(b)), strings.Compare(a, b)) })
	return keys
}
