package mcpconfig

import (
	"errors"
	"fmt"
	"strings"
)

// expand replaces the variable references in s, the way Claude Code, Cursor
// and VS Code do in mcp.json:
//
//   - ${NAME} is NAME's value; NAME unset is an error, NAME set to "" gives "".
//   - ${NAME:-default} is NAME's value, or default when NAME is unset or
//     empty (the shell's ":-"). default is taken literally up to the first
//     '}': it cannot contain '}' nor another reference.
//   - ${env:NAME} is VS Code's spelling of ${NAME} (${env:NAME:-default}
//     works too).
//
// NAME is [A-Za-z_][A-Za-z0-9_]*. A '$' not followed by '{' is literal, and
// there is no escape for "${": no server we know needs a literal one, and an
// escape would be one more rule to get wrong. Other "${x:...}" forms (VS
// Code's ${input:id} prompts, ${config:...}) are errors, not silently left.
//
// Errors name the variable but never a value: values are often tokens.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, "${")
		b.WriteString(before)
		if !found {
			return b.String(), nil
		}
		ref, rest, closed := strings.Cut(after, "}")
		if !closed {
			return "", errors.New(`unterminated "${"`)
		}
		v, err := resolve(ref, lookup)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = rest
	}
}

// resolve gives the value of the reference ref, the text between "${" and "}".
func resolve(ref string, lookup func(string) (string, bool)) (string, error) {
	body, isEnv := strings.CutPrefix(ref, "env:")
	name, def, hasDef := strings.Cut(body, ":-")
	if !validVarName(name) {
		if prefix, _, ok := strings.Cut(ref, ":"); ok && !isEnv && validVarName(prefix) {
			return "", fmt.Errorf("${%s:...} is not supported; use ${NAME}, ${NAME:-default} or ${env:NAME}", prefix)
		}
		return "", errors.New("invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}")
	}
	if strings.Contains(def, "${") {
		return "", fmt.Errorf("the default of %q cannot contain another reference", name)
	}
	v, set := lookup(name)
	switch {
	case set && (v != "" || !hasDef):
		return v, nil
	case hasDef:
		return def, nil
	default:
		return "", fmt.Errorf("variable %q is not set", name)
	}
}

// validVarName reports whether name is a shell variable name.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range []byte(name) {
		isLetter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !isLetter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// expandFields expands the fields of s that may hold references, from r,
// which the file gave. A disabled server's failures are dropped and the
// field keeps its text as written: disabling a server whose token is not set
// must not break the file. It returns the first error otherwise, and checks
// what only the expanded values can show (an empty command, a bad URL), in
// that order.
func (p *parser) expandFields(s *Server, r *rawServer, urlField string) error {
	var firstErr error
	fail := func(off int, field, msg string) {
		if firstErr == nil {
			firstErr = p.errAt(off, s.Name, field, msg)
		}
	}
	// sub expands v; ok false means it failed and the checks skip it.
	sub := func(field string, v *located) (_ string, ok bool) {
		if v == nil {
			return "", true
		}
		out, err := expand(v.s, p.lookup)
		if err == nil {
			return out, true
		}
		if !s.Disabled {
			fail(v.off, field, err.Error())
		}
		return v.s, false
	}
	subMap := func(kind string) map[string]string {
		entries := r.obj[kind]
		if len(entries) == 0 {
			return nil
		}
		m := make(map[string]string, len(entries))
		for _, kv := range entries {
			m[kv.key], _ = sub(kind+"."+kv.key, &kv)
		}
		return m
	}

	cmd, ok := r.str["command"], false
	s.Command, ok = sub("command", cmd)
	if ok && s.Type == TypeStdio && strings.TrimSpace(s.Command) == "" {
		fail(cmd.off, "command", "must not be empty")
	}
	for i, a := range r.list["args"] {
		v, _ := sub(fmt.Sprintf("args[%d]", i), &a)
		s.Args = append(s.Args, v)
	}
	s.Env = subMap("env")
	s.Cwd, _ = sub("cwd", r.str["cwd"])
	u := r.str[urlField]
	s.URL, ok = sub(urlField, u)
	if ok && s.Type == TypeHTTP && !checkURL(s.URL) {
		fail(u.off, urlField, "must be an absolute http or https URL")
	}
	s.Headers = subMap("headers")
	for _, h := range r.obj["headers"] {
		// A line break would let a value forge further headers.
		if strings.ContainsAny(s.Headers[h.key], "\r\n") {
			fail(h.off, "headers."+h.key, "must not contain a line break")
		}
	}
	return firstErr
}
