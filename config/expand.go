package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// envName is what ${VAR} and ${env:VAR} accept as a variable name: the
// portable shell identifier, so a typo such as ${API-KEY} is reported
// rather than silently looked up.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// expander expands the variables of one file's servers.
type expander struct {
	vars      map[string]string // predefined variables; they win over the environment
	lookupEnv func(string) (string, bool)
	home      string            // "" when unknown; then "~" is an error
	inputs    map[string]string // VS Code input id → description
	// literalEnv keeps every environment variable as written: an
	// unapproved project file is read to be shown for approval, and what
	// it shows must be what it says, not values of the user's environment
	// (a hostile "${AWS_SECRET_ACCESS_KEY}" would be printed by config
	// show, or land in a CI log). Predefined variables, ~ and inputs
	// still expand: they are paths, not secrets.
	literalEnv bool
}

// expansion is the outcome of expanding one string.
type expansion struct {
	value    string
	problems []string // one message per unresolvable variable
	inputs   []string // ${input:id} references, verbatim
}

// expand expands s. With tilde set, a leading "~" or "~/" becomes the home
// directory first, as a shell would do for a path or argument.
func (e *expander) expand(s string, tilde bool) expansion {
	var x expansion
	prefix := ""
	if tilde && (s == "~" || strings.HasPrefix(s, "~/")) {
		if e.home == "" {
			x.problems = append(x.problems, `cannot expand "~": the home directory is unknown; set HOME or write the full path`)
		} else {
			prefix, s = e.home, s[1:]
		}
	}
	v, _ := e.scan(s, 0, false, &x)
	x.value = prefix + v
	return x
}

// scan expands s from i up to its end or, when nested inside a default
// value, up to the first unmatched "}", whose index it returns. It makes a
// single pass, so its cost stays linear however deeply defaults nest.
func (e *expander) scan(s string, i int, nested bool, x *expansion) (string, int) {
	var b strings.Builder
	for i < len(s) {
		switch {
		case nested && s[i] == '}':
			return b.String(), i
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			v, next := e.variable(s, i, x)
			b.WriteString(v)
			i = next
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), i
}

// variable expands the ${...} starting at s[i] and returns its value and
// the index just after it. An unresolvable variable keeps its text, so
// displays show what was written.
func (e *expander) variable(s string, i int, x *expansion) (string, int) {
	k := i + 2
	for k < len(s) && s[k] != '}' && !(s[k] == ':' && k+1 < len(s) && s[k+1] == '-') {
		k++
	}
	if k >= len(s) {
		x.problems = append(x.problems, fmt.Sprintf("unterminated variable %q: add the closing \"}\"", s[i:]))
		return s[i:], len(s)
	}
	name := s[i+2 : k]
	end := k
	var def string
	var defX expansion
	hasDefault := s[k] == ':'
	if hasDefault {
		// The default is expanded into its own record and merged only
		// when used: an unset variable in an unused default is no error.
		def, end = e.scan(s, k+2, true, &defX)
		if end >= len(s) {
			x.problems = append(x.problems, fmt.Sprintf("unterminated variable %q: add the closing \"}\"", s[i:]))
			return s[i:], len(s)
		}
	}
	raw := s[i : end+1]
	val, set, problem := e.resolve(name, raw, x)
	switch {
	case problem != "":
		x.problems = append(x.problems, problem)
		return raw, end + 1
	case set && (val != "" || !hasDefault):
		return val, end + 1
	case hasDefault:
		x.problems = append(x.problems, defX.problems...)
		x.inputs = append(x.inputs, defX.inputs...)
		return def, end + 1
	}
	x.problems = append(x.problems, fmt.Sprintf("variable %q is not set; set it in the environment or give a default with ${%s:-value}", name, name))
	return raw, end + 1
}

// resolve looks one variable up. It reports set=false for an unset
// variable and a non-empty problem for one that can never resolve. A
// ${input:id} resolves to its own text and is recorded in x.inputs,
// unless the predefined variables give it a value (key "input:id").
func (e *expander) resolve(name, raw string, x *expansion) (val string, set bool, problem string) {
	switch {
	case name == "":
		return "", false, `empty variable name "${}": write ${NAME}`
	case name == "input:":
		return "", false, `empty input id "${input:}": name an input declared in "inputs"`
	case strings.HasPrefix(name, "input:"):
		if v, ok := e.vars[name]; ok {
			return v, true, "" // given a value (mcpdeck test's inputs:)
		}
		x.inputs = append(x.inputs, "${"+name+"}")
		return raw, true, ""
	case strings.HasPrefix(name, "env:"):
		n := strings.TrimPrefix(name, "env:")
		if !envName().MatchString(n) {
			return "", false, fmt.Sprintf("invalid environment variable name %q in %q", n, raw)
		}
		return e.env(n, raw)
	}
	if v, ok := e.vars[name]; ok {
		return v, true, ""
	}
	if strings.Contains(name, ":") {
		return "", false, fmt.Sprintf("unsupported variable %q: mcpdeck expands ${VAR}, ${VAR:-default}, ${env:VAR}, ${workspaceFolder}, ${userHome} and ${input:id}", raw)
	}
	if !envName().MatchString(name) {
		return "", false, fmt.Sprintf("invalid variable name %q in %q: use letters, digits and underscores", name, raw)
	}
	return e.env(name, raw)
}

// env looks an environment variable up, or, with literalEnv, resolves it
// to its own text (raw, the whole reference with any default), so nothing
// of the environment is read.
func (e *expander) env(name, raw string) (val string, set bool, problem string) {
	if e.literalEnv {
		return raw, true, ""
	}
	val, set = e.lookupEnv(name)
	return val, set, ""
}
