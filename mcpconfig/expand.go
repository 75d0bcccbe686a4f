package mcpconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// resolver expands the variable references of one file by its host's
// rules (see [Host] and docs/toolbox.md, "Variables by host").
type resolver struct {
	host       Host
	lookup     func(string) (string, bool)
	predefined map[string]string
	inputs     map[string]Input // the file's declarations, by id
	answer     func(Input) (string, error)
	answered   map[string]answer
}

// answer is an input's value or why it has none, asked once per id.
type answer struct {
	v   string
	err error
}

// newResolver makes the resolver of the file at path.
func newResolver(host Host, path string, o *options) *resolver {
	ws := o.workspace
	if ws == "" {
		ws = workspaceOf(path)
	}
	pre := map[string]string{"pathSeparator": string(filepath.Separator), "/": string(filepath.Separator)}
	if ws != "" {
		pre["workspaceFolder"] = ws
		pre["workspaceFolderBasename"] = filepath.Base(ws)
		pre["CLAUDE_PROJECT_DIR"] = ws
	}
	if home, err := os.UserHomeDir(); err == nil {
		pre["userHome"] = home
	}
	return &resolver{host: host, lookup: o.lookup, predefined: pre, answer: o.inputs, answered: map[string]answer{}}
}

// rules says which forms a host resolves.
type rules struct {
	plain      bool // ${NAME} is the environment's NAME
	defaults   bool // ${NAME:-default}
	envPrefix  bool // ${env:NAME}
	predefined bool // ${workspaceFolder}, ${userHome}, ...
	inputs     bool // ${input:ID}
	unsetEmpty bool // an unset ${env:NAME} is "" rather than a problem
	keepOthers bool // a form the host does not know stays as written
}

var hostRules = map[Host]rules{
	HostGeneric:    {plain: true, defaults: true, envPrefix: true, predefined: true, inputs: true},
	HostClaudeCode: {plain: true, defaults: true},
	HostCursor:     {envPrefix: true, predefined: true, unsetEmpty: true, keepOthers: true},
	HostVSCode:     {envPrefix: true, predefined: true, inputs: true, unsetEmpty: true, keepOthers: true},
	HostWindsurf:   {envPrefix: true, keepOthers: true},
}

// varError is a reference that stays unresolved; its message names the
// variable and how to supply it, never a value.
type varError struct{ msg string }

func (e *varError) Error() string { return e.msg }

// expand replaces the variable references in s by the host's rules:
//
//   - ${NAME} is NAME's value; NAME set to "" gives "".
//   - ${NAME:-default} is NAME's value, or default when NAME is unset or
//     empty (the shell's ":-"); default is literal text up to the first '}'.
//   - ${env:NAME} is VS Code's spelling of ${NAME}.
//   - ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome},
//     ${pathSeparator}, ${/} and CLAUDE_PROJECT_DIR are the predefined
//     variables, asked of the lookup first.
//   - ${input:ID} is the answer of [WithInputs].
//
// NAME is [A-Za-z_][A-Za-z0-9_]*. A '$' not followed by '{' is literal,
// except in Gemini CLI's files, where $NAME is a reference too. Errors name
// the variable but never a value: values are often tokens.
func (r *resolver) expand(s string) (string, error) {
	switch r.host {
	case HostClaudeDesktop, HostCodex:
		return s, nil
	case HostGemini:
		return r.expandGemini(s), nil
	}
	if !strings.Contains(s, "${") {
		return s, nil
	}
	ru := hostRules[r.host]
	var b strings.Builder
	for {
		before, after, found := strings.Cut(s, "${")
		b.WriteString(before)
		if !found {
			return b.String(), nil
		}
		ref, rest, closed := strings.Cut(after, "}")
		if !closed {
			if ru.keepOthers {
				b.WriteString("${" + after)
				return b.String(), nil
			}
			return "", errors.New(`unterminated "${"`)
		}
		v, keep, err := r.resolve(ref, ru)
		if err != nil {
			return "", err
		}
		if keep {
			v = "${" + ref + "}"
		}
		b.WriteString(v)
		s = rest
	}
}

// resolve gives the value of ref, the text between "${" and "}"; keep
// says the reference stays as written.
func (r *resolver) resolve(ref string, ru rules) (v string, keep bool, err error) {
	prefix, rest, hasPrefix := strings.Cut(ref, ":")
	switch {
	case hasPrefix && prefix == "input" && ru.inputs:
		v, err := r.input(rest)
		return v, false, err
	case hasPrefix && prefix == "env" && ru.envPrefix:
		name, def, hasDef := strings.Cut(rest, ":-")
		if !validVarName(name) {
			break
		}
		if hasDef && !ru.defaults {
			break
		}
		return r.variable(name, def, hasDef, ru.unsetEmpty)
	case ru.predefined && r.isPredefined(ref):
		if v, ok := r.lookup(ref); ok {
			return v, false, nil
		}
		if v, ok := r.predefined[ref]; ok {
			return v, false, nil
		}
		return "", false, &varError{fmt.Sprintf("variable %q has no value; set the workspace folder with mcpconfig.WithWorkspaceFolder or supply it with mcpconfig.WithVariables", ref)}
	case ru.plain:
		name, def, hasDef := strings.Cut(ref, ":-")
		if !hasDef || ru.defaults {
			if validVarName(name) {
				if name == "CLAUDE_PROJECT_DIR" {
					if v, ok := r.lookup(name); ok {
						return v, false, nil
					}
					if v, ok := r.predefined[name]; ok {
						return v, false, nil
					}
				}
				return r.variable(name, def, hasDef, false)
			}
		}
	}
	if ru.keepOthers {
		return "", true, nil
	}
	if strings.Contains(ref, ":-") && strings.Contains(ref, "${") {
		return "", false, errors.New("a default cannot contain another reference")
	}
	if hasPrefix && validVarName(prefix) && !(prefix == "env" && ru.envPrefix) {
		return "", false, fmt.Errorf("${%s:...} is not supported here; use ${NAME}, ${NAME:-default} or ${env:NAME}", prefix)
	}
	return "", false, errors.New("invalid variable reference; want ${NAME}, ${NAME:-default} or ${env:NAME}")
}

// isPredefined reports whether name is one of the hosts' predefined
// variables.
func (r *resolver) isPredefined(name string) bool {
	switch name {
	case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/":
		return true
	}
	return false
}

// variable looks name up; an unset one gives def when there is one, else
// "" when unsetEmpty, else the problem naming it.
func (r *resolver) variable(name, def string, hasDef, unsetEmpty bool) (string, bool, error) {
	if strings.Contains(def, "${") {
		return "", false, fmt.Errorf("the default of %q cannot contain another reference", name)
	}
	v, set := r.lookup(name)
	switch {
	case set && (v != "" || !hasDef):
		return v, false, nil
	case hasDef:
		return def, false, nil
	case unsetEmpty:
		return "", false, nil
	}
	return "", false, &varError{fmt.Sprintf("variable %q is not set; set it in the environment or supply it with mcpconfig.WithVariables", name)}
}

// input answers ${input:id}, asking once per id.
func (r *resolver) input(id string) (string, error) {
	if a, ok := r.answered[id]; ok {
		return a.v, a.err
	}
	var a answer
	in, declared := r.inputs[id]
	if !declared {
		in = Input{ID: id}
	}
	switch {
	case id == "":
		a.err = errors.New("${input:} names no input")
	case r.answer == nil:
		a.err = &varError{fmt.Sprintf("input %q has no answer; answer it with mcpconfig.WithInputs", id)}
	default:
		v, err := r.answer(in)
		if err != nil {
			a.err = &varError{fmt.Sprintf("input %q has no answer: %v", id, err)}
		}
		a.v = v
	}
	r.answered[id] = a
	return a.v, a.err
}

// expandGemini is Gemini CLI's rule: $NAME and ${NAME} are replaced by
// the variable when it is set (even to ""), and stay as written when not.
func (r *resolver) expandGemini(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		var name string
		end := i + 1
		if s[i+1] == '{' {
			j := strings.IndexByte(s[i+2:], '}')
			if j <= 0 {
				b.WriteByte(s[i])
				i++
				continue
			}
			name, end = s[i+2:i+2+j], i+3+j
		} else {
			for end < len(s) && isWordByte(s[end]) {
				end++
			}
			name = s[i+1 : end]
		}
		if v, ok := r.lookup(name); ok && name != "" {
			b.WriteString(v)
		} else {
			b.WriteString(s[i:end])
		}
		i = max(end, i+1)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
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
func (p *parser) expandFields(s *Server, r *rawServer, urlField string) *Error {
	var firstErr *Error
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
		out, err := p.res.expand(v.s)
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
	if s.Type == TypeStdio {
		s.Command, ok = sub("command", cmd)
		if ok && strings.TrimSpace(s.Command) == "" {
			fail(cmd.off, "command", "must not be empty")
		}
		for i, a := range r.list["args"] {
			v, _ := sub(fmt.Sprintf("args[%d]", i), &a)
			s.Args = append(s.Args, v)
		}
		s.Env = subMap("env")
		s.Cwd, _ = sub("cwd", r.str["cwd"])
		s.EnvFile, _ = sub("envFile", r.str["envFile"])
		if ws := p.res.predefined["workspaceFolder"]; s.EnvFile != "" && !filepath.IsAbs(s.EnvFile) && ws != "" {
			s.EnvFile = filepath.Join(ws, s.EnvFile) // as VS Code reads it
		}
	}
	if s.Type != TypeStdio {
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
		if hh := r.str["headersHelper"]; hh != nil {
			s.HeadersHelper, _ = sub("headersHelper", hh)
		}
	}
	return firstErr
}
